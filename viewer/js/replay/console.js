// The console of one bot over the whole match: every message it was sent, every answer, its
// stderr, errors and notes, under a header per tick (a click on it shows that tick), with a
// search and a download of all of it as text. It is built only while open, a page of ticks at a
// time, so that a 10,000-tick replay opens as fast as a short one.

import { h } from "../dom.js";
import { playerColor } from "../colors.js";
import { ms } from "../format.js";
import { download } from "./download.js";

/** Ticks shown before a "show more" button. */
const PAGE = 300;

/** The parts of a bot's record at one tick, as [label, text] pairs, in the order they happened. */
function parts(bot) {
  const out = [];
  for (const m of bot.received || []) out.push([`received at ${ms(m.at_ms)}`, m.text]);
  for (const m of bot.sent || []) out.push([`answered at ${ms(m.at_ms)}`, m.text]);
  if (bot.log) out.push(["stderr", bot.log]);
  for (const note of bot.notes || []) out.push(["note", note]);
  if (bot.error) out.push(["error", bot.error]);
  return out;
}

function header(replay, index, player) {
  const tick = replay.ticks[index];
  return `tick ${tick.tick}${tick.player === player ? " · its turn" : ""}`;
}

/** The whole console of `player` as plain text, each tick under a `=== tick N ===` line. */
export function consoleText(replay, player) {
  const lines = [`${replay.playerName(player)} (player ${player}) in a ${replay.game} match`];
  for (const index of replay.activityOf[player] || []) {
    const bot = replay.ticks[index].bots[player];
    lines.push("", `=== ${header(replay, index, player)} ===`);
    for (const [label, text] of parts(bot)) {
      lines.push(`--- ${label}`, text.endsWith("\n") ? text.slice(0, -1) : text);
    }
  }
  return lines.join("\n") + "\n";
}

/** `text` with every occurrence of `needle` (lower case) marked. */
function marked(text, needle) {
  if (!needle) return [text];
  const nodes = [];
  const lower = text.toLowerCase();
  let from = 0;
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + needle.length)) {
    nodes.push(text.slice(from, at), h("mark", {}, text.slice(at, at + needle.length)));
    from = at + needle.length;
  }
  nodes.push(text.slice(from));
  return nodes;
}

export class BotConsole {
  constructor(container, replay, onSeek) {
    this.replay = replay;
    this.onSeek = onSeek;
    this.player = -1;
    this.index = 0;
    this.drawn = { player: -1, needle: null, length: -1, shown: 0 };
    this.shown = PAGE;
    this.blocks = new Map();
    this.title = h("span", {});
    this.search = h("input", { type: "search", id: "console-search", placeholder: "search this bot's console", "aria-label": "search the console" });
    this.search.addEventListener("input", () => {
      this.shown = PAGE;
      this.refresh();
    });
    this.count = h("small", { class: "muted", id: "console-count" });
    this.body = h("div", { class: "console-body", id: "console-body" });
    this.more = h("button", { type: "button", class: "link", id: "console-more", hidden: true, onclick: () => {
      this.shown += PAGE;
      this.refresh();
    } }, "show more");
    const save = h("button", {
      type: "button", class: "link", id: "console-download",
      title: "everything this bot was sent, answered and logged in the match, as text",
      onclick: () => download(`console-player${this.player}.txt`, consoleText(this.replay, this.player)),
    }, "⤓ all of it");
    this.root = h("details", { class: "bot-console", id: "console" },
      h("summary", {}, "Console of ", this.title, " over the whole match"),
      h("div", { class: "console-tools" }, this.search, this.count, h("span", { class: "spacer" }), save),
      this.body, this.more);
    this.root.addEventListener("toggle", () => this.refresh());
    container.replaceChildren(this.root);
  }

  update(index, player) {
    this.index = index;
    if (player !== this.player) {
      this.player = player;
      this.shown = PAGE;
      this.title.replaceChildren(h("span", { class: "swatch small", style: `background:${playerColor(player)}` }),
        h("b", {}, this.replay.playerName(player)));
    }
    this.refresh();
  }

  /** Rebuilds the blocks when what they show changed, then marks the current tick's. */
  refresh() {
    if (!this.root.open) return;
    const needle = this.search.value.trim().toLowerCase();
    const length = this.replay.length;
    const d = this.drawn;
    if (d.player !== this.player || d.needle !== needle || d.length !== length || d.shown !== this.shown) {
      this.drawn = { player: this.player, needle, length, shown: this.shown };
      this.build(needle);
    }
    for (const [index, block] of this.blocks) block.classList.toggle("current", index === this.current());
  }

  /** The tick whose block stands for the shown tick: the latest with anything of the bot. */
  current() {
    return this.replay.lastActivity(this.player, this.index);
  }

  build(needle) {
    const replay = this.replay;
    const player = this.player;
    const matching = (replay.activityOf[player] || []).filter((index) => !needle ||
      parts(replay.ticks[index].bots[player]).some(([, text]) => text.toLowerCase().includes(needle)));
    this.blocks = new Map();
    const blocks = matching.slice(0, this.shown).map((index) => {
      const go = h("button", { type: "button", class: "link tick-head", onclick: () => this.onSeek(index) },
        header(replay, index, player));
      const block = h("section", { class: "console-tick", dataset: { index } }, go,
        parts(replay.ticks[index].bots[player]).map(([label, text]) =>
          h("div", { class: `console-part${label === "error" ? " error" : ""}` },
            h("div", { class: "console-label" }, label), h("pre", {}, marked(text, needle)))));
      this.blocks.set(index, block);
      return block;
    });
    this.body.replaceChildren(...(blocks.length ? blocks : [h("div", { class: "empty" }, needle ? "no tick matches" : "nothing of this bot yet")]));
    this.count.textContent = needle ? `${matching.length} ticks match` : `${matching.length} ticks`;
    this.more.hidden = matching.length <= this.shown;
  }
}
