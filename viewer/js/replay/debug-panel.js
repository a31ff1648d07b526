// The debug panel: for the chosen player and the current tick, what the referee sent it, what
// it answered (with times), its time used and bank left, its error in red, notes, and its
// stderr for the tick exactly as recorded (the referee keeps up to 2000 characters a tick).
// On a tick without anything of the player, its latest tick with something stays shown.

import { h } from "../dom.js";
import { playerColor } from "../colors.js";
import { ms } from "../format.js";
import { PREFIX } from "./overlay.js";
import { download } from "./download.js";
import { releaseAfterChoice } from "./keys.js";

/** What the referee keeps of a bot's stderr per tick. */
export const LOG_CAP = 2000;

/** What the referee writes after a log it cut at [`LOG_CAP`] characters. */
const LOG_TRIMMED = "...\n[[bot log trimmed to 2KB]]";

/** The stderr counter: the bot's characters kept, not the marker the referee adds after them. */
function logCount(log) {
  const trimmed = log.endsWith(LOG_TRIMMED);
  const kept = [...(trimmed ? log.slice(0, -LOG_TRIMMED.length) : log)].length;
  return `${kept} / ${LOG_CAP} characters${trimmed ? ", the rest cut" : ""}`;
}

function messages(list, empty) {
  if (!list || list.length === 0) return [h("div", { class: "empty" }, empty)];
  return list.map((m) =>
    h("div", { class: "message" },
      h("div", { class: "at" }, `at ${ms(m.at_ms)}`),
      h("pre", {}, m.text === "" ? h("span", { class: "empty" }, "(an empty line)") : m.text)),
  );
}

/** The stderr text, with the #draw lines dimmed (still shown exactly as written). */
function logNodes(log) {
  return log.split(/(?<=\n)/).map((line) =>
    line.startsWith(PREFIX) ? h("span", { class: "draw-line-text" }, line) : line,
  );
}

/**
 * Everything the referee wrote to a player's stdin from the start to tick `index`: fed to the
 * bot on a terminal (`./mybot < stdin.txt`), it brings the bot to the same state to debug.
 */
export function stdinUpTo(replay, player, index) {
  const parts = [];
  for (let i = 0; i <= index && i < replay.ticks.length; i++) {
    const bot = replay.ticks[i].bots && replay.ticks[i].bots[player];
    for (const m of (bot && bot.received) || []) parts.push(m.text);
  }
  return parts.join("");
}

export class DebugPanel {
  constructor(container, replay, onPick) {
    this.replay = replay;
    this.index = 0;
    this.player = 0;
    this.select = h("select", { id: "debug-player", "aria-label": "player to debug" },
      replay.players.map((p, i) => h("option", { value: i }, `${i}: ${p.name}`)));
    this.select.addEventListener("change", () => onPick(Number(this.select.value)));
    releaseAfterChoice(this.select);
    this.swatch = h("span", { class: "swatch small" });
    this.status = h("span", { class: "tick-status" });
    this.error = h("div", { class: "error-box", role: "alert" });
    this.notes = h("ul", { class: "notes" });
    this.received = h("div", { class: "io received" });
    this.sent = h("div", { class: "io sent" });
    this.timing = h("div", { class: "timing" });
    this.logCount = h("small", { class: "count" });
    this.log = h("pre", { class: "log" });
    this.problems = h("ul", { class: "draw-problems" });
    this.root = h("section", { class: "debug", "aria-label": "debug panel" },
      h("header", {}, h("label", { for: "debug-player" }, "Player"), this.swatch, this.select, this.status),
      this.error,
      this.notes,
      h("div", { class: "exchange" },
        h("div", {}, h("h4", {}, "Received ",
          h("button", {
            type: "button", class: "link", id: "download-stdin",
            title: "everything this player was sent up to this tick, to feed to the bot on a terminal",
            onclick: () => download(`stdin-player${this.player}-tick${this.index}.txt`,
              stdinUpTo(this.replay, this.player, this.index)),
          }, "⤓ stdin so far")), this.received),
        h("div", {}, h("h4", {}, "Answered"), this.sent)),
      this.timing,
      h("h4", {}, "stderr ", this.logCount),
      this.log,
      this.problems);
    container.replaceChildren(this.root);
  }

  update(index, player, drawProblems) {
    this.index = index;
    this.player = player;
    const tick = this.replay.ticks[index];
    // Between its turns a bot's latest turn stays in view, marked with the tick it is from.
    const shownIndex = this.replay.lastActivity(player, index);
    const shown = shownIndex === null ? null : this.replay.ticks[shownIndex];
    const current = shownIndex === index;
    const bot = shown && shown.bots ? shown.bots[player] : null;
    this.select.value = String(player);
    this.swatch.style.background = playerColor(player);
    const hasError = !!(bot && bot.error);
    this.root.classList.toggle("faulty", hasError && current);
    const down = this.replay.isDown(player, index);
    this.status.textContent = !tick ? "" : down ? "offline" : !shown ? ""
      : !current ? `from tick ${shown.tick}` : tick.player === player ? "its turn" : "";
    this.status.className = `tick-status ${down ? "down" : ""} ${shown && !current ? "earlier" : ""}`;

    this.error.textContent = hasError ? bot.error : "";
    this.error.hidden = !hasError;
    const notes = (bot && bot.notes) || [];
    this.notes.replaceChildren(...notes.map((n) => h("li", {}, n)));
    this.notes.hidden = notes.length === 0;

    const nothing = !shown || current ? "nothing this tick" : `nothing at tick ${shown.tick}`;
    this.received.replaceChildren(...messages(bot && bot.received, nothing));
    this.sent.replaceChildren(...messages(bot && bot.sent, nothing));

    const timing = [];
    if (bot) {
      timing.push(h("span", {}, "time used ", h("b", {}, bot.time_ms === null || bot.time_ms === undefined ? "–" : ms(bot.time_ms))));
      // Measured where the bot runs in a sandbox: all its processes, while it answered.
      if (typeof bot.cpu_ms === "number") timing.push(h("span", {}, "CPU ", h("b", {}, ms(bot.cpu_ms))));
      timing.push(h("span", {}, "bank left ", h("b", {}, ms(bot.bank_ms))));
      if (bot.offline) timing.push(h("span", { class: "down" }, "offline"));
    }
    this.timing.replaceChildren(...timing);

    const log = (bot && bot.log) || "";
    this.log.replaceChildren(...(log ? logNodes(log) : [h("span", { class: "empty" }, "nothing written to stderr")]));
    this.logCount.textContent = log ? logCount(log) : "";
    this.problems.replaceChildren(
      ...(drawProblems || []).map((p) => h("li", {}, `#draw on stderr line ${p.line}: ${p.message}`)),
    );
    this.problems.hidden = !drawProblems || drawProblems.length === 0;
  }
}
