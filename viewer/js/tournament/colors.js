// A colour per tournament player, fixed by its place in the first standings shown, so the
// table, chart and matches agree.

import { playerColor } from "../colors.js";

export function colorsFor(standings, players) {
  const order = new Map();
  for (const row of standings.rows) order.set(row.player, order.size);
  for (const p of players) if (!order.has(p.id)) order.set(p.id, order.size);
  return (id) => playerColor(order.has(id) ? order.get(id) : 0);
}
