// Small line icons for the player controls, drawn in SVG so they look the same with any font.

import { s } from "./dom.js";

const PATHS = {
  first: "M4 4h2.5v12H4zM16 4l-8 6 8 6z",
  previous: "M14 4l-8 6 8 6z",
  play: "M6 4l10 6-10 6z",
  pause: "M6 4h3v12H6zM11 4h3v12h-3z",
  next: "M6 4l8 6-8 6z",
  last: "M13.5 4H16v12h-2.5zM4 4l8 6-8 6z",
};

export function icon(name) {
  return s("svg", { class: "icon", viewBox: "0 0 20 20", width: 16, height: 16, "aria-hidden": "true" },
    s("path", { d: PATHS[name] }));
}
