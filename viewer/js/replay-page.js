// The replay viewer page: loads a replay (served, from a tournament match, or embedded in an
// exported file), follows it live while it is being played, and ties the board, controls,
// timeline, player list and debug panel to one playback position.

import { h, byId, params } from "./dom.js";
import { renderNav, renderProblem } from "./nav.js";
import { playerColor } from "./colors.js";
import { icon } from "./icons.js";
import { Replay, FormatError } from "./replay/model.js";
import { Playback, SPEEDS } from "./replay/playback.js";
import { Timeline } from "./replay/timeline.js";
import { PlayerList } from "./replay/players.js";
import { DebugPanel } from "./replay/debug-panel.js";
import { parseDrawings, drawShapes } from "./replay/overlay.js";
import { installKeys, SHORTCUTS } from "./replay/keys.js";
import { replaySource, follow } from "./replay/source.js";
import { rendererFor } from "./games/index.js";
import * as textGame from "./games/text.js";

const app = byId("app");
const query = params();

function nav(source) {
  if (!source || !source.streamUrl) {
    // An exported page has no server to go back to.
    byId("nav").replaceChildren(h("nav", { class: "topbar" }, h("span", { class: "brand" }, "Arbiter"), h("span", { class: "sep" }, "/"), h("span", {}, "replay")));
    return;
  }
  const crumbs = [];
  if (source.tournament) {
    crumbs.push({ text: `tournament ${source.tournament}`, href: `/tournament.html?t=${encodeURIComponent(source.tournament)}` });
    crumbs.push({ text: `match ${source.match}` });
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

/** Whether the action of a tick was played by the referee because the bot's answer was refused. */
function refusedAnswer(tick) {
  const bot = tick.bots && tick.bots[tick.player];
  const kind = tick.action && tick.action.kind;
  return !!(bot && bot.error) && !["start", "stuck", "forfeit"].includes(kind);
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
  const meta = h("div", { class: "meta" });
  const head = h("header", { class: "match-head" }, h("div", { class: "title-row" }, title, liveBadge), meta);

  const playButton = button(icon("play"), "play / pause (space)", () => playback.toggle(), { class: "play", id: "play" });
  const prevError = button("◀ error", "previous error (p)", () => jumpError(-1), { class: "error-nav", id: "prev-error" });
  const nextError = button("error ▶", "next error (n)", () => jumpError(1), { class: "error-nav", id: "next-error" });
  const speed = h("select", { "aria-label": "speed", title: "ticks per second (- +)" },
    SPEEDS.map((v) => h("option", { value: v }, `${v}×`)));
  speed.value = String(playback.speed);
  speed.addEventListener("change", () => playback.setSpeed(Number(speed.value)));
  const controls = h("div", { class: "controls" },
    button(icon("first"), "first tick (home)", () => playback.seek(0), { id: "first" }),
    button(icon("previous"), "previous tick (←)", () => playback.step(-1), { id: "step-back" }),
    playButton,
    button(icon("next"), "next tick (→)", () => playback.step(1), { id: "step-forward" }),
    button(icon("last"), "last tick (end)", () => playback.seek(playback.last), { id: "last" }),
    h("label", { class: "speed" }, "speed ", speed),
    h("span", { class: "spacer" }),
    prevError, nextError);
  const timelineBox = h("div", {});
  const now = h("div", { class: "now", id: "now" });
  const shortcuts = h("details", { class: "shortcuts" }, h("summary", {}, "Keyboard shortcuts"),
    h("dl", {}, SHORTCUTS.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])));
  const stage = h("div", { class: "stage" },
    h("div", { class: "board-wrap" }, renderer.element), controls, timelineBox, now, shortcuts);

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

  function jumpError(direction) {
    const target = direction > 0
      ? replay.nextError(playback.index, selected)
      : replay.previousError(playback.index, selected);
    if (target !== null) playback.seek(target);
  }

  let frame = null;
  function schedule() {
    if (frame === null) frame = requestAnimationFrame(render);
  }

  function updateMeta() {
    const parts = [];
    if (replay.header.seed !== undefined) parts.push(`seed ${replay.header.seed}`);
    const result = resultText(replay);
    parts.push(result || (playback.live ? "being played" : "no result (the match was cut short)"));
    meta.textContent = parts.join(" · ");
    liveBadge.hidden = !playback.live;
  }

  function render() {
    frame = null;
    const index = playback.index;
    const tick = replay.ticks[index];
    try {
      renderer.draw(index);
    } catch (e) {
      console.error(e);
    }
    let problems = [];
    if (renderer.overlay) {
      const bot = tick && tick.bots ? tick.bots[selected] : null;
      const drawings = showDrawings && bot ? parseDrawings(bot.log) : { shapes: [], problems: [] };
      problems = drawings.problems;
      drawShapes(renderer.overlay, renderer.geometry, drawings.shapes, playerColor(selected));
    }
    players.update(index, selected, renderer);
    debug.update(index, selected, problems);
    timeline.update(index, selected);

    const total = replay.length;
    if (!tick) {
      now.replaceChildren(h("span", { class: "muted" }, playback.live ? "Waiting for the first tick…" : "This replay has no ticks."));
    } else {
      const who = tick.player === null || tick.player === undefined
        ? h("span", {}, "start of the match")
        : h("span", {}, h("span", { class: "swatch small", style: `background:${playerColor(tick.player)}` }),
          h("b", {}, replay.playerName(tick.player)), " ",
          tick.action && tick.action.kind === "forfeit" ? "forfeited the match" : gameModule.describeAction(tick.action),
          refusedAnswer(tick) ? h("span", { class: "muted" }, " (played for it: its answer was refused)") : null);
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
    speed.value = String(playback.speed);
    updateMeta();
  }

  playback.onChange(schedule);
  installKeys({
    toggle: () => playback.toggle(),
    step: (d) => playback.step(d),
    first: () => playback.seek(0),
    last: () => playback.seek(playback.last),
    nextError: () => jumpError(1),
    previousError: () => jumpError(-1),
    faster: (d) => playback.faster(d),
    pick,
  });

  const start = Number(query.get("tick"));
  playback.seek(query.get("tick") !== null && Number.isFinite(start) ? start : 0);
  /** The badge while following: the browser reconnects by itself after a dropped stream. */
  const connection = (state) => {
    liveBadge.textContent = state === "reconnecting" ? "RECONNECTING…" : "LIVE";
  };
  return { playback, schedule, updateMeta, connection };
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
