// The timeline: a slider over the ticks, and under it a strip with a red mark at every tick
// where a bot made an error (strong for the player being debugged, faint for the others) and
// a dark one where a bot went down. The strip is a canvas redrawn only when the replay grows or
// the player changes, so a 10,000-tick replay scrubs as smoothly as a short one.

import { h } from "../dom.js";
import { ERROR_COLOR } from "../colors.js";

/** Half the width of the slider's thumb: the first and last ticks sit this far in. */
export const THUMB = 8;

export class Timeline {
  constructor(container, playback) {
    this.playback = playback;
    this.slider = h("input", {
      type: "range",
      min: 0,
      max: 0,
      value: 0,
      step: 1,
      class: "slider",
      "aria-label": "tick",
    });
    this.canvas = h("canvas", { class: "marks", height: 12, title: "red: ticks with an error" });
    container.replaceChildren(h("div", { class: "timeline" }, this.slider, this.canvas));
    this.drawn = { length: -1, player: -1, width: -1 };
    this.pending = null;
    // The slider can fire far more often than frames are drawn: seek once per frame at most.
    this.slider.addEventListener("input", () => {
      const wanted = Number(this.slider.value);
      if (this.pending === null) {
        requestAnimationFrame(() => {
          const value = this.pending;
          this.pending = null;
          playback.seek(value);
        });
      }
      this.pending = wanted;
    });
    this.canvas.addEventListener("click", (event) => {
      const rect = this.canvas.getBoundingClientRect();
      const fraction = (event.clientX - rect.left - THUMB) / Math.max(1, rect.width - 2 * THUMB);
      playback.seek(fraction * playback.last);
    });
    new ResizeObserver(() => this.drawMarks(this.player, true)).observe(this.canvas);
  }

  update(index, player) {
    const last = this.playback.last;
    if (Number(this.slider.max) !== last) this.slider.max = last;
    if (Number(this.slider.value) !== index && this.pending === null) this.slider.value = index;
    this.player = player;
    this.drawMarks(player, false);
  }

  drawMarks(player, force) {
    const replay = this.playback.replay;
    const width = Math.round(this.canvas.clientWidth * (window.devicePixelRatio || 1));
    if (!width) return;
    const length = replay.length;
    if (!force && this.drawn.length === length && this.drawn.player === player && this.drawn.width === width) return;
    this.drawn = { length, player, width };
    const ratio = window.devicePixelRatio || 1;
    const height = Math.round(12 * ratio);
    this.canvas.width = width;
    this.canvas.height = height;
    const ctx = this.canvas.getContext("2d");
    ctx.clearRect(0, 0, width, height);
    const last = Math.max(1, length - 1);
    const inset = THUMB * ratio;
    const span = width - 2 * inset;
    const x = (i) => Math.round(inset + (i / last) * span);
    const mark = Math.max(2, Math.round(2 * ratio));
    ctx.fillStyle = "rgba(220, 38, 38, 0.28)";
    for (const i of replay.errorTicks) ctx.fillRect(x(i) - mark / 2, 0, mark, height);
    ctx.fillStyle = ERROR_COLOR;
    for (const i of replay.errorTicksOf[player] || []) ctx.fillRect(x(i) - mark / 2, 0, mark, height);
    ctx.fillStyle = "#111827";
    replay.downAt.forEach((at) => {
      if (at !== null) ctx.fillRect(x(at) - mark / 2, height / 2, mark, height / 2);
    });
  }
}
