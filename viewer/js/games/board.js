// Board geometry: a square board of cells separated by grooves, as Quoridor-like games are
// drawn (where each cell and groove is, the grid itself, coordinate labels and goal edges), and
// a flat grid of cells for the other games.

import { s } from "../dom.js";
import { slideFrom } from "../replay/motion.js";
import { playerColor } from "../colors.js";

export class GrooveGeometry {
  constructor(size, { cell = 40, gap = 9, margin = 30 } = {}) {
    this.size = size;
    this.cell = cell;
    this.gap = gap;
    this.margin = margin;
    this.board = size * cell + (size + 1) * gap;
    this.width = this.board + 2 * margin;
    this.height = this.width;
  }

  /** Left edge of column x. */
  x(x) {
    return this.margin + this.gap + x * (this.cell + this.gap);
  }

  /** Top edge of row y. */
  y(y) {
    return this.margin + this.gap + y * (this.cell + this.gap);
  }

  /** Centre of cell (x, y); fractional coordinates land between cells. */
  center(x, y) {
    return [this.x(x) + this.cell / 2, this.y(y) + this.cell / 2];
  }

  get cellSize() {
    return this.cell;
  }

  /**
   * The groove rectangle of a wall anchored at cell (x, y) — the cell nearest (0, 0) it
   * touches — that is `length` cells long: horizontal walls lie under row y, vertical ones
   * right of column x.
   */
  wall(x, y, vertical, length = 2) {
    const span = length * this.cell + (length - 1) * this.gap;
    if (vertical) {
      return { x: this.x(x) + this.cell, y: this.y(y), w: this.gap, h: span };
    }
    return { x: this.x(x), y: this.y(y) + this.cell, w: span, h: this.gap };
  }

  /** The point where four cells meet, below and right of cell (x, y). */
  corner(x, y) {
    return [this.x(x) + this.cell + this.gap / 2, this.y(y) + this.cell + this.gap / 2];
  }
}

/**
 * Cells side by side with no grooves (Domino, Labyrinth): `columns` × `rows` cells of `cell`
 * pixels inside a margin.
 */
export class FlatGeometry {
  constructor(columns, rows, { cell, margin }) {
    this.columns = columns;
    this.rows = rows;
    this.cell = cell;
    this.margin = margin;
    this.boardWidth = columns * cell;
    this.boardHeight = rows * cell;
    this.width = this.boardWidth + 2 * margin;
    this.height = this.boardHeight + 2 * margin;
  }

  /** Left edge of column x. */
  x(x) {
    return this.margin + x * this.cell;
  }

  /** Top edge of row y. */
  y(y) {
    return this.margin + y * this.cell;
  }

  /** Centre of cell (x, y); fractional coordinates land between cells. */
  center(x, y) {
    return [this.x(x) + this.cell / 2, this.y(y) + this.cell / 2];
  }

  get cellSize() {
    return this.cell;
  }
}

/** The board background, cells and coordinate labels. */
export function drawGrid(geom) {
  const group = s("g", { class: "grid" });
  const m = geom.margin;
  group.append(s("rect", { class: "board", x: m, y: m, width: geom.board, height: geom.board, rx: 6 }));
  for (let y = 0; y < geom.size; y++) {
    for (let x = 0; x < geom.size; x++) {
      group.append(
        s("rect", { class: "cell", x: geom.x(x), y: geom.y(y), width: geom.cell, height: geom.cell, rx: 3 }),
      );
    }
  }
  for (let i = 0; i < geom.size; i++) {
    const [cx, cy] = geom.center(i, i);
    group.append(s("text", { class: "coord", x: cx, y: m - 10, "text-anchor": "middle" }, i));
    group.append(s("text", { class: "coord", x: m - 10, y: cy + 4, "text-anchor": "middle" }, i));
  }
  return group;
}

/** The side of the board a pawn starting at (x, y) must reach. */
export function goalSide(x, y, size) {
  if (y === 0) return "bottom";
  if (y === size - 1) return "top";
  if (x === 0) return "right";
  if (x === size - 1) return "left";
  return null;
}

/** A strip along the edge a player must reach, in its colour. */
export function goalStrip(geom, side, color, title) {
  const m = geom.margin;
  const t = 5;
  const along = geom.board - 12;
  const rects = {
    top: { x: m + 6, y: m - t - 2, width: along, height: t },
    bottom: { x: m + 6, y: m + geom.board + 2, width: along, height: t },
    left: { x: m - t - 2, y: m + 6, width: t, height: along },
    right: { x: m + geom.board + 2, y: m + 6, width: t, height: along },
  };
  const rect = rects[side];
  if (!rect) return null;
  return s("rect", { class: "goal", ...rect, rx: 2, fill: color }, s("title", {}, title));
}

/** A pawn: a disc in the player's colour with its number. */
export function drawPawn(geom, x, y, color, label, extraClass = "") {
  const [cx, cy] = geom.center(x, y);
  const r = geom.cell * 0.36;
  return s(
    "g",
    { class: `pawn ${extraClass}` },
    s("circle", { cx, cy, r, fill: color }),
    s("text", { x: cx, y: cy + 5, "text-anchor": "middle" }, label),
  );
}

/** The outline of where a pawn was before this tick's move. */
export function drawPawnTrail(geom, from, to, color) {
  const [fx, fy] = geom.center(from[0], from[1]);
  const [tx, ty] = geom.center(to[0], to[1]);
  const r = geom.cell * 0.36;
  return s(
    "g",
    { class: "trail" },
    s("line", { x1: fx, y1: fy, x2: tx, y2: ty, stroke: color }),
    s("circle", { cx: fx, cy: fy, r, stroke: color }),
  );
}

/**
 * Every pawn of tick `index` in its player's colour (crossed out once its bot is down), and the
 * trail of the pawn that moved on that tick.
 */
export function drawPawns(geom, replay, index, ms = 0) {
  const tick = replay.ticks[index];
  const pawns = (tick.state || {}).pawns || [];
  const acted = tick.player;
  const previous = index > 0 ? replay.ticks[index - 1].state : null;
  const group = s("g", { class: "pawns" });
  let moved = null;
  if ((tick.action || {}).kind === "move" && previous && acted !== null && acted !== undefined) {
    const from = (previous.pawns || [])[acted];
    const to = pawns[acted];
    if (from && to && (from[0] !== to[0] || from[1] !== to[1])) {
      group.append(drawPawnTrail(geom, from, to, playerColor(acted)));
      const [fx, fy] = geom.center(from[0], from[1]);
      const [tx, ty] = geom.center(to[0], to[1]);
      moved = [fx - tx, fy - ty];
    }
  }
  pawns.forEach((pawn, player) => {
    if (!pawn) return;
    const down = replay.isDown(player, index);
    const drawn = drawPawn(geom, pawn[0], pawn[1], playerColor(player), player, down ? "down" : "");
    group.append(drawn);
    if (player === acted && moved) slideFrom(drawn, moved, ms);
  });
  return group;
}

/** A wall bar filling a groove, in its owner's colour. */
export function drawWallRect(rect, color, { fresh = false, title = "" } = {}) {
  const group = s("g", { class: fresh ? "wall fresh" : "wall" });
  if (fresh) {
    group.append(
      s("rect", { class: "halo", x: rect.x - 4, y: rect.y - 4, width: rect.w + 8, height: rect.h + 8, rx: 6, fill: color }),
    );
  }
  group.append(
    s("rect", { x: rect.x, y: rect.y, width: rect.w, height: rect.h, rx: 3, fill: color }, title ? s("title", {}, title) : null),
  );
  return group;
}

/** The chart of a match of pawns racing to their goals: each player's distance to its goal. */
export function distanceMeasure(replay) {
  return {
    name: "distance to goal",
    value(index, player) {
      const state = (replay.ticks[index] && replay.ticks[index].state) || {};
      return state.distances ? state.distances[player] : null;
    },
  };
}
