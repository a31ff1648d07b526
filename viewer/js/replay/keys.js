// Keyboard shortcuts of the replay viewer (listed on the page, under the controls).

export const SHORTCUTS = [
  ["space", "play / pause"],
  ["← →", "previous / next tick (with shift: 10 ticks)"],
  ["home end", "first / last tick"],
  ["p n", "previous / next error"],
  ["[ ]", "previous / next turn of the debugged player"],
  ["f", "full screen"],
  ["- +", "slower / faster"],
  ["1…8", "debug player 1…8"],
];

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
    if (!handler && /^[1-8]$/.test(event.key)) handler = () => actions.pick(Number(event.key) - 1);
    if (!handler) return;
    // The slider and buttons have their own meaning for these keys; ours wins on this page.
    event.preventDefault();
    handler();
  });
}
