// A bot's page: its team, the version that plays, every version with its state and its SPRT
// series against the previous one, its rating over time (a chart), its matches (each opening
// the replay with the bot's seat chosen), all followed as server-sent events; for its team the
// choice of the version that plays, retiring, challenges and the playground (a match started
// here is followed to its end, then its replay opens).

import { h, byId, params, put } from "./dom.js";
import { renderProblem } from "./nav.js";
import { whoami, send, get, follow, botUrl, ladderPage, matchReplayPage } from "./arena-api.js";
import { versionsTable } from "./arena-versions.js";
import { arenaNav } from "./arena-nav.js";
import { ratingChart } from "./arena-chart.js";
import { botMatchesTable, matchStatePill, seatsLine } from "./arena-matches.js";
import { playCard } from "./arena-play.js";

const app = byId("app");
const query = params();
const game = query.get("game");
const name = query.get("name");

/** The parts of the page, each redrawn by itself when its stream says it changed. */
const parts = {
  bot: h("section", { class: "card", id: "bot" }),
  rating: h("section", { class: "card", id: "rating" }, h("h2", {}, "Rating"), h("p", { class: "loading" }, "Loading…")),
  matches: h("section", { class: "card", id: "bot-matches" }, h("h2", {}, "Matches"), h("p", { class: "loading" }, "Loading…")),
  play: h("div", { id: "play-area" }),
};

function teamControls(bot) {
  if (!bot.mine || bot.retired) return null;
  return h("p", {}, h("button", {
    class: "danger", id: "retire", onclick: async () => {
      if (!confirm(`Retire ${bot.name}? It will play no more and take no new versions.`)) return;
      try {
        showBot(await send("POST", `${botUrl(game, name)}/retire`));
      } catch (e) {
        alert(e.message);
      }
    },
  }, "retire the bot"));
}

function status(bot) {
  if (bot.retired) return "retired";
  if (bot.disabled) return "disabled by the arena's operator: off the ladder";
  if (!bot.active) return "no version plays yet";
  return `v${bot.active} plays${bot.pinned ? " (chosen by the team)" : " (the newest passed)"}`;
}

/** The signed-in viewer, and the version the play card was drawn for (redrawn when it changes). */
let me = null;
let playDrawnFor;
let watching = false;

function showPlay(bot) {
  if (!bot.mine || bot.retired || watching || playDrawnFor === bot.active) return;
  playDrawnFor = bot.active;
  put(parts.play, playCard(me, bot, watch));
}

function showBot(bot) {
  showPlay(bot);
  const choose = bot.mine && !bot.retired ? async (number) => {
    try {
      showBot(await send("POST", `${botUrl(game, name)}/active`, { version: number }));
    } catch (e) {
      alert(e.message);
    }
  } : null;
  put(parts.bot,
    h("div", { class: "bot-head" }, h("h2", {}, bot.name),
      bot.robot ? h("span", { class: "pill robot" }, "robot") : null,
      h("span", { class: "meta" }, `${bot.game} · team ${bot.team} · `, h("a", { href: ladderPage(bot.game) }, "the ladder")),
      h("span", { class: "meta", id: "active" }, status(bot))),
    versionsTable(bot, choose),
    teamControls(bot));
}

async function showRating() {
  try {
    const points = await get(`${botUrl(game, name)}/ratings`);
    put(parts.rating, h("h2", {}, "Rating"), ratingChart(points));
  } catch (e) {
    put(parts.rating, h("h2", {}, "Rating"), h("p", { class: "problem-text" }, e.message));
  }
}

/**
 * The matches shown: the newest page (as its stream sends it) and the older ones the reader
 * asked for since; `next` asks for the page after the last one shown.
 */
const paging = { newest: [], older: [], next: null };

function showMatches() {
  const newest = new Set(paging.newest.map((m) => m.id));
  const rows = [...paging.newest, ...paging.older.filter((m) => !newest.has(m.id))];
  const button = paging.next === null ? null : h("button", { id: "older-matches" }, "older matches");
  if (button) button.addEventListener("click", () => loadOlder(button));
  put(parts.matches, h("h2", {}, "Matches"), botMatchesTable(rows), button ? h("p", {}, button) : null);
}

function newestPage(page) {
  paging.newest = page.matches;
  if (!paging.older.length) paging.next = page.before;
  showMatches();
}

async function loadOlder(button) {
  button.disabled = true;
  try {
    const page = await get(`${botUrl(game, name)}/matches?before=${encodeURIComponent(paging.next)}`);
    paging.older = paging.older.concat(page.matches);
    paging.next = page.before;
    showMatches();
  } catch (e) {
    button.replaceWith(h("span", { class: "problem-text" }, e.message));
  }
}

/** A playground match started here: followed until it ends, then its replay opens on our seat. */
function watch(id, line) {
  watching = true;
  const stop = follow(`/api/arena/matches/${encodeURIComponent(id)}/events`, "match", (match) => {
    put(line, `match #${match.id}: `, seatsLine(match), " ", matchStatePill(match.state));
    if (match.state === "finished") {
      stop();
      const seat = match.seats.findIndex((s) => s.bot === name);
      window.location.href = matchReplayPage(match.id, seat >= 0 ? seat : null);
    } else if (match.state === "failed") {
      stop();
      line.append(h("span", { class: "problem-text" }, " the match could not be played"));
    }
  }, (message) => line.append(h("span", { class: "problem-text" }, ` ${message}`)));
}

async function render() {
  if (!game || !name) {
    renderProblem(app, "Which bot?", "This page needs ?game=…&name=… in its address.");
    return;
  }
  try {
    me = await whoami();
    arenaNav(byId("nav"), me, [{ text: `${game} ladder`, href: ladderPage(game) }, { text: name }], () => render());
    showBot(await get(botUrl(game, name)));
    put(app, parts.bot, parts.play, parts.rating, parts.matches);
    follow(`${botUrl(game, name)}/events`, "bot", showBot);
    follow(`${botUrl(game, name)}/matches/events`, "matches", (page) => {
      newestPage(page);
      // A finished rated match moves the rating: the chart is read again.
      showRating();
    });
  } catch (e) {
    renderProblem(app, "This bot cannot be shown", e.message);
  }
}

render();
