// The home page: the game server of the store, matches being played now, the tournaments of the store, the replay files.

import { h, byId } from "./dom.js";
import { getJSON } from "./api.js";
import { renderNav, renderProblem } from "./nav.js";
import { playerColor } from "./colors.js";
import * as fmt from "./format.js";
import * as links from "./links.js";

const app = byId("app");
const REFRESH_MS = 3000;

function section(title, body, id) {
  return h("section", { class: "card", id }, h("h2", {}, title), body);
}

function names(players) {
  const out = [];
  players.forEach((name, i) => {
    if (i > 0) out.push(h("span", { class: "muted" }, " vs "));
    out.push(h("span", {}, h("span", { class: "swatch small", style: `background:${playerColor(i)}` }), name));
  });
  return out;
}

function liveList(live) {
  if (!live.length) return h("p", { class: "list-empty" }, "No match is being played right now.");
  return h("ul", { class: "live-list" }, live.map((entry) => {
    if (entry.kind === "match") {
      const m = entry.match;
      return h("li", {},
        h("span", { class: "pill live" }, "LIVE"), " ",
        h("a", { href: links.replayOfMatch(m.tournament, m.id) }, `tournament ${m.tournament}, match ${m.id}`), " ",
        h("span", { class: "muted" }, `${m.game} · round ${m.round} · `),
        names(m.seats.map((s) => s.alias)));
    }
    const r = entry.replay;
    return h("li", {}, h("span", { class: "pill live" }, "LIVE"), " ",
      h("a", { href: links.replayFile(r.id) }, r.id), " ",
      h("span", { class: "muted" }, `${r.game || ""} · ${fmt.plural(r.ticks, "tick")} so far · `), names(r.players));
  }));
}

function serverList(games) {
  return h("ul", { class: "server-list" }, games.map((game) =>
    h("li", {}, h("a", { href: links.server(game) }, `${game} game server`), " ",
      h("span", { class: "muted" }, "teams, scoreboard, games being played, next start"))));
}

function tournamentTable(list) {
  if (!list.length) return h("p", { class: "list-empty" }, "No tournament in the store yet.");
  return h("div", { class: "table-wrap" }, h("table", {},
    h("thead", {}, h("tr", {}, ["#", "game", "format", "players", "matches", "started", "state"].map((c) => h("th", {}, c)))),
    h("tbody", {}, list.map((t) => h("tr", {},
      h("td", {}, h("a", { href: links.tournament(t.id) }, t.name || `tournament ${t.id}`),
        t.name ? h("span", { class: "muted" }, ` #${t.id}`) : null),
      h("td", {}, t.game),
      h("td", {}, t.format, t.rounds > 1 ? ` · ${t.rounds} rounds` : ""),
      h("td", { class: "num" }, t.players),
      h("td", { class: "num" }, `${t.matches.done + t.matches.failed} / ${t.matches.total}`),
      h("td", {}, fmt.date(t.created)),
      h("td", {}, stateOf(t)))))));
}

function stateOf(t) {
  if (t.finished) return h("span", { class: "pill ok" }, "finished");
  if (t.runner && t.runner.state === "playing" && t.matches.running) {
    return h("span", { class: "pill live" }, `${t.matches.running} running`);
  }
  const hint = t.runner && t.runner.resume ? `no runner plays it: go on with ${t.runner.resume}` : "";
  return h("span", { class: "pill warn", title: hint }, "stopped");
}

function resultOf(r) {
  if (r.problem) return h("span", { class: "error-text" }, r.problem);
  if (!r.complete) return h("span", { class: "muted" }, "no result yet");
  const winners = (r.placement || []).map((p, i) => (p === 1 ? r.players[i] : null)).filter(Boolean);
  return `${winners.length === 1 ? `${winners[0]} wins` : `draw`} (${r.reason})`;
}

/** How many replay files are listed before "show all". */
const FIRST_FILES = 50;
let showAllFiles = false;

function replayTable(list) {
  if (!list.length) return h("p", { class: "list-empty" }, "No replay files here.");
  const shown = showAllFiles ? list : list.slice(0, FIRST_FILES);
  const more = list.length > shown.length
    ? h("button", { type: "button", class: "more", onclick: () => { showAllFiles = true; load(); } }, `show all ${list.length}`)
    : null;
  return h("div", {}, replayRows(shown), more);
}

function replayRows(list) {
  return h("div", { class: "table-wrap" }, h("table", { id: "replay-files" },
    h("thead", {}, h("tr", {}, ["file", "game", "players", "ticks", "result", "faults", "changed"].map((c) => h("th", {}, c)))),
    h("tbody", {}, list.map((r) => h("tr", {},
      h("td", {}, h("a", { href: links.replayFile(r.id) }, r.id)),
      h("td", {}, r.game || "–"),
      h("td", {}, names(r.players)),
      h("td", { class: "num" }, r.ticks),
      h("td", {}, resultOf(r)),
      h("td", { class: "num" }, r.faults ? h("span", { class: "pill bad" }, r.faults) : "0"),
      h("td", {}, fmt.ago(r.modified)))))));
}

async function load() {
  const [info, live, tournaments, replays] = await Promise.all([
    getJSON("/api/info"), getJSON("/api/live"), getJSON("/api/tournaments"), getJSON("/api/replays"),
  ]);
  const sections = [section("Live now", liveList(live), "live")];
  if (info.servers && info.servers.length) sections.unshift(section("Game server", serverList(info.servers), "servers"));
  if (info.store) sections.push(section("Tournaments", tournamentTable(tournaments), "tournaments"));
  if (info.replays !== "none") sections.push(section("Replays", replayTable(replays), "replays"));
  app.replaceChildren(...sections);
}

async function main() {
  renderNav(byId("nav"));
  try {
    await load();
  } catch (e) {
    renderProblem(app, "The home page cannot be shown", e.message);
    return;
  }
  setInterval(() => load().catch(() => {}), REFRESH_MS);
}

main();
