// The end of a match, over the board at its last tick: the ranking with scores, why the match
// ended, and each bot's faults. It can be closed, and comes back the next time the last tick is
// reached.

import { h } from "../dom.js";
import { playerColor } from "../colors.js";

function faults(bot) {
  if (!bot) return "";
  const parts = [];
  if (bot.crashed) parts.push("crashed");
  if (bot.errors) parts.push(`${bot.errors} error${bot.errors === 1 ? "" : "s"}`);
  if (bot.timeouts) parts.push(`${bot.timeouts} timeout${bot.timeouts === 1 ? "" : "s"}`);
  return parts.length ? parts.join(", ") : "no faults";
}

/** The players in the order of their places, ties in seat order. */
export function ranking(replay) {
  const result = replay.result;
  const placement = result.placement || [];
  return replay.players
    .map((_, seat) => seat)
    .sort((a, b) => (placement[a] ?? Infinity) - (placement[b] ?? Infinity) || a - b);
}

export class Summary {
  constructor(container, replay, playback) {
    this.replay = replay;
    this.dismissed = false;
    // Closed, it stays closed until the last tick is left, however quickly that happens.
    playback.onChange(() => {
      if (playback.index !== playback.last) this.dismissed = false;
    });
    this.root = h("div", { class: "match-summary", id: "summary", hidden: true, role: "dialog", "aria-label": "end of the match" });
    container.append(this.root);
    this.built = null;
  }

  update(index, last) {
    const result = this.replay.result;
    const atEnd = !!result && index === last;
    this.root.hidden = !atEnd || this.dismissed;
    if (!this.root.hidden && this.built !== result) this.build(result);
  }

  build(result) {
    this.built = result;
    const replay = this.replay;
    const rows = ranking(replay).map((seat) => h("tr", { class: result.placement[seat] === 1 ? "winner" : "" },
      h("td", { class: "num" }, result.placement[seat] ?? "–"),
      h("td", {}, h("span", { class: "swatch small", style: `background:${playerColor(seat)}` }), replay.playerName(seat)),
      h("td", { class: "num" }, result.scores ? result.scores[seat] : ""),
      h("td", { class: (result.bots || [])[seat] && faults(result.bots[seat]) !== "no faults" ? "faults bad" : "faults" },
        faults((result.bots || [])[seat]))));
    const close = h("button", { type: "button", class: "close", title: "close", "aria-label": "close", onclick: () => {
      this.dismissed = true;
      this.root.hidden = true;
    } }, "✕");
    this.root.replaceChildren(close,
      h("h3", {}, "End of the match"),
      h("p", { class: "muted" }, `${result.reason} after ${result.ticks} ticks`),
      h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "place"), h("th", {}, "player"), h("th", {}, "score"), h("th", {}, "faults"))),
        h("tbody", {}, rows)));
  }
}
