// How big the board is shown: it fills the space it has (its width, and the window's height
// less the controls), and can be zoomed past that, inside a scrolling frame, or shown full
// screen with the controls.

import { h } from "../dom.js";

/** Zoom steps, as multiples of the fitted size. */
const ZOOMS = [1, 1.5, 2, 3, 4, 6];

export class BoardView {
  constructor(wrap, stage) {
    this.wrap = wrap;
    this.stage = stage;
    this.zoom = 0;
    const tool = (label, title, id, onclick) =>
      h("button", { type: "button", class: "board-tool", title, "aria-label": title, id, onclick }, label);
    this.zoomOut = tool("−", "zoom out", "zoom-out", () => this.setZoom(this.zoom - 1));
    this.zoomIn = tool("+", "zoom in", "zoom-in", () => this.setZoom(this.zoom + 1));
    this.fit = tool("fit", "fit the board to the space", "zoom-fit", () => this.setZoom(0));
    this.full = tool("full screen", "full screen (f)", "fullscreen", () => this.toggleFullscreen());
    this.level = h("span", { class: "zoom-level muted", id: "zoom-level" });
    this.tools = h("div", { class: "board-tools" }, this.zoomOut, this.level, this.zoomIn, this.fit, this.full);
    this.full.hidden = !document.fullscreenEnabled;
    document.addEventListener("fullscreenchange", () => {
      this.full.classList.toggle("on", document.fullscreenElement === this.stage);
    });
    this.setZoom(0);
  }

  setZoom(step) {
    this.zoom = Math.max(0, Math.min(ZOOMS.length - 1, step));
    const factor = ZOOMS[this.zoom];
    this.wrap.classList.toggle("zoomed", factor > 1);
    this.wrap.style.setProperty("--zoom", String(factor));
    this.level.textContent = `${Math.round(factor * 100)} %`;
    this.zoomOut.disabled = this.zoom === 0;
    this.zoomIn.disabled = this.zoom === ZOOMS.length - 1;
    this.fit.disabled = this.zoom === 0;
  }

  toggleFullscreen() {
    if (!document.fullscreenEnabled) return;
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    else this.stage.requestFullscreen().catch(() => {});
  }
}
