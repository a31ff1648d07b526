// A colour per tournament player, by its place in the tournament's list of players (which the
// API gives by player id, and never changes): the standings, the chart, the matches, a player's
// page and the replays of its matches give a player the same colour, however the standings move.

import { playerColor } from "../colors.js";

export function colorsFor(players) {
  const order = new Map(players.map((p, i) => [p.id, i]));
  return (id) => playerColor(order.has(id) ? order.get(id) : 0);
}
