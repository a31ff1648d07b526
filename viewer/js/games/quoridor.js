// Quoridor: pawns, walls in the colour of who placed them, the goal edge of each player.
//
// A tick's state (from the game's snapshot): {tick, current, pawns: [[x, y] | null],
// walls_left: [n], walls: [[x, y, v, who]], distances: [d | null], eliminated: [bool]}.

import { s } from "../dom.js";
import { playerColor } from "../colors.js";
import {
  GrooveGeometry,
  drawGrid,
  distanceMeasure,
  drawPawns,
  drawWallRect,
  goalSide,
  goalStrip,
} from "./board.js";

function boardSize(replay) {
  const settings = replay.header.settings || {};
  if (settings.board) return settings.board;
  return 9;
}

function sameWall(a, b) {
  return a && b && a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}

export function create(replay) {
  const size = boardSize(replay);
  const geom = new GrooveGeometry(size);
  const svg = s("svg", {
    class: "board-svg quoridor",
    viewBox: `0 0 ${geom.width} ${geom.height}`,
    role: "img",
    "aria-label": "Quoridor board",
  });
  svg.append(drawGrid(geom));
  const starts = (replay.header.settings && replay.header.settings.pawns) || [];
  starts.forEach((start, player) => {
    const side = goalSide(start.x, start.y, size);
    const strip = goalStrip(geom, side, playerColor(player), `${replay.playerName(player)} must reach this edge`);
    if (strip) svg.append(strip);
  });
  const dynamic = s("g", { class: "dynamic" });
  const overlay = s("g", { class: "overlay" });
  svg.append(dynamic, overlay);

  function draw(index, ms = 0) {
    dynamic.replaceChildren();
    const tick = replay.ticks[index];
    if (!tick) return;
    const state = tick.state || {};
    const action = tick.action || {};
    for (const wall of state.walls || []) {
      const [x, y, v, who] = wall;
      const fresh = action.kind === "place" && sameWall(wall, [action.x, action.y, action.v]);
      const title = `wall (${x}, ${y}, ${v}) by ${replay.playerName(who)}`;
      dynamic.append(drawWallRect(geom.wall(x, y, v === 1), playerColor(who), { fresh, title }));
    }
    dynamic.append(drawPawns(geom, replay, index, ms));
  }

  function stats(index, player) {
    const tick = replay.ticks[index];
    const state = (tick && tick.state) || {};
    const parts = [];
    if (state.walls_left) parts.push(`walls ${state.walls_left[player]}`);
    if (state.distances && state.distances[player] !== null && state.distances[player] !== undefined) {
      parts.push(`distance ${state.distances[player]}`);
    }
    if (state.eliminated && state.eliminated[player]) parts.push("eliminated");
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
    case "place":
      return `placed a ${action.v === 1 ? "vertical" : "horizontal"} wall at (${action.x}, ${action.y})`;
    case "stuck":
      return "could not move";
    default:
      return action.kind || "";
  }
}
