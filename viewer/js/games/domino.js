// Domino on a torus: obstacles from the settings, each player's dominoes in its colour. A
// domino that wraps around an edge is drawn as two halves running off opposite edges.
//
// The board is not in the tick state (which holds {tick, current, free, placements, last,
// loser}); it is the obstacles of the settings ({size, obstacles: [{x, y}]}) plus the placement
// of every tick so far (action {"kind": "place", "cells": [[x, y], [x, y]]}, tick.player).
// Dominoes are kept as elements per tick, so moving along the timeline only adds or removes
// those of the ticks passed over.

import { s } from "../dom.js";
import { FlatGeometry } from "./board.js";
import { playerColor } from "../colors.js";

/** A square board of `size` cells a side, twenty pixels each. */
function geometry(size) {
  return new FlatGeometry(size, size, { cell: 20, margin: size > 25 ? 34 : 26 });
}

const INSET = 2;

function dominoShape(geom, a, b, color, title) {
  const n = geom.columns;
  const group = s("g", { class: "domino" }, s("title", {}, title));
  const c = geom.cell;
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const wraps = Math.abs(dx) === n - 1 || Math.abs(dy) === n - 1;
  const rect = (x, y, w, h) =>
    s("rect", { x: x + INSET, y: y + INSET, width: w - 2 * INSET, height: h - 2 * INSET, rx: 4, fill: color });
  if (!wraps) {
    const x = geom.x(Math.min(a[0], b[0]));
    const y = geom.y(Math.min(a[1], b[1]));
    group.append(rect(x, y, (Math.abs(dx) + 1) * c, (Math.abs(dy) + 1) * c));
    return group;
  }
  // Each half runs off its edge of the board: the side it shares with its partner.
  for (const [cell, other] of [[a, b], [b, a]]) {
    let x = geom.x(cell[0]);
    let y = geom.y(cell[1]);
    let w = c;
    let h = c;
    if (Math.abs(dx) === n - 1) {
      if (other[0] > cell[0]) x -= c / 3;
      w += c / 3;
    } else {
      if (other[1] > cell[1]) y -= c / 3;
      h += c / 3;
    }
    group.append(rect(x, y, w, h));
  }
  return group;
}

function placementOf(tick) {
  const action = tick && tick.action;
  if (!action || action.kind !== "place" || !Array.isArray(action.cells) || action.cells.length !== 2) {
    return null;
  }
  return action.cells;
}

export function create(replay) {
  const settings = replay.header.settings || {};
  const size = settings.size || 13;
  const geom = geometry(size);
  const svg = s("svg", {
    class: "board-svg domino",
    viewBox: `0 0 ${geom.width} ${geom.height}`,
    role: "img",
    "aria-label": "Domino board",
  });
  const pattern = s(
    "pattern",
    { id: "domino-grid", width: geom.cell, height: geom.cell, patternUnits: "userSpaceOnUse", x: geom.margin, y: geom.margin },
    s("rect", { class: "cell", x: 0.5, y: 0.5, width: geom.cell - 1, height: geom.cell - 1, rx: 2 }),
  );
  svg.append(s("defs", {}, pattern));
  svg.append(s("rect", { class: "board", x: geom.margin, y: geom.margin, width: geom.boardWidth, height: geom.boardHeight }));
  svg.append(s("rect", { x: geom.margin, y: geom.margin, width: geom.boardWidth, height: geom.boardHeight, fill: "url(#domino-grid)" }));
  const step = size > 25 ? 5 : 1;
  // Labels keep a readable size however far a big board is scaled down.
  const font = Math.max(11, geom.width / 55);
  for (let i = 0; i < size; i += step) {
    const [cx, cy] = geom.center(i, i);
    svg.append(s("text", { class: "coord", x: cx, y: geom.margin - 6, "text-anchor": "middle", style: `font-size:${font}px` }, i));
    svg.append(s("text", { class: "coord", x: geom.margin - 6, y: cy + font / 3, "text-anchor": "end", style: `font-size:${font}px` }, i));
  }
  for (const cell of settings.obstacles || []) {
    svg.append(
      s("rect", { class: "obstacle", x: geom.x(cell.x) + 1, y: geom.y(cell.y) + 1, width: geom.cell - 2, height: geom.cell - 2, rx: 2 },
        s("title", {}, `obstacle (${cell.x}, ${cell.y})`)),
    );
  }
  const dominoes = s("g", { class: "dynamic" });
  const overlay = s("g", { class: "overlay" });
  svg.append(dominoes, overlay);

  const shapes = [];
  let shown = 0;
  let highlighted = null;

  function shapeOf(i) {
    if (shapes[i] === undefined) {
      const tick = replay.ticks[i];
      const cells = placementOf(tick);
      shapes[i] = cells
        ? dominoShape(geom, cells[0], cells[1], playerColor(tick.player),
          `tick ${i}: ${replay.playerName(tick.player)} {${cells[0].join(";")}},{${cells[1].join(";")}}`)
        : null;
    }
    return shapes[i];
  }

  function draw(index) {
    while (shown <= index) {
      const shape = shapeOf(shown);
      if (shape) dominoes.append(shape);
      shown++;
    }
    while (shown > index + 1) {
      shown--;
      const shape = shapes[shown];
      if (shape) shape.remove();
    }
    if (highlighted) highlighted.classList.remove("fresh");
    highlighted = shapes[index] || null;
    if (highlighted) highlighted.classList.add("fresh");
  }

  function stats(index, player) {
    let placed = 0;
    for (let i = 1; i <= index && i < replay.ticks.length; i++) {
      if (replay.ticks[i].player === player && placementOf(replay.ticks[i])) placed++;
    }
    const state = (replay.ticks[index] && replay.ticks[index].state) || {};
    const parts = [`${placed} placed`];
    if (state.loser === player) parts.push("lost");
    return parts.join(" · ");
  }

  return { element: svg, overlay, geometry: geom, draw, stats };
}

export function describeAction(action) {
  if (!action) return "";
  if (action.kind === "place" && Array.isArray(action.cells)) {
    return `placed {${action.cells[0].join(";")}},{${action.cells[1].join(";")}}`;
  }
  return action.kind || "";
}
