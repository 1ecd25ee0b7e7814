// A mouse's click is a pointerdown, a pointerup and then a click on the same element. A
// screen drawn again in between (a lobby line, another player's chip) replaces the element
// under the pointer and the click is lost. Screens the server's messages redraw wait for the
// press to end. A finger's tap needs no wait: the browser clicks whatever is under it when it
// lifts.

const HOLD_MS = 5000; // a press held longer than this (a slow drag, a lost pointerup) waits no more
let pressedAt = 0; // when the pointer went down (0: not pressed)
const waiting = new Set();

function flush() {
  if (pressedAt) return;
  const due = [...waiting];
  waiting.clear();
  for (const fn of due) fn();
}

function release() {
  pressedAt = 0;
  // After the click that follows this pointerup, in the same task.
  setTimeout(flush, 0);
}

addEventListener("pointerdown", (ev) => {
  if (ev.pointerType === "touch") return;
  // The squeeze's card is dragged for seconds and draws itself: the table goes on under it.
  if (ev.target instanceof Element && ev.target.closest(".squeeze")) return;
  const at = performance.now();
  pressedAt = at;
  setTimeout(() => {
    if (pressedAt === at) release();
  }, HOLD_MS);
}, true);
addEventListener("pointerup", release, true);
addEventListener("pointercancel", release, true);

/** Run `fn` now, or once the pointer pressed on the page is let go and its click is done
 * (a function that waits twice runs once, when the press ends). */
export function whenReleased(fn) {
  if (!pressedAt) fn();
  else waiting.add(fn);
}
