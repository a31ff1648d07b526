// A tournament: standings with error bars, ratings over the rounds, the cross-table and the
// matches; refreshed while the tournament is being played.

import { h, put, byId, params } from "./dom.js";
import { getJSON, enc } from "./api.js";
import { renderNav, renderProblem } from "./nav.js";
import * as fmt from "./format.js";
import { standingsTable, crossTable } from "./tournament/standings.js";
import { ratingsChart } from "./tournament/ratings-chart.js";
import { matchesSection } from "./tournament/matches.js";
import { colorsFor } from "./tournament/colors.js";

const app = byId("app");
const REFRESH_MS = 4000;

function card(title, body, id) {
  return h("section", { class: "card", id }, h("h2", {}, title), body);
}

function progress(t) {
  const m = t.matches;
  const over = m.done + m.failed;
  if (t.finished) return h("span", { class: "pill ok" }, `finished · ${m.total} matches`);
  const gone = !t.runner || t.runner.state === "gone" || !m.running;
  return h("span", {},
    gone ? h("span", { class: "pill warn", id: "runner-gone" }, "stopped") : h("span", { class: "pill live" }, `${m.running} running`),
    ` ${over} of ${m.total} matches over`);
}

/** Under the heading of a tournament no one plays any more: why, and the command to go on. */
function resumeHint(t) {
  if (t.finished || !t.runner || t.runner.state !== "gone") return null;
  return h("p", { class: "resume-hint", id: "resume-hint" },
    "No runner is playing this tournament (it was stopped, killed or its machine switched off). Go on with ",
    h("code", {}, t.runner.resume), ".");
}

async function main() {
  const t = params().get("t");
  renderNav(byId("nav"), [{ text: `tournament ${t}` }]);
  if (!t) {
    renderProblem(app, "No tournament chosen", "Open one from the home page.");
    return;
  }
  let overview;
  let history;
  try {
    [overview, history] = await Promise.all([
      getJSON(`/api/tournaments/${enc(t)}`),
      getJSON(`/api/tournaments/${enc(t)}/ratings`),
    ]);
  } catch (e) {
    renderProblem(app, "This tournament cannot be shown", e.message);
    return;
  }
  document.title = `${overview.name || `Tournament ${t}`} · ${overview.game} · Arbiter`;
  const colorOf = colorsFor(overview.players);
  const aliases = new Map(overview.players.map((p) => [p.id, p.alias]));
  const aliasOf = (id) => aliases.get(id) || id;

  const head = h("div", { class: "page-head" });
  const standingsBox = h("div", {});
  const chartBox = h("div", {});
  const crossBox = h("div", {});
  const matches = matchesSection(t, overview.players.filter((p) => p.status === "ok" || p.status === "kept"), colorOf);
  const excluded = overview.players.filter((p) => p.status !== "ok" && p.status !== "kept");

  function fill() {
    put(head,
      h("h1", {}, overview.name || `Tournament ${overview.id}`,
        overview.name ? h("span", { class: "muted id-tag" }, ` tournament ${overview.id}`) : null),
      h("span", { class: "meta" }, `${overview.game} · ${overview.format} · ${fmt.plural(overview.rounds, "round")} · seed ${overview.seed} · started ${fmt.date(overview.created)}`),
      progress(overview),
      resumeHint(overview));
    put(standingsBox, standingsTable(t, overview.standings, colorOf),
      excluded.length ? h("p", { class: "muted" }, "Not playing: ",
        excluded.map((p, i) => [i ? ", " : "", h("b", {}, p.alias), ` (${p.status}${p.reason ? `: ${p.reason}` : ""})`])) : null);
    chartBox.replaceChildren(ratingsChart(history, aliasOf, colorOf));
    const cross = crossTable(t, overview.standings, colorOf);
    // No cross-table (games of more than 2 players, or none played yet): no empty card.
    crossBox.replaceChildren(...(cross ? [cross] : []));
    crossCard.hidden = !cross;
    pair.classList.toggle("single", !cross);
  }
  const crossCard = card("Cross-table", crossBox, "cross-card");
  const pair = h("div", { class: "grid-2" }, card("Ratings over the tournament", chartBox, "ratings-card"), crossCard);
  fill();
  const sections = [head, card("Standings", standingsBox, "standings-card")];
  sections.push(pair);
  sections.push(card("Matches", matches.element, "matches-card"));
  app.replaceChildren(...sections);
  await matches.refresh().catch((e) => renderProblem(matches.element, "The matches cannot be listed", e.message));

  if (!overview.finished) {
    const timer = setInterval(async () => {
      try {
        [overview, history] = await Promise.all([
          getJSON(`/api/tournaments/${enc(t)}`),
          getJSON(`/api/tournaments/${enc(t)}/ratings`),
        ]);
        fill();
        await matches.refresh();
        if (overview.finished) clearInterval(timer);
      } catch (e) {
        // The server may be restarting; the next refresh tries again.
      }
    }, REFRESH_MS);
  }
}

main();
