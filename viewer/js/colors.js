// One colour per seat, the same on every page: distinct in hue and lightness, and none of them
// the red that marks errors. Ten, for Labyrinth's ten seats.

const PALETTE = [
  "#2563eb", "#ea8a00", "#16a34a", "#9333ea", "#0891b2",
  "#db2777", "#65a30d", "#78716c", "#1e3a8a", "#a16207",
];

export function playerColor(index) {
  return PALETTE[((index % PALETTE.length) + PALETTE.length) % PALETTE.length];
}

export const ERROR_COLOR = "#dc2626";
