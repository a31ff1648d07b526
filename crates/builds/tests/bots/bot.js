// A Quoridor bot for the builds' tests: walks a shortest path to its goal (walls counted,
// pawns jumped as the rules say).
const DX = [1, -1, 0, 0], DY = [0, 0, 1, -1];
let tokens = [], waiting = null, buffer = '';
let n, me, m, px, py, walls = [];

function next() {
  return new Promise((resolve) => {
    if (tokens.length) resolve(tokens.shift()); else waiting = resolve;
  });
}
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  const lines = buffer.split('\n');
  buffer = lines.pop();
  for (const line of lines) for (const t of line.trim().split(/\s+/)) if (t) tokens.push(parseInt(t, 10));
  while (waiting && tokens.length) { const w = waiting; waiting = null; w(tokens.shift()); }
});
process.stdin.on('end', () => process.exit(0));

const goal = (x, y) => n === 2 ? (me === 0 ? y === m - 1 : y === 0) : [y === m - 1, x === 0, y === 0, x === m - 1][me];
const inside = (x, y) => x >= 0 && y >= 0 && x < m && y < m;
const blocked = (x, y, dx, dy) => walls.some((w) =>
  (w[2] === 1 && dy === 0 && w[0] === Math.min(x, x + dx) && w[1] <= y && y <= w[1] + 1) ||
  (w[2] === 0 && dx === 0 && w[1] === Math.min(y, y + dy) && w[0] <= x && x <= w[0] + 1));
const occupied = (x, y) => px.some((v, p) => v === x && py[p] === y);

function distances() {
  const dist = new Array(m * m).fill(-1), queue = [];
  for (let c = 0; c < m * m; c++) if (goal(c % m, Math.floor(c / m))) { dist[c] = 0; queue.push(c); }
  while (queue.length) {
    const c = queue.shift(), x = c % m, y = Math.floor(c / m);
    for (let d = 0; d < 4; d++) {
      const nx = x + DX[d], ny = y + DY[d];
      if (inside(nx, ny) && dist[ny * m + nx] < 0 && !blocked(x, y, DX[d], DY[d])) {
        dist[ny * m + nx] = dist[c] + 1;
        queue.push(ny * m + nx);
      }
    }
  }
  return dist;
}

function moves() {
  const out = [], x = px[me], y = py[me];
  for (let d = 0; d < 4; d++) {
    const dx = DX[d], dy = DY[d], nx = x + dx, ny = y + dy;
    if (!inside(nx, ny) || blocked(x, y, dx, dy)) continue;
    if (!occupied(nx, ny)) { out.push([nx, ny]); continue; }
    const bx = nx + dx, by = ny + dy;
    if (inside(bx, by) && !blocked(nx, ny, dx, dy)) { if (!occupied(bx, by)) out.push([bx, by]); continue; }
    for (const s of [-1, 1]) {
      const sx = dy * s, sy = dx * s, cx = nx + sx, cy = ny + sy;
      if (inside(cx, cy) && !blocked(nx, ny, sx, sy) && !occupied(cx, cy)) out.push([cx, cy]);
    }
  }
  return out;
}

async function main() {
  n = await next(); me = await next(); m = await next();
  px = new Array(n); py = new Array(n);
  for (let p = 0; p < n; p++) { px[p] = await next(); py[p] = await next(); await next(); }
  for (;;) {
    if ((await next()) === -1) process.exit(0);
    for (let p = 0; p < n; p++) { px[p] = await next(); py[p] = await next(); await next(); }
    const count = await next();
    walls = [];
    for (let i = 0; i < count; i++) walls.push([await next(), await next(), await next(), await next()]);
    const dist = distances();
    let best = null;
    for (const c of moves()) {
      const d = dist[c[1] * m + c[0]];
      if (d >= 0 && (best === null || d < dist[best[1] * m + best[0]])) best = c;
    }
    process.stdout.write(best ? `${best[0]} ${best[1]}\n` : '0 0\n');
  }
}
main();
