// Labyrinth (GRAPHISOFT 2017 final): sliding tiles whose open sides make corridors, displays to
// reach in each seat's order, princesses carried along by pushes.
//
// Header settings: {width, height, blocked: [[x, y]], displays: [[x, y]], tiles: [t], starts,
// targets, max_tick, …}. A tick's state: {round, to_move, fields: [t] (index y*width+x),
// displays: [[i, x, y]] (active only), positions: [[x, y]], extras: [t], scores: [n],
// targets: [display | null], codes: ["OK" | …]}. A tick's action: {kind: "turn", push:
// {c, p, k, t} | null, goto: [x, y] | null, code}. A tile is a mask of open sides: 1 north,
// 2 west, 4 south, 8 east.

import { h, s } from "../dom.js";
import { playerColor, ERROR_COLOR } from "../colors.js";
import { FlatGeometry } from "./board.js";
import { slideFrom, slideThrough } from "../replay/motion.js";

const NORTH = 1;
const WEST = 2;
const SOUTH = 4;
const EAST = 8;

const WALL = "#475569";
const FLOOR = "#f1f5f9";
const DISPLAY = "#facc15";

/** Room outside the board for lock marks, coordinates and the push arrow with its tile. */
function geometry(width, height, cell = 36) {
  return new FlatGeometry(width, height, { cell, margin: Math.round(cell * 1.7) });
}

/**
 * The corridor of a tile as one path in a `size` square at (x, y): a hub in the middle and an
 * arm to each open side, so that corridors of neighbouring tiles meet at the shared edge.
 */
function corridorPath(tile, x, y, size) {
  const w = size * 0.42;
  const a = (size - w) / 2;
  const b = a + w;
  const rect = (x0, y0, x1, y1) => `M${x + x0} ${y + y0}H${x + x1}V${y + y1}H${x + x0}Z`;
  let d = rect(a, a, b, b);
  if (tile & NORTH) d += rect(a, 0, b, a);
  if (tile & SOUTH) d += rect(a, b, b, size);
  if (tile & WEST) d += rect(0, a, a, b);
  if (tile & EAST) d += rect(b, a, size, b);
  return d;
}

/** A tile on its own (extras, the inserted tile): walls and corridor in a `size` square. */
function tileIcon(tile, x, y, size, extra = {}) {
  return s("g", { class: "tile-icon", ...extra },
    s("rect", { x, y, width: size, height: size, rx: size * 0.12, fill: WALL }),
    s("path", { d: corridorPath(tile, x, y, size), fill: FLOOR }));
}

/** A small padlock centred at (cx, cy): the line through it cannot be pushed. */
function lock(cx, cy, size, title) {
  const w = size;
  const body = size * 0.75;
  return s("g", { class: "lock" }, s("title", {}, title),
    s("path", {
      d: `M${cx - w * 0.28} ${cy}V${cy - body * 0.35}A${w * 0.28} ${w * 0.28} 0 0 1 ${cx + w * 0.28} ${cy - body * 0.35}V${cy}`,
      fill: "none", stroke: "#b91c1c", "stroke-width": size * 0.14,
    }),
    s("rect", { x: cx - w / 2, y: cy - body * 0.1, width: w, height: body * 0.75, rx: size * 0.12, fill: "#b91c1c" }));
}

/** Where a princess or display on (x, y) is after `push` (cyclic along the pushed line). */
function pushedCell(push, width, height, [x, y]) {
  if (!push) return [x, y];
  if (push.c === 0 && y === push.k) return [(x + (push.p === 1 ? 1 : width - 1)) % width, y];
  if (push.c === 1 && x === push.k) return [x, (y + (push.p === 1 ? 1 : height - 1)) % height];
  return [x, y];
}

/** A shortest walk from `from` to `to` through facing open sides, as cells; null if none. */
function walk(fields, width, height, from, to) {
  const start = from[1] * width + from[0];
  const goal = to[1] * width + to[0];
  const previous = new Map([[start, -1]]);
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const i = queue[head];
    if (i === goal) break;
    const x = i % width;
    const y = (i - x) / width;
    const t = fields[i];
    const steps = [
      [NORTH, SOUTH, y > 0, i - width],
      [WEST, EAST, x > 0, i - 1],
      [SOUTH, NORTH, y + 1 < height, i + width],
      [EAST, WEST, x + 1 < width, i + 1],
    ];
    for (const [side, facing, inside, j] of steps) {
      if (inside && t & side && fields[j] & facing && !previous.has(j)) {
        previous.set(j, i);
        queue.push(j);
      }
    }
  }
  if (!previous.has(goal)) return null;
  const cells = [];
  for (let i = goal; i !== -1; i = previous.get(i)) cells.push([i % width, Math.floor(i / width)]);
  return cells.reverse();
}

/** Offsets (in cells) and radius of `count` princesses sharing one cell, so each stays visible. */
function crowdLayout(count) {
  if (count <= 1) return { radius: 0.27, spots: [[0.5, 0.5]] };
  const side = count <= 4 ? 2 : count <= 9 ? 3 : 4;
  const rows = Math.ceil(count / side);
  const step = 1 / side;
  const spots = [];
  for (let i = 0; i < count; i++) {
    const r = Math.floor(i / side);
    const c = i % side;
    spots.push([step * (c + 0.5), (1 / rows) * (r + 0.5)]);
  }
  return { radius: Math.min(step, 1 / rows) * 0.45, spots };
}

function describePush(push) {
  return push ? `PUSH ${push.c} ${push.p} ${push.k} ${push.t}` : "";
}

export function create(replay) {
  const settings = replay.header.settings || {};
  const width = settings.width;
  const height = settings.height;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new Error("a Labyrinth replay without the board size in its settings");
  }
  const seats = replay.players.length;
  const geom = geometry(width, height);
  const c = geom.cell;
  const svg = s("svg", {
    class: "board-svg labyrinth",
    viewBox: `0 0 ${geom.width} ${geom.height}`,
    role: "img",
    "aria-label": "Labyrinth board",
  });
  svg.append(s("rect", { class: "board", x: geom.x(0) - 3, y: geom.y(0) - 3, width: width * c + 6, height: height * c + 6, rx: 5 }));

  // Tiles are drawn once and only their corridors change, so a 20×20 board redraws cheaply.
  const tiles = s("g", { class: "tiles" });
  const corridors = [];
  const shown = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      tiles.append(s("rect", { x: geom.x(x), y: geom.y(y), width: c, height: c, fill: WALL }));
      const path = s("path", { class: "corridor", fill: FLOOR });
      corridors.push(path);
      shown.push(0);
      tiles.append(path);
    }
  }
  // Cell borders, faint, so that neighbouring walls still read as separate tiles.
  let grid = "";
  for (let x = 1; x < width; x++) grid += `M${geom.x(x)} ${geom.y(0)}V${geom.y(height)}`;
  for (let y = 1; y < height; y++) grid += `M${geom.x(0)} ${geom.y(y)}H${geom.x(width)}`;
  tiles.append(s("path", { d: grid, stroke: "#1e293b", "stroke-opacity": 0.35, "stroke-width": 1, fill: "none" }));
  svg.append(tiles);

  const font = Math.max(10, c * 0.3);
  const statics = s("g", { class: "statics" });
  for (let x = 0; x < width; x++) {
    statics.append(s("text", { class: "coord", x: geom.x(x) + c / 2, y: geom.y(0) - c * 0.55, "text-anchor": "middle", style: `font-size:${font}px` }, x));
  }
  for (let y = 0; y < height; y++) {
    statics.append(s("text", { class: "coord", x: geom.x(0) - c * 0.55, y: geom.y(y) + c / 2 + font / 3, "text-anchor": "middle", style: `font-size:${font}px` }, y));
  }
  for (const [bx, by] of settings.blocked || []) {
    statics.append(s("rect", {
      class: "blocked", x: geom.x(bx) + 1.5, y: geom.y(by) + 1.5, width: c - 3, height: c - 3,
      fill: "none", stroke: "#b91c1c", "stroke-width": 3, "stroke-dasharray": "5 3",
    }, s("title", {}, `BLOCKED (${bx}, ${by}): row ${by} and column ${bx} cannot be pushed`)));
    const near = c * 0.22;
    const size = c * 0.32;
    statics.append(
      lock(geom.x(bx) + c / 2, geom.y(0) - near, size, `column ${bx} cannot be pushed`),
      lock(geom.x(bx) + c / 2, geom.y(height) + near + size * 0.3, size, `column ${bx} cannot be pushed`),
      lock(geom.x(0) - near, geom.y(by) + c / 2 + size * 0.3, size, `row ${by} cannot be pushed`),
      lock(geom.x(width) + near, geom.y(by) + c / 2 + size * 0.3, size, `row ${by} cannot be pushed`),
    );
  }
  svg.append(statics);

  const dynamic = s("g", { class: "dynamic" });
  const overlay = s("g", { class: "overlay" });
  svg.append(dynamic, overlay);

  const panelBody = h("tbody", {});
  const panel = h("table", { class: "lab-panel" },
    h("thead", {}, h("tr", {}, h("th", {}, "seat"), h("th", {}, "score"), h("th", {}, "extra"), h("th", {}, "target"), h("th", {}, "last"))),
    panelBody);
  const rows = replay.players.map((player, seat) => {
    const score = h("td", { class: "score" });
    const extraSvg = s("svg", { class: "extra", viewBox: "0 0 20 20", width: 20, height: 20 });
    const target = h("td", { class: "target" });
    const code = h("td", { class: "code" });
    const row = h("tr", { class: "seat", dataset: { seat } },
      h("td", { class: "who" }, h("span", { class: "swatch small", style: `background:${playerColor(seat)}` }), `${seat} ${player.name}`),
      score, h("td", {}, extraSvg), target, code);
    panelBody.append(row);
    return { row, score, extraSvg, target, code, extra: null };
  });
  const info = h("div", { class: "lab-info muted" });
  const element = h("div", { class: "labyrinth-view" }, svg, h("div", { class: "lab-side" }, panel, info));

  function stateAt(index) {
    const tick = replay.ticks[index];
    return (tick && tick.state) || null;
  }

  function drawTiles(fields) {
    for (let i = 0; i < corridors.length; i++) {
      const t = fields[i] | 0;
      if (shown[i] === t) continue;
      shown[i] = t;
      const x = i % width;
      const y = (i - x) / width;
      corridors[i].setAttribute("d", t ? corridorPath(t, geom.x(x), geom.y(y), c) : "");
    }
  }

  function drawDisplays(state) {
    const chasers = new Map();
    (state.targets || []).forEach((d, seat) => {
      if (d === null || d === undefined) return;
      if (!chasers.has(d)) chasers.set(d, []);
      chasers.get(d).push(seat);
    });
    for (const [i, x, y] of state.displays || []) {
      const cx = geom.x(x) + c * 0.3;
      const cy = geom.y(y) + c * 0.3;
      const r = c * 0.22;
      const seatsAfter = chasers.get(i) || [];
      const group = s("g", { class: "display", dataset: { display: i } },
        s("title", {}, `display ${i} at (${x}, ${y})` +
          (seatsAfter.length ? `: target of ${seatsAfter.map((p) => replay.playerName(p)).join(", ")}` : "")));
      // Each seat chasing this display gets an equal arc of the ring around it, in its colour.
      const ring = r + 2.5;
      const around = 2 * Math.PI * ring;
      seatsAfter.forEach((seat, k) => {
        const arc = around / seatsAfter.length;
        group.append(s("circle", {
          class: "target-ring", cx, cy, r: ring, fill: "none", stroke: playerColor(seat), "stroke-width": 4,
          "stroke-dasharray": seatsAfter.length > 1 ? `${arc} ${around - arc}` : null,
          "stroke-dashoffset": seatsAfter.length > 1 ? -k * arc : null,
          dataset: { seat },
        }));
      });
      group.append(
        s("circle", { cx, cy, r, fill: DISPLAY, stroke: "#854d0e", "stroke-width": 1 }),
        s("text", { class: "display-label", x: cx, y: cy + r * 0.42, "text-anchor": "middle", style: `font-size:${i > 99 ? r : r * 1.15}px`, fill: "#422006", "font-weight": 700 }, i),
      );
      dynamic.append(group);
    }
  }

  function drawPrincesses(state, acted) {
    const byCell = new Map();
    (state.positions || []).forEach((p, seat) => {
      if (!p) return;
      const key = p[1] * width + p[0];
      if (!byCell.has(key)) byCell.set(key, []);
      byCell.get(key).push(seat);
    });
    for (const [key, group] of byCell) {
      const x = key % width;
      const y = (key - x) / width;
      const { radius, spots } = crowdLayout(group.length);
      // A lone princess keeps to the lower right so that a display's number stays readable.
      const lone = group.length === 1 ? [[0.64, 0.64]] : spots;
      group.forEach((seat, k) => {
        const [ox, oy] = lone[k];
        const cx = geom.x(x) + ox * c;
        const cy = geom.y(y) + oy * c;
        const r = radius * c;
        dynamic.append(s("g", { class: seat === acted ? "princess acted" : "princess", dataset: { seat } },
          s("title", {}, `${replay.playerName(seat)} at (${x}, ${y})`),
          s("circle", { cx, cy, r, fill: playerColor(seat), stroke: "#fff", "stroke-width": Math.max(1, r * 0.18) }),
          r >= 6 ? s("text", { x: cx, y: cy + r * 0.4, "text-anchor": "middle", fill: "#fff", "font-weight": 700, style: `font-size:${r * 1.1}px` }, seat) : null));
      });
    }
  }

  function drawPush(push, color) {
    const { c: line, p, k, t } = push;
    const horizontal = line === 0;
    const cells = horizontal ? width : height;
    if (k < 0 || k >= (horizontal ? height : width)) return;
    const group = s("g", { class: "push", dataset: { push: describePush(push) } }, s("title", {}, describePush(push)));
    const x0 = horizontal ? geom.x(0) : geom.x(k);
    const y0 = horizontal ? geom.y(k) : geom.y(0);
    group.append(s("rect", {
      class: "pushed-line", x: x0 + 1, y: y0 + 1,
      width: (horizontal ? cells * c : c) - 2, height: (horizontal ? c : cells * c) - 2,
      fill: "none", stroke: color, "stroke-width": 3, rx: 4,
    }));
    // The tile goes in at 0 for p = 1, at the far end for p = 0; the arrow points the way the
    // line moved, from the margin on the entry side.
    const enter = p === 1 ? 0 : cells - 1;
    const ex = horizontal ? geom.x(enter) : geom.x(k);
    const ey = horizontal ? geom.y(k) : geom.y(enter);
    group.append(s("rect", { class: "inserted", x: ex + 2, y: ey + 2, width: c - 4, height: c - 4, fill: "none", stroke: color, "stroke-width": 3, "stroke-dasharray": "4 2" }));
    const mini = c * 0.62;
    const dir = p === 1 ? 1 : -1;
    const mid = horizontal ? geom.y(k) + c / 2 : geom.x(k) + c / 2;
    const edge = horizontal ? (p === 1 ? geom.x(0) : geom.x(width)) : p === 1 ? geom.y(0) : geom.y(height);
    const tip = edge - dir * 2;
    const tail = edge - dir * (geom.margin - mini - 4);
    const iconAt = edge - dir * (geom.margin - 2) - (dir < 0 ? mini : 0);
    const [ax1, ay1, ax2, ay2] = horizontal ? [tail, mid, tip, mid] : [mid, tail, mid, tip];
    const head = c * 0.22;
    const arrowHead = horizontal
      ? `M${tip} ${mid}L${tip - dir * head} ${mid - head * 0.8}L${tip - dir * head} ${mid + head * 0.8}Z`
      : `M${mid} ${tip}L${mid - head * 0.8} ${tip - dir * head}L${mid + head * 0.8} ${tip - dir * head}Z`;
    const [ix, iy] = horizontal ? [iconAt, mid - mini / 2] : [mid - mini / 2, iconAt];
    group.append(
      s("rect", { x: Math.min(ix, ax1, ax2) - 2, y: Math.min(iy, ay1, ay2) - 2, width: horizontal ? geom.margin : mini + 4, height: horizontal ? mini + 4 : geom.margin, fill: "#fff", opacity: 0.85 }),
      s("line", { x1: ax1, y1: ay1, x2: ax2 - (horizontal ? dir * head * 0.8 : 0), y2: ay2 - (horizontal ? 0 : dir * head * 0.8), stroke: color, "stroke-width": 4 }),
      s("path", { class: "arrow-head", d: arrowHead, fill: color }),
      tileIcon(t, ix, iy, mini, { "data-tile": t }),
    );
    dynamic.append(group);
  }

  function drawGoto(from, to, fields, color) {
    const cells = walk(fields, width, height, from, to);
    const points = (cells || [from, to]).map(([x, y]) => geom.center(x, y));
    const group = s("g", { class: "goto", dataset: { goto: `${to[0]} ${to[1]}` } }, s("title", {}, `GOTO ${to[0]} ${to[1]}`));
    const [ex, ey] = points[points.length - 1];
    if (points.length > 1) {
      group.append(s("polyline", {
        points: points.map((p) => p.join(",")).join(" "), fill: "none", stroke: color, "stroke-width": 4,
        "stroke-linecap": "round", "stroke-linejoin": "round", "stroke-opacity": 0.75,
        "stroke-dasharray": cells ? null : "6 4",
      }));
    }
    group.append(s("circle", { cx: ex, cy: ey, r: c * 0.4, fill: "none", stroke: color, "stroke-width": 3 }));
    dynamic.append(group);
    return cells || [from, to];
  }

  /**
   * Motion into a turn: the pushed line slides one cell, the princesses on it ride along, and
   * the one who played walks its way to its GOTO cell.
   */
  function animateTurn(action, acted, previous, state, walked, ms) {
    const push = action.push;
    if (push) {
      const step = push.p === 1 ? c : -c;
      const shift = push.c === 0 ? [-step, 0] : [0, -step];
      const line = push.c === 0 ? width : height;
      for (let n = 0; n < line; n++) {
        const i = push.c === 0 ? push.k * width + n : n * width + push.k;
        slideFrom(corridors[i], shift, ms);
      }
    }
    (state.positions || []).forEach((to, seat) => {
      const before = (previous.positions || [])[seat];
      if (!to || !before) return;
      const princess = dynamic.querySelector(`.princess[data-seat="${seat}"]`);
      const at = ([x, y]) => [geom.x(x) - geom.x(to[0]), geom.y(y) - geom.y(to[1])];
      const pushed = pushedCell(push, width, height, before);
      const rode = pushed[0] !== before[0] || pushed[1] !== before[1];
      // A princess pushed off one end comes in at the other: she does not ride across the board.
      const ride = rode && Math.abs(pushed[0] - before[0]) + Math.abs(pushed[1] - before[1]) === 1;
      const points = ride ? [at(before)] : [];
      if (seat === acted && walked) points.push(...walked.map(at));
      else points.push(at(pushed), at(to));
      slideThrough(princess, points, ms);
    });
  }

  function drawPanel(state, tick) {
    rows.forEach((row, seat) => {
      const scores = state.scores || [];
      row.score.textContent = scores[seat] ?? "";
      const target = (state.targets || [])[seat];
      row.target.textContent = target === null || target === undefined ? "—" : String(target);
      const code = (state.codes || [])[seat] || "";
      row.code.textContent = code;
      row.code.classList.toggle("bad", code !== "" && code !== "OK");
      row.code.style.color = code !== "" && code !== "OK" ? ERROR_COLOR : "";
      const extra = (state.extras || [])[seat];
      if (row.extra !== extra) {
        row.extra = extra;
        row.extraSvg.replaceChildren(extra ? tileIcon(extra, 0, 0, 20) : "");
        row.extraSvg.dataset.tile = extra ?? "";
      }
      row.row.classList.toggle("on-turn", state.to_move === seat);
      row.row.classList.toggle("acted", !!tick && tick.player === seat);
    });
    const parts = [];
    if (state.round !== undefined && state.round !== null) {
      parts.push(`round ${state.round + 1} of ${settings.max_tick ?? "?"}`);
    }
    parts.push(`${(state.displays || []).length} of ${(settings.displays || []).length} displays left`);
    if (settings.note) parts.push(settings.note);
    info.textContent = parts.join(" · ");
  }

  function draw(index, ms = 0) {
    dynamic.replaceChildren();
    const tick = replay.ticks[index];
    const state = stateAt(index);
    if (!state) return;
    drawTiles(state.fields || settings.tiles || []);
    const action = (tick && tick.action) || {};
    const acted = tick ? tick.player : null;
    const color = acted === null || acted === undefined ? "#111827" : playerColor(acted);
    if (action.kind === "turn" && action.push) drawPush(action.push, color);
    drawDisplays(state);
    const previous = index > 0 ? stateAt(index - 1) : null;
    let walked = null;
    if (action.kind === "turn" && action.goto && previous && acted !== null && acted !== undefined) {
      const before = (previous.positions || [])[acted];
      const to = (state.positions || [])[acted];
      if (before && to) {
        const from = pushedCell(action.push, width, height, before);
        walked = drawGoto(from, to, state.fields || [], color);
      }
    }
    drawPrincesses(state, acted);
    if (ms && previous && action.kind === "turn") animateTurn(action, acted, previous, state, walked, ms);
    drawPanel(state, tick);
  }

  function stats(index, player) {
    const state = stateAt(index);
    if (!state) return "";
    const parts = [`score ${(state.scores || [])[player] ?? 0}`];
    const target = (state.targets || [])[player];
    if (target !== null && target !== undefined) parts.push(`target ${target}`);
    const code = (state.codes || [])[player];
    if (code && code !== "OK") parts.push(code);
    return parts.join(" · ");
  }

  if (seats === 0) info.textContent = "no players";
  /** The chart of the match: each player's score. */
  const measure = {
    name: "score",
    value(index, player) {
      const state = stateAt(index);
      return state ? (state.scores || [])[player] ?? 0 : null;
    },
  };

  return { element, overlay, geometry: geom, draw, stats, measure };
}

export function describeAction(action) {
  if (!action) return "";
  if (action.kind === "start") return "start";
  if (action.kind !== "turn") return action.kind || "";
  const parts = [];
  if (action.push) parts.push(describePush(action.push));
  else parts.push("no push");
  if (action.goto) parts.push(`GOTO ${action.goto[0]} ${action.goto[1]}`);
  const text = parts.join(", ");
  return action.code && action.code !== "OK" ? `${text} (${action.code})` : text;
}
