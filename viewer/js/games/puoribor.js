// Puoribor: Quoridor on 9×9 with rotations of 4×4 sub-boards. Walls are unit segments with an
// owner; whole walls (two segments joined at a midpoint) are drawn as one bar with a dot at the
// midpoint, and segments left over by a rotation as single short bars.
//
// A tick's state: {tick, current, pawns: [[x, y], [x, y]], walls_remaining: [n, n],
// walls: [["H"|"V"|"h"|"v", x, y, owner]], distances: [d, d], done}.

import { s } from "../dom.js";
import { playerColor } from "../colors.js";
import { turnFrom } from "../replay/motion.js";
import {
  GrooveGeometry,
  drawGrid,
  distanceMeasure,
  drawPawns,
  drawWallRect,
  goalStrip,
} from "./board.js";

const SIZE = 9;

/** Whether the middle of wall `rect` lies in the rotated `square` (its edges included). */
function inside(rect, { x0, y0, side }) {
  const mx = rect.x + rect.w / 2;
  const my = rect.y + rect.h / 2;
  const slack = 1;
  return mx >= x0 - slack && mx <= x0 + side + slack && my >= y0 - slack && my <= y0 + side + slack;
}
const ROTATED = 4;

export function create(replay) {
  const size = (replay.header.settings && replay.header.settings.board) || SIZE;
  const geom = new GrooveGeometry(size);
  const svg = s("svg", {
    class: "board-svg puoribor",
    viewBox: `0 0 ${geom.width} ${geom.height}`,
    role: "img",
    "aria-label": "Puoribor board",
  });
  svg.append(drawGrid(geom));
  // Player 0 starts on the top row and must reach the bottom one; player 1 the reverse.
  svg.append(goalStrip(geom, "bottom", playerColor(0), `${replay.playerName(0)} must reach this edge`));
  svg.append(goalStrip(geom, "top", playerColor(1), `${replay.playerName(1)} must reach this edge`));
  const dynamic = s("g", { class: "dynamic" });
  const overlay = s("g", { class: "overlay" });
  svg.append(dynamic, overlay);

  function draw(index, ms = 0) {
    dynamic.replaceChildren();
    const tick = replay.ticks[index];
    if (!tick) return;
    const state = tick.state || {};
    const action = tick.action || {};
    const acted = tick.player;
    // The walls a rotation turned are drawn in a group of their own, which turns into place.
    let turned = null;
    let square = null;
    if (action.kind === "rotate") {
      const x0 = geom.x(action.x) - geom.gap / 2;
      const y0 = geom.y(action.y) - geom.gap / 2;
      const side = ROTATED * (geom.cell + geom.gap);
      square = { x0, y0, side };
      turned = s("g", { class: "turned" });
      dynamic.append(
        s("rect", {
          class: "rotation",
          x: x0,
          y: y0,
          width: side,
          height: side,
          rx: 6,
          stroke: playerColor(acted),
        }, s("title", {}, `rotated the 4×4 sub-board at (${action.x}, ${action.y})`)),
      );
    }
    for (const [kind, x, y, owner] of state.walls || []) {
      const whole = kind === "H" || kind === "V";
      const vertical = kind === "V" || kind === "v";
      const fresh =
        (action.kind === "horizontal" && kind === "H" && action.x === x && action.y === y) ||
        (action.kind === "vertical" && kind === "V" && action.x === x && action.y === y);
      const title = `${whole ? "wall" : "segment"} ${kind} ${x} ${y} of ${replay.playerName(owner)}`;
      const rect = geom.wall(x, y, vertical, whole ? 2 : 1);
      const into = square && inside(rect, square) ? turned : dynamic;
      into.append(drawWallRect(rect, playerColor(owner), { fresh, title }));
      if (whole) {
        const [cx, cy] = geom.corner(x, y);
        into.append(s("circle", { class: "midpoint", cx, cy, r: 2.2 }));
      }
    }
    if (turned) {
      dynamic.append(turned);
      turnFrom(turned, -90, [square.x0 + square.side / 2, square.y0 + square.side / 2], ms);
    }
    dynamic.append(drawPawns(geom, replay, index, ms));
  }

  function stats(index, player) {
    const tick = replay.ticks[index];
    const state = (tick && tick.state) || {};
    const parts = [];
    if (state.walls_remaining) parts.push(`walls ${state.walls_remaining[player]}`);
    if (state.distances && state.distances[player] !== null && state.distances[player] !== undefined) {
      parts.push(`distance ${state.distances[player]}`);
    }
    return parts.join(" · ");
  }

  return { element: svg, overlay, geometry: geom, draw, stats, measure: distanceMeasure(replay) };
}

export function describeAction(action) {
  if (!action) return "";
  switch (action.kind) {
    case "start":
      return "start";
    case "move":
      return `moved to (${action.x}, ${action.y})`;
    case "horizontal":
      return `placed a horizontal wall at (${action.x}, ${action.y})`;
    case "vertical":
      return `placed a vertical wall at (${action.x}, ${action.y})`;
    case "rotate":
      return `rotated the sub-board at (${action.x}, ${action.y})`;
    default:
      return action.kind || "";
  }
}
