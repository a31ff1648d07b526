// A game's ladder: the leaderboard (rank, bot, team, version, score μ − 3σ, μ ± σ, games, win
// share, last game; robots marked) and the matches being played, queued and just finished,
// both followed as server-sent events so that the page changes by itself. Without a game, the
// list of the arena's ladders.

import { h, byId, params, put } from "./dom.js";
import { renderProblem } from "./nav.js";
import * as fmt from "./format.js";
import { whoami, get, follow, botPage, ladderPage, enc } from "./arena-api.js";
import { arenaNav } from "./arena-nav.js";
import { matchesTable } from "./arena-matches.js";

const app = byId("app");
const game = params().get("game");

function card(title, id, ...body) {
  return h("section", { class: "card", id }, h("h2", {}, title), ...body);
}

function entryRow(entry) {
  return h("tr", { class: `entry${entry.robot ? " robot" : ""}`, dataset: { bot: entry.bot, rank: entry.rank } },
    h("td", { class: "num rank" }, entry.rank),
    h("td", {}, h("a", { href: botPage(game, entry.bot) }, entry.bot),
      entry.robot ? [" ", h("span", { class: "pill robot" }, "robot")] : null),
    h("td", {}, entry.team),
    h("td", { class: "num" }, `v${entry.version}`),
    h("td", { class: "num score" }, fmt.num(entry.score, 2)),
    h("td", { class: "num" }, `${fmt.num(entry.mu, 2)} ± ${fmt.num(entry.sigma, 2)}`),
    h("td", { class: "num games" }, entry.games),
    h("td", { class: "num" }, entry.win_share === null ? "–" : `${fmt.num(entry.win_share * 100, 0)} %`,
      h("div", { class: "muted small" }, `${entry.wins}–${entry.draws}–${entry.losses}`)),
    h("td", {}, entry.last_game ? fmt.ago(entry.last_game) : h("span", { class: "muted" }, "never")));
}

function showLeaderboard(container, entries) {
  if (!entries.length) {
    put(container, h("p", { class: "list-empty" }, "no version on this ladder yet: the active versions of the game's bots join it"));
    return;
  }
  const columns = ["#", "bot", "team", "version", "score", "μ ± σ", "games", "win share", "last game"];
  put(container, h("div", { class: "table-wrap" }, h("table", { id: "leaderboard-table" },
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", {}, c)))),
    h("tbody", {}, entries.map(entryRow)))));
}

function showLive(container, live) {
  put(container,
    live.paused ? h("p", { class: "form-error", id: "paused" }, "The ladder is paused by the arena's operator: no new ladder match is queued.") : null,
    h("h3", {}, "Being played"), matchesTable("running-table", live.running, "no match is being played"),
    h("h3", {}, "Queued"), matchesTable("queued-table", live.queued, "no match is queued"),
    h("h3", {}, "Just finished"), matchesTable("finished-table", live.finished, "no match has finished yet"));
}

/** The arena's games, each with the link to its ladder. */
function chooseGame(me) {
  put(app, card("Ladders", "ladders", h("ul", { id: "ladder-list" },
    me.arena.games.map((g) => h("li", {}, h("a", { href: ladderPage(g) }, g))))));
}

async function render() {
  try {
    const me = await whoami();
    arenaNav(byId("nav"), me, game ? [{ text: `${game} ladder` }] : [{ text: "ladders" }], () => render());
    if (!game) {
      chooseGame(me);
      return;
    }
    document.title = `${game} ladder · Arena · Arbiter`;
    const board = h("div", { id: "leaderboard" });
    const live = h("div", { id: "live" });
    const [entries, matches] = await Promise.all([
      get(`/api/arena/${enc(game)}/leaderboard`), get(`/api/arena/${enc(game)}/matches/live`)]);
    showLeaderboard(board, entries);
    showLive(live, matches);
    put(app, card(`${game}: the ladder`, "ladder",
      h("p", { class: "muted" }, "Ranked by score μ − 3σ (Weng-Lin): a bot climbs as it wins and as its rating becomes certain. Robots are the arena's built-in players."),
      board),
    card("Matches", "matches", live));
    const stale = (what) => (message) => app.prepend(h("p", { class: "form-error" }, `${what} no longer follows: ${message}`));
    follow(`/api/arena/${enc(game)}/leaderboard/events`, "leaderboard", (e) => showLeaderboard(board, e), stale("the leaderboard"));
    follow(`/api/arena/${enc(game)}/matches/live/events`, "live", (m) => showLive(live, m), stale("the list of matches"));
  } catch (e) {
    renderProblem(app, "This ladder cannot be shown", e.message);
  }
}

render();
