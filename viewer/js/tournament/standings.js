// The standings table: points, results, the rating with its 95% error bar drawn to one scale
// for all rows, faults and time per move.

import { h, s } from "../dom.js";
import * as fmt from "../format.js";
import * as links from "../links.js";

const BAR_WIDTH = 150;

function ratingBar(row, lo, hi) {
  const x = (v) => ((v - lo) / Math.max(1e-9, hi - lo)) * (BAR_WIDTH - 8) + 4;
  const err = row.error95 || 0;
  return s("svg", { class: "rating-bar", width: BAR_WIDTH, height: 14, viewBox: `0 0 ${BAR_WIDTH} 14` },
    s("line", { class: "axis", x1: 4, x2: BAR_WIDTH - 4, y1: 7, y2: 7 }),
    err ? s("rect", { class: "range", x: x(row.rating - err), y: 3, width: Math.max(2, x(row.rating + err) - x(row.rating - err)), height: 8, rx: 3 }) : null,
    s("rect", { class: "mid", x: x(row.rating) - 1.5, y: 1, width: 3, height: 12, rx: 1 }),
    s("title", {}, ratingWords(row)));
}

/**
 * What a rating's bar means in words. A player that won (or lost) every game has no error bar:
 * its rating has no upper (lower) bound yet, however many games it played.
 */
export function ratingWords(row) {
  const rating = row.rating.toFixed(0);
  if (row.error95) return `${rating} ± ${row.error95.toFixed(0)} (95%)`;
  if (row.games > 0 && row.wins === row.games) return `${rating} or more: all ${row.games} games won, so the rating has no upper bound yet`;
  if (row.games > 0 && row.losses === row.games) return `${rating} or less: all ${row.games} games lost, so the rating has no lower bound yet`;
  return `${rating} (too few games for an error bar)`;
}

/** The "± 95%" cell: the error bar's half width, or the bound of a perfect (or null) score. */
function errorCell(row) {
  if (row.error95) return `± ${fmt.num(row.error95)}`;
  if (row.games > 0 && row.wins === row.games) return "no upper bound";
  if (row.games > 0 && row.losses === row.games) return "no lower bound";
  return "–";
}

/** What each column of the standings means, shown when the pointer rests on its header. */
const HEADER_TITLES = {
  W: "games won", D: "games drawn (best score shared)", L: "games lost",
  Elo: "Elo rating from all games (each player starts equal)",
  "μ−3σ": "Weng-Lin rating: skill μ less three times its uncertainty σ",
  "± 95%": "half the 95% interval of the rating: the true rating is within this of it, 19 times in 20",
  range: "the rating (mark) and its 95% interval (bar), all rows to one scale",
  LOS: "likelihood of superiority: the chance this player is stronger than the next one in the table, from their games against each other",
  faults: "malformed and illegal answers, timeouts and crashes",
  "per move": "average time per answer",
};

export function standingsTable(tournamentId, standings, colorOf) {
  const rows = standings.rows;
  if (!rows.length) return h("p", { class: "list-empty" }, "No player has played yet.");
  const ends = rows.flatMap((r) => [r.rating - (r.error95 || 0), r.rating + (r.error95 || 0)]);
  const lo = Math.min(...ends);
  const hi = Math.max(...ends);
  const two = standings.two_player;
  const head = ["#", "player", "games", "points", "W", "D", "L", two ? "Elo" : "μ−3σ", "± 95%", "range", two ? "LOS" : null, "faults", "per move"]
    .filter((c) => c !== null);
  const numeric = new Set(["games", "points", "W", "D", "L", "Elo", "μ−3σ", "± 95%", "LOS", "faults", "per move"]);
  return h("div", { class: "table-wrap" }, h("table", { class: "standings", id: "standings" },
    h("thead", {}, h("tr", {}, head.map((c) => h("th", { class: numeric.has(c) ? "num" : "", title: HEADER_TITLES[c] || null }, c)))),
    h("tbody", {}, rows.map((r, i) => h("tr", {},
      h("td", {}, i + 1),
      h("td", {}, h("span", { class: "swatch small", style: `background:${colorOf(r.player)}` }),
        h("a", { href: links.player(tournamentId, r.player) }, r.alias),
        r.alias !== r.player ? h("span", { class: "muted" }, ` ${r.player}`) : null),
      h("td", { class: "num" }, r.games),
      h("td", { class: "num" }, h("b", {}, fmt.points(r.points))),
      h("td", { class: "num" }, r.wins),
      h("td", { class: "num" }, r.draws),
      h("td", { class: "num" }, r.losses),
      h("td", { class: "num" }, fmt.num(r.rating)),
      h("td", { class: "num muted" }, errorCell(r)),
      h("td", {}, ratingBar(r, lo, hi)),
      two ? h("td", { class: "num" }, r.los === null || r.los === undefined ? "" : `${Math.round(r.los * 100)}%`) : null,
      h("td", { class: "num" }, r.faults ? h("span", { class: "pill bad", title: `${r.errors} errors, ${r.timeouts} timeouts, ${r.crashes} crashes` }, r.faults) : "0"),
      h("td", { class: "num" }, fmt.ms(r.ms_per_move)))))));
}

/** The cross-table of a 2-player tournament: what each row scored against each column. */
export function crossTable(tournamentId, standings, colorOf) {
  const rows = standings.rows;
  if (!standings.two_player || !standings.cross.length) return null;
  return h("div", { class: "table-wrap" }, h("table", { class: "cross", id: "cross-table" },
    h("thead", {}, h("tr", {}, h("th", {}, ""), rows.map((r, j) => h("th", { class: "center", title: r.alias }, j + 1)))),
    h("tbody", {}, rows.map((r, i) => h("tr", {},
      h("th", {}, `${i + 1}. `, h("span", { class: "swatch small", style: `background:${colorOf(r.player)}` }), r.alias),
      standings.cross[i].map((cell, j) => {
        if (i === j) return h("td", { class: "self" }, "·");
        if (!cell.games) return h("td", { class: "muted" }, "–");
        const share = cell.points / cell.games;
        const pairing = links.matchesOfPairing(tournamentId, r.player, rows[j].player);
        return h("td", { class: share > 0.5 ? "good" : share < 0.5 ? "bad" : "" },
          h("a", { href: pairing, title: `the matches of ${r.alias} against ${rows[j].alias}` },
            fmt.points(cell.points), h("span", { class: "games" }, `of ${cell.games}`)));
      }))))));
}
