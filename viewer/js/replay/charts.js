// Small charts over the whole match, under the timeline and aligned with it: each player's time
// (the bank left where the game keeps one, else the time each answer took) and the game's own
// measure (distance to goal, score) where its renderer gives one. A click jumps to that tick;
// a line marks the tick shown. The lines are drawn again only when the replay grows or the
// chart's width changes.

import { h } from "../dom.js";
import { playerColor } from "../colors.js";
import { THUMB } from "./timeline.js";

const HEIGHT = 54;

/**
 * The time series: the bank left when it changes over the match (a game timed by a bank), else
 * the time each answer took. Chosen again as a live match grows.
 */
function timeSeries() {
  const bank = (tick, player) => numberOr(tick.bots && tick.bots[player] && tick.bots[player].bank_ms);
  const used = (tick, player) =>
    (tick.player === player ? numberOr(tick.bots && tick.bots[player] && tick.bots[player].time_ms) : null);
  const series = {
    prepare(replay) {
      // The bank before the first answer may differ (a start-up allowance): it does not count.
      const banks = new Set();
      for (const tick of replay.ticks.slice(1)) for (const bot of tick.bots || []) banks.add(bot.bank_ms);
      const byBank = banks.size > 1;
      series.name = byBank ? "time bank left (ms)" : "time to answer (ms)";
      series.value = byBank ? bank : used;
    },
  };
  return series;
}

function numberOr(value) {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

class Chart {
  constructor(playback, series) {
    this.playback = playback;
    this.series = series;
    this.label = h("div", { class: "chart-label" });
    this.canvas = h("canvas", { class: "chart-lines", height: HEIGHT });
    this.cursor = h("div", { class: "chart-cursor" });
    this.root = h("div", { class: "chart", title: "click to show that tick" },
      this.label, h("div", { class: "chart-area" }, this.canvas, this.cursor));
    this.drawn = { length: -1, width: -1 };
    this.canvas.addEventListener("click", (event) => {
      const rect = this.canvas.getBoundingClientRect();
      const fraction = (event.clientX - rect.left - THUMB) / Math.max(1, rect.width - 2 * THUMB);
      playback.seek(fraction * playback.last);
    });
    new ResizeObserver(() => this.draw(true)).observe(this.canvas);
  }

  update(index) {
    this.draw(false);
    const width = this.canvas.clientWidth;
    const last = Math.max(1, this.playback.last);
    this.cursor.style.left = `${THUMB + (index / last) * Math.max(0, width - 2 * THUMB)}px`;
  }

  draw(force) {
    const replay = this.playback.replay;
    const ratio = window.devicePixelRatio || 1;
    const width = Math.round(this.canvas.clientWidth * ratio);
    if (!width || (!force && this.drawn.length === replay.length && this.drawn.width === width)) return;
    this.drawn = { length: replay.length, width };
    const height = Math.round(HEIGHT * ratio);
    this.canvas.width = width;
    this.canvas.height = height;
    const ctx = this.canvas.getContext("2d");
    ctx.clearRect(0, 0, width, height);
    if (this.series.prepare) this.series.prepare(replay);
    const values = replay.players.map((_, player) => replay.ticks.map((tick, i) => this.series.value(tick, player, i)));
    const all = values.flat().filter((v) => v !== null);
    this.label.textContent = this.series.name;
    if (!all.length) return;
    const low = Math.min(0, ...all);
    const high = Math.max(low + 1, ...all);
    const last = Math.max(1, replay.length - 1);
    const inset = THUMB * ratio;
    const x = (i) => inset + (i / last) * (width - 2 * inset);
    const y = (v) => height - 2 * ratio - ((v - low) / (high - low)) * (height - 4 * ratio);
    ctx.lineWidth = 1.5 * ratio;
    values.forEach((line, player) => {
      ctx.strokeStyle = playerColor(player);
      ctx.beginPath();
      let open = false;
      line.forEach((v, i) => {
        if (v === null) return;
        if (open) ctx.lineTo(x(i), y(v));
        else ctx.moveTo(x(i), y(v));
        open = true;
      });
      ctx.stroke();
    });
    this.label.textContent = `${this.series.name} · ${Math.round(low)}–${Math.round(high)}`;
  }
}

export class Charts {
  constructor(container, playback, renderer) {
    const series = [timeSeries()];
    if (renderer.measure) {
      series.push({ name: renderer.measure.name, value: (tick, player, i) => numberOr(renderer.measure.value(i, player)) });
    }
    this.charts = series.map((s) => new Chart(playback, s));
    container.replaceChildren(h("div", { class: "charts", id: "charts" }, this.charts.map((c) => c.root)));
  }

  update(index) {
    for (const chart of this.charts) chart.update(index);
  }
}
