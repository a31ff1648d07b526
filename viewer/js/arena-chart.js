// A bot's rating over time as an inline SVG chart: μ with its ±σ band, and the score μ − 3σ
// the leaderboard ranks by, one point per rated game; where a new version took over, a line
// marked with its number (its σ is reset there, so the band widens).

import { s, h } from "./dom.js";
import * as fmt from "./format.js";

const WIDTH = 640;
const HEIGHT = 220;
const PAD = { left: 40, right: 12, top: 12, bottom: 24 };

/** Maps values to the chart's pixels. */
function scales(points) {
  const lows = points.map((p) => Math.min(p.score, p.mu - p.sigma));
  const highs = points.map((p) => p.mu + p.sigma);
  let low = Math.floor(Math.min(...lows));
  let high = Math.ceil(Math.max(...highs));
  if (high - low < 1) high = low + 1;
  const span = Math.max(points.length - 1, 1);
  const x = (i) => PAD.left + (i / span) * (WIDTH - PAD.left - PAD.right);
  const y = (v) => PAD.top + (1 - (v - low) / (high - low)) * (HEIGHT - PAD.top - PAD.bottom);
  return { x, y, low, high };
}

function path(points, x, y, value) {
  return points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(value(p)).toFixed(1)}`).join(" ");
}

function band(points, x, y) {
  const upper = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.mu + p.sigma).toFixed(1)}`);
  const lower = points.map((p, i) => `L${x(i).toFixed(1)},${y(p.mu - p.sigma).toFixed(1)}`).reverse();
  return `${upper.join(" ")} ${lower.join(" ")} Z`;
}

function axis(low, high, y) {
  const ticks = [];
  const step = Math.max(1, Math.ceil((high - low) / 5));
  for (let v = Math.ceil(low); v <= high; v += step) {
    ticks.push(s("line", { class: "grid", x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v) }),
      s("text", { class: "tick", x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end" }, String(v)));
  }
  return ticks;
}

/** The lines where a new version's first rated game is. */
function versionMarks(points, x) {
  const marks = [];
  points.forEach((p, i) => {
    if (i === 0 || p.version !== points[i - 1].version) {
      marks.push(s("line", { class: "version-mark", x1: x(i), x2: x(i), y1: PAD.top, y2: HEIGHT - PAD.bottom }),
        s("text", { class: "version-label", x: x(i) + 3, y: HEIGHT - PAD.bottom + 14 }, `v${p.version}`));
    }
  });
  return marks;
}

/** The chart of `points` (`[{version, mu, sigma, score, at}]`, oldest first). */
export function ratingChart(points) {
  if (!points.length) return h("p", { class: "list-empty", id: "rating-chart" }, "no rated game yet");
  const { x, y, low, high } = scales(points);
  const last = points[points.length - 1];
  const dots = points.length <= 120
    ? points.map((p, i) => s("circle", { class: "score-dot", cx: x(i), cy: y(p.score), r: 2.2 },
      s("title", {}, `v${p.version} · ${fmt.date(p.at)} · μ ${p.mu.toFixed(2)} ± ${p.sigma.toFixed(2)}, score ${p.score.toFixed(2)}`)))
    : [];
  const svg = s("svg", {
    class: "rating-chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img",
    "aria-label": `rating over ${points.length} rated games: score now ${last.score.toFixed(2)}`,
  },
  axis(low, high, y),
  s("path", { class: "sigma-band", d: band(points, x, y) }),
  s("path", { class: "mu-line", d: path(points, x, y, (p) => p.mu) }),
  s("path", { class: "score-line", d: path(points, x, y, (p) => p.score) }),
  versionMarks(points, x),
  dots);
  const legend = h("p", { class: "chart-legend muted" },
    h("span", { class: "key mu" }, "μ ± σ"), " ", h("span", { class: "key score" }, "score μ − 3σ"),
    ` · ${fmt.plural(points.length, "rated game")} · now ${last.score.toFixed(2)} (μ ${last.mu.toFixed(2)} ± ${last.sigma.toFixed(2)})`);
  return h("div", { id: "rating-chart", dataset: { points: points.length } }, svg, legend);
}
