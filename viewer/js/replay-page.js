// The replay viewer page: loads a replay (served, from a tournament match, or embedded in an
// exported file), follows it live while it is being played, and ties the board, controls,
// timeline, player list and debug panel to one playback position.

import { h, byId, params } from "./dom.js";
import { renderNav, renderProblem } from "./nav.js";
import { playerColor, useSeatColors } from "./colors.js";
import { colorsFor } from "./tournament/colors.js";
import { getJSON, enc } from "./api.js";
import { icon } from "./icons.js";
import { Replay, FormatError } from "./replay/model.js";
import { Playback, SPEEDS } from "./replay/playback.js";
import { Timeline } from "./replay/timeline.js";
import { PlayerList } from "./replay/players.js";
import { DebugPanel } from "./replay/debug-panel.js";
import { parseDrawings, drawShapes } from "./replay/overlay.js";
import { installKeys, releaseAfterChoice, SHORTCUTS } from "./replay/keys.js";
import { replaySource, follow } from "./replay/source.js";
import { BotConsole } from "./replay/console.js";
import { Summary } from "./replay/summary.js";
import { Charts } from "./replay/charts.js";
import { BoardView } from "./replay/board-view.js";
import { motionMs } from "./replay/motion.js";
import { rendererFor } from "./games/index.js";
import * as textGame from "./games/text.js";

const app = byId("app");
const query = params();

function nav(source) {
  if (!source || source.exported) {
    // An exported page has no server to go back to.
    byId("nav").replaceChildren(h("nav", { class: "topbar" }, h("span", { class: "brand" }, "Arbiter"), h("span", { class: "sep" }, "/"), h("span", {}, "replay")));
    return;
  }
  const crumbs = [];
  if (source.tournament) {
    crumbs.push({ text: `tournament ${source.tournament}`, href: `/tournament.html?t=${encodeURIComponent(source.tournament)}` });
    crumbs.push({ text: source.crumb });
  } else if (source.server) {
    crumbs.push({ text: `${source.server} server`, href: `/server.html?game=${encodeURIComponent(source.server)}` });
    crumbs.push({ text: source.label });
  } else {
    crumbs.push({ text: source.label });
  }
  renderNav(byId("nav"), crumbs);
}

function showProblem(error) {
  if (error instanceof FormatError || error.kind === "too_new") {
    renderProblem(app, "This replay was written by a newer Arbiter", error.message);
  } else {
    renderProblem(app, "This replay cannot be shown", error.message || String(error));
  }
}

function resultText(replay) {
  const result = replay.result;
  if (!result) return null;
  const first = [];
  (result.placement || []).forEach((place, player) => {
    if (place === 1) first.push(replay.playerName(player));
  });
  const who = first.length === 1 ? `${first[0]} wins` : first.length > 1 ? `draw: ${first.join(", ")}` : "no winner";
  return `${who} (${result.reason}) after ${result.ticks} ticks`;
}

/**
 * Why the referee played a tick's action for its bot, if it did: an answer it refused, or
 * none at all (the bot crashed or said nothing in time).
 */
function playedFor(tick) {
  const bot = tick.bots && tick.bots[tick.player];
  const kind = tick.action && tick.action.kind;
  if (!(bot && bot.error) || ["start", "stuck", "forfeit"].includes(kind)) return null;
  return bot.sent && bot.sent.length ? "its answer was refused" : "it gave no answer";
}

/**
 * Keeps the shown tick and the debugged player in the address, so that a reload or a shared
 * link opens the same view. A live match being followed keeps no tick: it opens at its newest.
 */
function keepInAddress(playback, replay, player) {
  const url = new URL(window.location.href);
  const tick = replay.ticks[playback.index];
  if (tick && !(playback.live && playback.following)) url.searchParams.set("tick", String(tick.tick));
  else url.searchParams.delete("tick");
  url.searchParams.set("player", String(player));
  if (url.href === window.location.href) return;
  try {
    history.replaceState(null, "", url);
  } catch (e) {
    // An exported page opened from a file may not rewrite its address: nothing is lost.
  }
}

/** How often at most the page's address follows the tick shown. */
const ADDRESS_EVERY_MS = 250;

/** Copies the page's address (which holds the tick and the player) to the clipboard. */
async function copyLink(button) {
  const done = (text) => {
    button.textContent = text;
    setTimeout(() => (button.textContent = "copy link"), 1500);
  };
  try {
    await navigator.clipboard.writeText(window.location.href);
    done("link copied");
  } catch (e) {
    window.prompt("Copy this link:", window.location.href);
  }
}

function defaultPlayer(replay) {
  const wanted = Number(query.get("player"));
  if (Number.isInteger(wanted) && wanted >= 0 && wanted < replay.players.length && query.get("player") !== null) return wanted;
  // Bot authors debug their program, not the built-in robots it plays against.
  const program = replay.players.findIndex((p) => p.kind !== "builtin");
  return program >= 0 ? program : 0;
}

function button(label, title, onClick, extra = {}) {
  return h("button", { type: "button", title, "aria-label": title, onclick: onClick, ...extra }, label);
}

function buildPage(replay, source) {
  let renderer;
  let gameModule = rendererFor(replay.game);
  try {
    renderer = gameModule.create(replay);
  } catch (e) {
    console.error(e);
    gameModule = textGame;
    renderer = textGame.create(replay);
  }
  const playback = new Playback(replay);
  let selected = defaultPlayer(replay);
  let showDrawings = true;

  const names = [];
  replay.players.forEach((p, i) => {
    if (i > 0) names.push(h("span", { class: "vs-word" }, "vs"));
    names.push(h("span", { class: "vs-player", style: `--c:${playerColor(i)}` }, p.name));
  });
  const title = h("h1", {}, h("span", { class: "game-name" }, replay.game || "replay"), h("span", { class: "vs" }, names));
  const liveBadge = h("span", { class: "live-badge", hidden: true }, "LIVE");
  const stalledBadge = h("span", { class: "stalled-badge", hidden: true }, "STALLED");
  const linkButton = h("button", { type: "button", class: "link", id: "copy-link", title: "copy the address of this tick and player" }, "copy link");
  linkButton.addEventListener("click", () => {
    writeAddress();
    copyLink(linkButton);
  });
  const meta = h("div", { class: "meta" });
  const head = h("header", { class: "match-head" }, h("div", { class: "title-row" }, title, liveBadge, stalledBadge, linkButton), meta);
  /** Why the match stopped without a result, once its stream said it stalled. */
  let stalled = null;
  // The address is rewritten at most a few times a second: browsers ignore a page that
  // rewrites it on every frame of a fast playback.
  let addressTimer = null;
  const writeAddress = () => {
    clearTimeout(addressTimer);
    addressTimer = null;
    keepInAddress(playback, replay, selected);
  };
  const writeAddressSoon = () => {
    if (addressTimer === null) addressTimer = setTimeout(writeAddress, ADDRESS_EVERY_MS);
  };

  const playButton = button(icon("play"), "play / pause (space)", () => playback.toggle(), { class: "play", id: "play" });
  const prevError = button("◀ error", "previous error (p)", () => jumpError(-1), { class: "error-nav", id: "prev-error" });
  const nextError = button("error ▶", "next error (n)", () => jumpError(1), { class: "error-nav", id: "next-error" });
  const prevTurn = button("◀ turn", "previous turn of the debugged player ([)", () => jumpTurn(-1), { id: "prev-turn" });
  const nextTurn = button("turn ▶", "next turn of the debugged player (])", () => jumpTurn(1), { id: "next-turn" });
  const speed = h("select", { "aria-label": "speed", title: "ticks per second (- +)" },
    SPEEDS.map((v) => h("option", { value: v }, `${v}×`)));
  speed.value = String(playback.speed);
  speed.addEventListener("change", () => playback.setSpeed(Number(speed.value)));
  releaseAfterChoice(speed);
  const controls = h("div", { class: "controls" },
    button(icon("first"), "first tick (home)", () => playback.seek(0), { id: "first" }),
    button(icon("previous"), "previous tick (←)", () => playback.step(-1), { id: "step-back" }),
    playButton,
    button(icon("next"), "next tick (→)", () => playback.step(1), { id: "step-forward" }),
    button(icon("last"), "last tick (end)", () => playback.seek(playback.last), { id: "last" }),
    h("label", { class: "speed" }, "speed ", speed),
    prevTurn, nextTurn,
    h("span", { class: "spacer" }),
    prevError, nextError);
  const timelineBox = h("div", {});
  const chartsBox = h("div", {});
  const consoleBox = h("div", {});
  const now = h("div", { class: "now", id: "now" });
  const shortcuts = h("details", { class: "shortcuts" }, h("summary", {}, "Keyboard shortcuts"),
    h("dl", {}, SHORTCUTS.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])));
  const boardWrap = h("div", { class: "board-wrap" }, renderer.element);
  const stage = h("div", { class: "stage" });
  const boardView = new BoardView(boardWrap, stage);
  stage.append(boardView.tools, boardWrap, controls, timelineBox, chartsBox, now, shortcuts, consoleBox);

  const playersBox = h("div", { id: "players" });
  const drawToggle = h("input", { type: "checkbox", id: "show-drawings", checked: true });
  drawToggle.addEventListener("change", () => {
    showDrawings = drawToggle.checked;
    schedule();
  });
  const debugBox = h("div", {});
  const side = h("aside", { class: "side" },
    h("h3", {}, "Players"), playersBox,
    renderer.overlay ? h("label", { class: "toggle" }, drawToggle, " draw the debugged player's ", h("code", {}, "#draw"), " lines") : null,
    debugBox);
  app.replaceChildren(head, h("div", { class: "viewer" }, stage, side));

  const pick = (player) => {
    if (player < 0 || player >= replay.players.length) return;
    selected = player;
    schedule();
  };
  const players = new PlayerList(playersBox, replay, pick);
  const debug = new DebugPanel(debugBox, replay, pick);
  const timeline = new Timeline(timelineBox, playback);
  const charts = new Charts(chartsBox, playback, renderer);
  const summary = new Summary(boardWrap, replay, playback);
  const botConsole = new BotConsole(consoleBox, replay, (index) => playback.seek(index));

  function jumpTurn(direction) {
    const target = direction > 0
      ? replay.nextTurn(playback.index, selected)
      : replay.previousTurn(playback.index, selected);
    if (target !== null) playback.seek(target);
  }

  function jumpError(direction) {
    const target = direction > 0
      ? replay.nextError(playback.index, selected)
      : replay.previousError(playback.index, selected);
    if (target !== null) playback.seek(target);
  }

  let frame = null;
  /** The tick drawn last: moving on from it by one tick animates. */
  let drawnIndex = null;
  function schedule() {
    if (frame === null) frame = requestAnimationFrame(render);
  }

  function updateMeta() {
    const parts = [];
    if (replay.header.seed !== undefined) parts.push(`seed ${replay.header.seed}`);
    const result = resultText(replay);
    const unfinished = stalled ? `stalled: ${stalled}` : "no result (the match was cut short)";
    parts.push(result || (playback.live ? "being played" : unfinished));
    meta.textContent = parts.join(" · ");
    liveBadge.hidden = !playback.live;
    stalledBadge.hidden = !stalled || !!result;
  }

  function render() {
    frame = null;
    const index = playback.index;
    const tick = replay.ticks[index];
    try {
      const ms = drawnIndex !== null && index === drawnIndex + 1 ? motionMs(playback.speed) : 0;
      // Drawn again only when the tick changes, so that a render for another reason (another
      // player chosen, a live tick arriving) does not cut a motion short.
      if (index !== drawnIndex) renderer.draw(index, ms);
      drawnIndex = tick ? index : null;
    } catch (e) {
      console.error(e);
    }
    let problems = [];
    if (renderer.overlay) {
      // A bot's drawings stay until its next turn.
      const turn = replay.lastTurn(selected, index);
      const drawn = replay.ticks[turn === null ? index : turn];
      const bot = drawn && drawn.bots ? drawn.bots[selected] : null;
      const drawings = showDrawings && bot ? parseDrawings(bot.log) : { shapes: [], problems: [] };
      problems = drawings.problems;
      drawShapes(renderer.overlay, renderer.geometry, drawings.shapes, playerColor(selected));
    }
    players.update(index, selected, renderer);
    debug.update(index, selected, problems);
    timeline.update(index, selected);
    charts.update(index);
    summary.update(index, playback.last);
    botConsole.update(index, selected);

    const total = replay.length;
    if (!tick) {
      now.replaceChildren(h("span", { class: "muted" }, playback.live ? "Waiting for the first tick…" : "This replay has no ticks."));
    } else {
      const who = tick.player === null || tick.player === undefined
        ? h("span", {}, "start of the match")
        : h("span", {}, h("span", { class: "swatch small", style: `background:${playerColor(tick.player)}` }),
          h("b", {}, replay.playerName(tick.player)), " ",
          tick.action && tick.action.kind === "forfeit" ? "forfeited the match" : gameModule.describeAction(tick.action),
          playedFor(tick) ? h("span", { class: "muted" }, ` (played for it: ${playedFor(tick)})`) : null);
      const faulty = tick.bots && tick.bots.some((b) => b.error);
      now.replaceChildren(h("span", { class: "tick-no" }, `Tick ${tick.tick} / ${replay.ticks[total - 1].tick}`), " · ", who,
        ...(faulty ? [h("span", { class: "error-flag" }, "error")] : []));
    }
    const playing = playback.playing ? "pause" : "play";
    if (playButton.dataset.icon !== playing) {
      playButton.replaceChildren(icon(playing));
      playButton.dataset.icon = playing;
    }
    prevError.disabled = replay.previousError(index, selected) === null;
    nextError.disabled = replay.nextError(index, selected) === null;
    prevTurn.disabled = replay.previousTurn(index, selected) === null;
    nextTurn.disabled = replay.nextTurn(index, selected) === null;
    speed.value = String(playback.speed);
    updateMeta();
    writeAddressSoon();
  }

  playback.onChange(schedule);
  installKeys({
    toggle: () => playback.toggle(),
    step: (d) => playback.step(d),
    first: () => playback.seek(0),
    last: () => playback.seek(playback.last),
    nextError: () => jumpError(1),
    previousError: () => jumpError(-1),
    nextTurn: () => jumpTurn(1),
    previousTurn: () => jumpTurn(-1),
    fullscreen: () => boardView.toggleFullscreen(),
    faster: (d) => playback.faster(d),
    pick,
  });

  playback.seek(startIndex(replay));
  /** The badge while following: the browser reconnects by itself after a dropped stream. */
  const connection = (state) => {
    liveBadge.textContent = state === "reconnecting" ? "RECONNECTING…" : "LIVE";
  };
  /** The stream said the replay stopped growing without a result: its match was stopped. */
  const stall = (message) => {
    stalled = message;
    playback.live = false;
    schedule();
  };
  return { playback, schedule, updateMeta, connection, stall };
}

/** The tick asked for in the address (`?tick=N`, a tick number), as an index; else the first. */
function startIndex(replay) {
  const wanted = Number(query.get("tick"));
  if (query.get("tick") === null || !Number.isFinite(wanted)) return 0;
  const at = replay.ticks.findIndex((t) => t.tick >= wanted);
  return at >= 0 ? at : replay.ticks.length - 1;
}

/** Seats of a tournament's match take their players' tournament colours (seat colours if not known). */
async function useTournamentColors(source) {
  try {
    const base = `/api/tournaments/${enc(source.tournament)}`;
    const [players, match] = await Promise.all([getJSON(`${base}/players`), getJSON(`${base}/matches/${enc(source.match)}`)]);
    const colorOf = colorsFor(players);
    useSeatColors(match.seats.map((seat) => colorOf(seat.player)));
  } catch (e) {
    console.warn("the players' tournament colours are not known; seats keep their own", e);
  }
}

async function main() {
  const source = replaySource(query);
  nav(source);
  if (!source) {
    renderProblem(app, "No replay chosen", "Open a replay from the home page, or give ?id=REPLAY in the address.");
    return;
  }
  let data;
  let replay;
  try {
    data = await source.load();
    replay = Replay.from(data);
  } catch (e) {
    showProblem(e);
    return;
  }
  document.title = `${replay.players.map((p) => p.name).join(" vs ")} · ${replay.game} · Arbiter`;
  if (source.match) await useTournamentColors(source);
  const page = buildPage(replay, source);
  if (!data.complete && source.streamUrl) {
    page.playback.live = true;
    // A match being played opens at its newest tick and follows it, unless a tick was asked for.
    if (query.get("tick") === null) page.playback.seek(page.playback.last);
    else page.playback.following = false;
    page.updateMeta();
    follow(source.streamUrl(data.lines || 0), {
      onRecord: (record) => {
        if (record.type === "tick") replay.addTick(record);
        else if (record.type === "result") {
          page.playback.live = false;
          replay.setResult(record);
        }
      },
      onFailure: (message) => showProblem(new Error(message)),
      onStalled: page.stall,
      onEnd: () => {
        page.playback.live = false;
        page.schedule();
      },
      onState: page.connection,
    });
  }
}

main().catch((e) => {
  console.error(e);
  showProblem(e);
});
