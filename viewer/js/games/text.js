// Any game this viewer cannot draw: the tick's action and state as text, so that a replay of a
// newer game still shows what happened rather than a blank page.

import { h } from "../dom.js";

export function create(replay) {
  const note = h("p", { class: "muted" },
    `This viewer cannot draw ${replay.game ? `"${replay.game}"` : "this game"}; the state of each tick is shown as the referee recorded it.`);
  const action = h("pre", { class: "state-text action" });
  const state = h("pre", { class: "state-text" });
  const element = h("div", { class: "text-board" }, note, h("h4", {}, "Action"), action, h("h4", {}, "State"), state);

  function draw(index) {
    const tick = replay.ticks[index];
    action.textContent = tick ? JSON.stringify(tick.action) : "";
    state.textContent = tick ? JSON.stringify(tick.state, null, 2) : "";
  }

  return { element, overlay: null, geometry: null, draw, stats: () => "" };
}

export function describeAction(action) {
  if (!action) return "";
  return action.kind || JSON.stringify(action);
}
