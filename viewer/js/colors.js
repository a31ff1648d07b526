// One colour per seat, or per tournament player, the same on every page: distinct in hue and
// lightness, and none of them the red that marks errors. Ten, for Labyrinth's ten seats.

const PALETTE = [
  "#2563eb", "#ea8a00", "#16a34a", "#9333ea", "#0891b2",
  "#db2777", "#65a30d", "#78716c", "#1e3a8a", "#a16207",
];

/** Colours given to the seats of the replay shown, in place of the palette's. */
let seatColors = [];

export function playerColor(index) {
  if (seatColors[index]) return seatColors[index];
  return PALETTE[((index % PALETTE.length) + PALETTE.length) % PALETTE.length];
}

/**
 * Colours the seats of the replay on this page with `colors` (one per seat): a tournament's
 * match shows each player in its tournament colour.
 */
export function useSeatColors(colors) {
  seatColors = colors.slice();
}

export const ERROR_COLOR = "#dc2626";
