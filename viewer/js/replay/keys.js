// Keyboard shortcuts of the replay viewer (listed on the page, under the controls).

export const SHORTCUTS = [
  ["space", "play / pause"],
  ["← →", "previous / next tick (with shift: 10 ticks)"],
  ["home end", "first / last tick"],
  ["p n", "previous / next error"],
  ["[ ]", "previous / next turn of the debugged player"],
  ["f", "full screen"],
  ["- +", "slower / faster"],
  ["0…9", "debug the player of seat 0…9"],
];

/**
 * A drop-down gives the keyboard back to the page once a choice is made in it: the arrows and
 * space then step and play again instead of changing the choice.
 */
export function releaseAfterChoice(select) {
  select.addEventListener("change", () => select.blur());
}

export function installKeys(actions) {
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    const typing = target && (target.tagName === "TEXTAREA" || target.tagName === "SELECT" ||
      (target.tagName === "INPUT" && target.type !== "range"));
    if (typing) return;
    const big = event.shiftKey ? 10 : 1;
    const handlers = {
      " ": () => actions.toggle(),
      ArrowLeft: () => actions.step(-big),
      ArrowRight: () => actions.step(big),
      Home: () => actions.first(),
      End: () => actions.last(),
      n: () => actions.nextError(),
      p: () => actions.previousError(),
      "[": () => actions.previousTurn(),
      "]": () => actions.nextTurn(),
      f: () => actions.fullscreen(),
      "+": () => actions.faster(1),
      "=": () => actions.faster(1),
      "-": () => actions.faster(-1),
    };
    let handler = handlers[event.key];
    // Seats are numbered from 0 on the page, and a Labyrinth match has up to 10.
    if (!handler && /^[0-9]$/.test(event.key)) handler = () => actions.pick(Number(event.key));
    if (!handler) return;
    // The slider and buttons have their own meaning for these keys; ours wins on this page.
    event.preventDefault();
    handler();
  });
}
