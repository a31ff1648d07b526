// The player list: colour, name and game figures of each seat; the one whose turn it was is
// marked, and a bot that crashed or went offline is crossed out from the tick it went down.
// Clicking a player picks it for the debug panel.

import { h } from "../dom.js";
import { playerColor } from "../colors.js";

export class PlayerList {
  constructor(container, replay, onPick) {
    this.replay = replay;
    this.items = replay.players.map((player, index) => {
      const name = h("span", { class: "name" }, player.name);
      const stats = h("span", { class: "stats" });
      const badge = h("span", { class: "badge" });
      const kind = h("span", { class: "kind", title: player.command || "" }, player.kind);
      const item = h(
        "li",
        { class: "player", dataset: { player: index }, title: "show this player in the debug panel" },
        h("span", { class: "swatch", style: `background:${playerColor(index)}` }, index),
        h("div", { class: "who" }, h("div", { class: "line" }, name, kind, badge), stats),
      );
      item.addEventListener("click", () => onPick(index));
      return { item, stats, badge };
    });
    container.replaceChildren(h("ol", { class: "players" }, this.items.map((i) => i.item)));
  }

  update(index, selected, renderer) {
    const tick = this.replay.ticks[index];
    this.items.forEach(({ item, stats, badge }, player) => {
      const down = this.replay.isDown(player, index);
      const bot = tick && tick.bots && tick.bots[player];
      item.classList.toggle("down", down);
      item.classList.toggle("selected", player === selected);
      item.classList.toggle("turn", !!tick && tick.player === player);
      item.classList.toggle("has-error", !!(bot && bot.error));
      stats.textContent = tick && renderer ? renderer.stats(index, player) : "";
      if (down) {
        badge.textContent = `offline since tick ${this.replay.ticks[this.replay.downAt[player]].tick}`;
      } else if (bot && bot.error) {
        badge.textContent = "error";
      } else {
        badge.textContent = "";
      }
    });
  }
}
