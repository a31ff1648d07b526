// The debug overlay: lines a bot writes to stderr that start with "#draw " are drawn over the
// board for that tick. The vocabulary (documented in the README, "Drawing on the board"):
//
//   #draw cell X Y [COLOR] [LABEL…]      shade a cell, with an optional short label
//   #draw arrow X1 Y1 X2 Y2 [COLOR]      an arrow from one cell to another
//   #draw line X1 Y1 X2 Y2 [COLOR]       a line between two cell centres
//   #draw path X1 Y1 X2 Y2 … [COLOR]     a line through several cells (a planned path)
//   #draw wall X Y V [COLOR]             outline a wall slot (games with walls: V = 1 vertical)
//   #draw text X Y MESSAGE…              text at a cell
//
// Coordinates are the game's cell coordinates (fractions land between cells). COLOR is a
// name (red orange yellow green blue purple pink cyan teal brown black white gray), #rgb or
// #rrggbb, or p0…p7 for a player's colour; without one, the drawing bot's own colour is used.

import { s } from "../dom.js";
import { playerColor } from "../colors.js";

export const PREFIX = "#draw ";
const MAX_SHAPES = 300;
const NAMES = new Set([
  "red", "orange", "yellow", "green", "blue", "purple", "pink", "cyan", "teal", "brown", "black", "white", "gray", "grey",
]);

function color(token) {
  if (token === undefined) return null;
  if (NAMES.has(token.toLowerCase())) return token.toLowerCase();
  if (/^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(token)) return token;
  const player = /^p(\d)$/i.exec(token);
  if (player) return playerColor(Number(player[1]));
  return null;
}

function numbers(tokens, count) {
  const values = tokens.slice(0, count).map(Number);
  return values.length === count && values.every(Number.isFinite) ? values : null;
}

/** Parses one line (without the prefix) into a shape, or throws a message for the bot's author. */
function parseLine(body) {
  const tokens = body.trim().split(/\s+/);
  const verb = tokens.shift();
  switch (verb) {
    case "cell": {
      const at = numbers(tokens, 2);
      if (!at) throw new Error("expected `cell X Y [COLOR] [LABEL…]`");
      let rest = tokens.slice(2);
      const c = color(rest[0]);
      if (c) rest = rest.slice(1);
      return { kind: "cell", x: at[0], y: at[1], color: c, label: rest.join(" ") };
    }
    case "arrow":
    case "line": {
      const at = numbers(tokens, 4);
      if (!at || tokens.length > 5) throw new Error(`expected \`${verb} X1 Y1 X2 Y2 [COLOR]\``);
      const c = color(tokens[4]);
      if (tokens[4] !== undefined && !c) throw new Error(`unknown colour "${tokens[4]}"`);
      return { kind: verb, points: [[at[0], at[1]], [at[2], at[3]]], color: c };
    }
    case "path": {
      let rest = tokens;
      let c = null;
      if (rest.length % 2 === 1) {
        c = color(rest[rest.length - 1]);
        if (!c) throw new Error(`unknown colour "${rest[rest.length - 1]}"`);
        rest = rest.slice(0, -1);
      }
      const values = numbers(rest, rest.length);
      if (!values || values.length < 4) throw new Error("expected `path X1 Y1 X2 Y2 … [COLOR]`");
      const points = [];
      for (let i = 0; i < values.length; i += 2) points.push([values[i], values[i + 1]]);
      return { kind: "path", points, color: c };
    }
    case "wall": {
      const at = numbers(tokens, 3);
      if (!at || (at[2] !== 0 && at[2] !== 1) || tokens.length > 4) {
        throw new Error("expected `wall X Y V [COLOR]` with V 0 or 1");
      }
      const c = color(tokens[3]);
      if (tokens[3] !== undefined && !c) throw new Error(`unknown colour "${tokens[3]}"`);
      return { kind: "wall", x: at[0], y: at[1], vertical: at[2] === 1, color: c };
    }
    case "text": {
      const at = numbers(tokens, 2);
      if (!at || tokens.length < 3) throw new Error("expected `text X Y MESSAGE…`");
      return { kind: "text", x: at[0], y: at[1], text: tokens.slice(2).join(" ") };
    }
    default:
      throw new Error(`unknown drawing "${verb || ""}" (cell, arrow, line, path, wall, text)`);
  }
}

/** The drawings of a tick's stderr, and the lines that could not be understood. */
export function parseDrawings(log) {
  const shapes = [];
  const problems = [];
  if (!log) return { shapes, problems };
  const lines = log.split("\n");
  lines.forEach((line, i) => {
    if (!line.startsWith(PREFIX)) return;
    if (shapes.length >= MAX_SHAPES) {
      if (shapes.length === MAX_SHAPES) problems.push({ line: i + 1, message: `only the first ${MAX_SHAPES} drawings are shown` });
      return;
    }
    try {
      shapes.push(parseLine(line.slice(PREFIX.length)));
    } catch (e) {
      problems.push({ line: i + 1, text: line, message: e.message });
    }
  });
  return { shapes, problems };
}

function arrowHead(x1, y1, x2, y2, size) {
  const angle = Math.atan2(y2 - y1, x2 - x1);
  const left = [x2 - size * Math.cos(angle - 0.45), y2 - size * Math.sin(angle - 0.45)];
  const right = [x2 - size * Math.cos(angle + 0.45), y2 - size * Math.sin(angle + 0.45)];
  return `${x2},${y2} ${left.join(",")} ${right.join(",")}`;
}

/**
 * An arrow's ends drawn short of the cells' centres, where a pawn and its number are: the
 * head points at a pawn without covering its number. An arrow too short to shorten is kept.
 */
function clearOfCentres(ax, ay, bx, by, gap) {
  const length = Math.hypot(bx - ax, by - ay);
  if (length <= 2.5 * gap) return [ax, ay, bx, by];
  const ux = (bx - ax) / length;
  const uy = (by - ay) / length;
  return [ax + ux * gap, ay + uy * gap, bx - ux * gap, by - uy * gap];
}

/** Where words written on a cell go: along its top edge, above a pawn's number. */
function wordsY(cy, size) {
  return cy - size * 0.3;
}

/** Draws shapes into `layer` (emptied first) with the renderer's geometry. */
export function drawShapes(layer, geometry, shapes, defaultColor) {
  layer.replaceChildren();
  if (!geometry) return;
  const size = geometry.cellSize;
  for (const shape of shapes) {
    const c = shape.color || defaultColor;
    switch (shape.kind) {
      case "cell": {
        const [cx, cy] = geometry.center(shape.x, shape.y);
        layer.append(s("rect", {
          class: "draw-cell", x: cx - size / 2, y: cy - size / 2, width: size, height: size, rx: 4, fill: c, stroke: c,
        }));
        if (shape.label) {
          layer.append(s("text", { class: "draw-label", x: cx, y: wordsY(cy, size), "text-anchor": "middle" }, shape.label.slice(0, 12)));
        }
        break;
      }
      case "line":
      case "path": {
        const points = shape.points.map(([x, y]) => geometry.center(x, y).join(",")).join(" ");
        layer.append(s("polyline", { class: "draw-line", points, stroke: c }));
        break;
      }
      case "arrow": {
        const [[fx, fy], [tx, ty]] = shape.points.map(([x, y]) => geometry.center(x, y));
        // A pawn's disc is 0.36 of a cell across its centre; the number sits in its middle.
        const [ax, ay, bx, by] = clearOfCentres(fx, fy, tx, ty, size * 0.3);
        layer.append(s("line", { class: "draw-line", x1: ax, y1: ay, x2: bx, y2: by, stroke: c }));
        layer.append(s("polygon", { class: "draw-head", points: arrowHead(ax, ay, bx, by, size * 0.4), fill: c }));
        break;
      }
      case "wall": {
        if (!geometry.wall) break;
        const r = geometry.wall(shape.x, shape.y, shape.vertical);
        layer.append(s("rect", { class: "draw-wall", x: r.x - 2, y: r.y - 2, width: r.w + 4, height: r.h + 4, rx: 4, stroke: c }));
        break;
      }
      case "text": {
        const [cx, cy] = geometry.center(shape.x, shape.y);
        layer.append(s("text", { class: "draw-text", x: cx, y: wordsY(cy, size), "text-anchor": "middle" }, shape.text.slice(0, 80)));
        break;
      }
      default:
        break;
    }
  }
}
