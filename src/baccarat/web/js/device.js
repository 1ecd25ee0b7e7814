// What the phone itself does for a player: the screen stays on while seated, and a short
// buzz when a squeezed card turns over. Both are quiet no-ops where the browser has neither.

// One lock at most: the seat is noted on every draw of the table, so a request still in
// flight is waited for rather than made again.
let seated = false;
let shown = false; // the table's screen is on show
let lock = null;
let asking = false;

const wanted = () => seated && shown && document.visibilityState === "visible";

/** Keep the screen awake (true) while the player sits at a table, or let it sleep (false). */
export function keepAwake(on) {
  seated = on;
  settle();
}

/** Whether the table's screen is on show: in the lobby a seated player's screen may sleep. */
export function atTable(on) {
  shown = on;
  settle();
}

// Take the lock or let it go, whichever is wanted now.
function settle() {
  if (!wanted()) {
    const held = lock;
    lock = null;
    held?.release().catch(() => {});
    return;
  }
  if (lock || asking || !navigator.wakeLock) return;
  asking = true;
  navigator.wakeLock.request("screen").then((sentinel) => {
    asking = false;
    lock = sentinel;
    // The browser lets go when the page is hidden: it is taken again on coming back.
    sentinel.addEventListener("release", () => {
      if (lock === sentinel) lock = null;
    });
    settle(); // let go at once if it stopped being wanted meanwhile
  }, () => {
    asking = false;
  });
}

document.addEventListener("visibilitychange", settle);

/** Whether the screen is being kept awake now (the browser tests read it). */
export function awake() {
  return lock !== null;
}

/** A short vibration, where the device has one. */
export function buzz(ms = 30) {
  // (only after a touch: before one the browser refuses it, with a warning)
  if (navigator.userActivation?.hasBeenActive) navigator.vibrate?.(ms);
}
