// One player of a tournament: its standing, its faults with the referee's words (each linking
// to the tick in the replay), its slowest answers, and its matches.

import { h, byId, params } from "./dom.js";
import { getJSON, enc } from "./api.js";
import { renderNav, renderProblem } from "./nav.js";
import * as fmt from "./format.js";
import * as links from "./links.js";
import { matchesSection } from "./tournament/matches.js";
import { colorsFor } from "./tournament/colors.js";

const app = byId("app");

function stat(value, label) {
  return h("div", { class: "stat" }, h("b", {}, value), h("span", {}, label));
}

function card(title, body, id) {
  return h("section", { class: "card", id }, h("h2", {}, title), body);
}

/** A player that failed the compliance check: why, and the check's replay to see it. */
function checkFailure(t, data) {
  const player = data.player;
  if (player.status !== "failing" && player.status !== "kept") return null;
  return h("div", { class: "check-failed", id: "check-failed" },
    h("p", { class: "error-text" }, `Failed the compliance check: ${player.reason || "no reason recorded"}`),
    data.check_replay ? h("a", { href: links.checkReplay(t, player.id) }, "the check's replay") : null);
}

function faultsTable(t, data) {
  const { faults, faults_capped: capped } = data;
  const failed = checkFailure(t, data);
  if (!faults.length) {
    return failed || h("p", { class: "list-empty" }, "No faults: every answer was well-formed, legal and in time.");
  }
  return h("div", {}, failed,
    h("div", { class: "table-wrap scroll" }, h("table", { id: "faults" },
      h("thead", {}, h("tr", {}, h("th", { class: "num" }, "match"), h("th", { class: "num" }, "tick"), h("th", {}, "what the referee said"))),
      h("tbody", {}, faults.map((f) => h("tr", {},
        h("td", { class: "num" }, h("a", { href: links.replayOfMatch(t, f.match, { tick: f.tick, player: f.seat }) }, f.match)),
        h("td", { class: "num" }, f.tick),
        h("td", { class: "error-text" }, f.error)))))),
    capped ? h("p", { class: "muted" }, "Only the first faults are listed.") : null);
}

function slowestTable(t, slowest) {
  if (!slowest.length) return h("p", { class: "list-empty" }, "No timed answers yet.");
  return h("div", { class: "table-wrap" }, h("table", { id: "slowest" },
    h("thead", {}, h("tr", {}, h("th", { class: "num" }, "time"), h("th", { class: "num" }, "match"), h("th", { class: "num" }, "tick"), h("th", {}, "answer"))),
    h("tbody", {}, slowest.map((m) => h("tr", {},
      h("td", { class: "num" }, h("b", {}, fmt.ms(m.time_ms))),
      h("td", { class: "num" }, h("a", { href: links.replayOfMatch(t, m.match, { tick: m.tick, player: m.seat }) }, m.match)),
      h("td", { class: "num" }, m.tick),
      h("td", {}, h("code", {}, m.answer ?? "")))))));
}

async function main() {
  const query = params();
  const t = query.get("t");
  const p = query.get("p");
  renderNav(byId("nav"), [{ text: `tournament ${t}`, href: links.tournament(t) }, { text: p || "player" }]);
  if (!t || !p) {
    renderProblem(app, "No player chosen", "Open a player from a tournament's standings.");
    return;
  }
  let data;
  let overview;
  try {
    [data, overview] = await Promise.all([
      getJSON(`/api/tournaments/${enc(t)}/players/${enc(p)}`),
      getJSON(`/api/tournaments/${enc(t)}`),
    ]);
  } catch (e) {
    renderProblem(app, "This player cannot be shown", e.message);
    return;
  }
  const player = data.player;
  document.title = `${player.alias} · tournament ${t} · Arbiter`;
  const colorOf = colorsFor(overview.players);
  const s = data.standing;
  const head = h("div", { class: "page-head" },
    h("h1", {}, h("span", { class: "swatch small", style: `background:${colorOf(player.id)}` }), player.alias),
    h("span", { class: "meta" }, `${player.full_name} · ${player.id}`),
    player.status === "ok" ? null : h("span", { class: "pill bad", title: player.reason || "" }, player.status));
  const stats = s
    ? h("div", { class: "stat-row" },
      stat(`${s.rank}`, "rank"),
      stat(fmt.points(s.points), "points"),
      stat(`${s.wins} / ${s.draws} / ${s.losses}`, "won / drawn / lost"),
      stat(`${fmt.num(s.rating)}${s.error95 ? ` ± ${fmt.num(s.error95)}` : ""}`, "rating (95%)"),
      stat(`${s.faults}`, `faults (${s.errors} errors, ${s.timeouts} timeouts, ${s.crashes} crashes)`),
      stat(fmt.ms(s.ms_per_move), "per answer"))
    : h("p", { class: "muted" }, player.reason || "This player has no standing.");
  const matches = matchesSection(t, overview.players, colorOf, { fixedPlayer: player.id });
  app.replaceChildren(head, h("section", { class: "card" }, stats),
    h("div", { class: "grid-2" },
      card("Faults", faultsTable(t, data), "faults-card"),
      card("Slowest answers", slowestTable(t, data.slowest), "slowest-card")),
    card("Matches", matches.element, "matches-card"));
  await matches.refresh().catch((e) => renderProblem(matches.element, "The matches cannot be listed", e.message));
}

main();
