// Motion between ticks: a pawn slides to its new cell, a pushed Labyrinth line slides in, a
// Puoribor sub-board turns. Only from one tick to the next, at speeds where a tick lasts long
// enough to see it, and never for readers who asked their system for reduced motion.

/** The fastest playback speed (ticks a second) that still animates. */
export const FASTEST_ANIMATED = 8;

const reduced = typeof window.matchMedia === "function"
  ? window.matchMedia("(prefers-reduced-motion: reduce)")
  : null;

/** How long the motion into a tick lasts at `speed`, in ms: 0 for none. */
export function motionMs(speed) {
  if ((reduced && reduced.matches) || speed > FASTEST_ANIMATED) return 0;
  return Math.min(320, 600 / speed);
}

/**
 * Animates an SVG `element` into its place through `points`: offsets [dx, dy] (in the board's
 * units) from where it is drawn, the last one normally [0, 0].
 */
export function slideThrough(element, points, ms) {
  if (!element || !ms || points.length < 2 || points.every(([dx, dy]) => !dx && !dy)) return;
  element.animate(points.map(([dx, dy]) => ({ transform: `translate(${dx}px, ${dy}px)` })),
    { duration: ms * Math.min(3, Math.max(1, (points.length - 1) / 2)), easing: "ease-in-out" });
}

/** Animates an SVG `element` from `offset` [dx, dy] away into its place. */
export function slideFrom(element, [dx, dy], ms) {
  slideThrough(element, [[dx, dy], [0, 0]], ms);
}

/** Animates an SVG `element` from turned `degrees` about (cx, cy) into its place. */
export function turnFrom(element, degrees, [cx, cy], ms) {
  if (!element || !ms) return;
  element.style.transformOrigin = `${cx}px ${cy}px`;
  element.animate([{ transform: `rotate(${degrees}deg)` }, { transform: "rotate(0deg)" }],
    { duration: ms * 1.5, easing: "ease-in-out" });
}
