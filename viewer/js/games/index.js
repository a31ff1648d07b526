// The renderer of each game, by the name the replay header gives. A renderer module exports
// `create(replay)`, returning {element, overlay, geometry, draw(index), stats(index, player),
// measure}, and `describeAction(action)`; `overlay` is an SVG group the #draw overlay is drawn
// into, in the coordinates `geometry.center(x, y)` gives for cells (null for games drawn as
// text), and the optional `measure` is {name, value(index, player)}: a number per player that
// the page charts over the match.

import * as quoridor from "./quoridor.js";
import * as puoribor from "./puoribor.js";
import * as domino from "./domino.js";
import * as labyrinth from "./labyrinth.js";
import * as text from "./text.js";

const RENDERERS = { quoridor, puoribor, domino, labyrinth };

export function rendererFor(game) {
  return RENDERERS[game] || text;
}
