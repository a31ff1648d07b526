// Ratings over the tournament: one line per player through its rating after each completed
// round, with the 95% error bar at its latest point.

import { h, s } from "../dom.js";

const W = 640;
const H = 300;
const PAD = { left: 48, right: 190, top: 14, bottom: 30 };

function niceStep(span) {
  const raw = span / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((v) => raw <= v) || raw;
}

export function ratingsChart(history, aliasOf, colorOf) {
  if (!history.length) return h("p", { class: "list-empty" }, "Ratings appear here once a round is complete.");
  const players = new Map();
  for (const { round, ratings } of history) {
    for (const r of ratings) {
      if (!players.has(r.player)) players.set(r.player, []);
      players.get(r.player).push({ round, rating: r.rating, error95: r.error95 });
    }
  }
  const rounds = history.map((r) => r.round);
  const minRound = Math.min(...rounds);
  const maxRound = Math.max(...rounds);
  let lo = Infinity;
  let hi = -Infinity;
  for (const points of players.values()) {
    for (const p of points) {
      lo = Math.min(lo, p.rating - (p.error95 || 0));
      hi = Math.max(hi, p.rating + (p.error95 || 0));
    }
  }
  if (hi - lo < 1) {
    hi += 50;
    lo -= 50;
  }
  const step = niceStep(hi - lo);
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil(hi / step) * step;
  const x = (round) => PAD.left + (maxRound === minRound ? (W - PAD.left - PAD.right) / 2
    : ((round - minRound) / (maxRound - minRound)) * (W - PAD.left - PAD.right));
  const y = (v) => PAD.top + (1 - (v - lo) / (hi - lo)) * (H - PAD.top - PAD.bottom);

  const svg = s("svg", { class: "chart", id: "ratings-chart", viewBox: `0 0 ${W} ${H}`, width: "100%", role: "img", "aria-label": "ratings after each round" });
  const axis = s("g", { class: "axis" });
  for (let v = lo; v <= hi + 1e-9; v += step) {
    axis.append(s("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), "stroke-dasharray": "2 4" }));
    axis.append(s("text", { x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end" }, Math.round(v)));
  }
  for (const round of rounds) {
    axis.append(s("text", { x: x(round), y: H - 10, "text-anchor": "middle" }, `round ${round}`));
  }
  svg.append(axis);
  const legend = s("g", { class: "legend" });
  const last = [...players.entries()].map(([player, points]) => [player, points[points.length - 1]]);
  last.sort((a, b) => b[1].rating - a[1].rating);
  last.forEach(([player], i) => {
    const points = players.get(player);
    const color = colorOf(player);
    const end = points[points.length - 1];
    if (end.error95) {
      // Side by side right of the last round, so that overlapping bars stay readable.
      const bx = x(end.round) + 10 + i * 7;
      const [top, bottom] = [y(end.rating + end.error95), y(end.rating - end.error95)];
      svg.append(s("g", { class: "error-bar", stroke: color },
        s("line", { x1: bx, x2: bx, y1: top, y2: bottom }),
        s("line", { x1: bx - 3, x2: bx + 3, y1: top, y2: top }),
        s("line", { x1: bx - 3, x2: bx + 3, y1: bottom, y2: bottom }),
        s("line", { x1: bx - 3, x2: bx + 3, y1: y(end.rating), y2: y(end.rating) }),
        s("title", {}, `${aliasOf(player)}: ${end.rating.toFixed(0)} ± ${end.error95.toFixed(0)} (95%)`)));
    }
    svg.append(s("polyline", { class: "series", stroke: color, points: points.map((p) => `${x(p.round)},${y(p.rating)}`).join(" ") }));
    for (const p of points) {
      svg.append(s("circle", { cx: x(p.round), cy: y(p.rating), r: 3.5, fill: color },
        s("title", {}, `${aliasOf(player)}, round ${p.round}: ${p.rating.toFixed(0)}${p.error95 ? ` ± ${p.error95.toFixed(0)}` : ""}`)));
    }
    const ly = PAD.top + 8 + i * 18;
    legend.append(s("rect", { x: W - PAD.right + 54, y: ly - 8, width: 10, height: 10, rx: 2, fill: color }));
    legend.append(s("text", { x: W - PAD.right + 70, y: ly + 1 }, `${aliasOf(player)} ${end.rating.toFixed(0)}`));
  });
  svg.append(legend);
  return svg;
}
