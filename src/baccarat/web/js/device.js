// What the phone itself does for a player: the screen stays on while seated, and a short
// buzz when a squeezed card turns over. Both are quiet no-ops where the browser has neither.

let wanted = false;
let lock = null;

/** Keep the screen awake (true) while the player sits at a table, or let it sleep (false). */
export function keepAwake(on) {
  wanted = on;
  if (on) acquire();
  else if (lock) {
    const held = lock;
    lock = null;
    held.release().catch(() => {});
  }
}

function acquire() {
  if (!wanted || lock || document.visibilityState !== "visible" || !navigator.wakeLock) return;
  navigator.wakeLock.request("screen").then((sentinel) => {
    if (!wanted) {
      sentinel.release().catch(() => {});
      return;
    }
    lock = sentinel;
    // The browser lets go when the page is hidden: take it again on coming back.
    sentinel.addEventListener("release", () => {
      if (lock === sentinel) lock = null;
    });
  }, () => {});
}

document.addEventListener("visibilitychange", acquire);

/** Whether the screen is being kept awake now (the browser tests read it). */
export function awake() {
  return lock !== null;
}

/** A short vibration, where the device has one. */
export function buzz(ms = 30) {
  // (only after a touch: before one the browser refuses it, with a warning)
  if (navigator.userActivation?.hasBeenActive) navigator.vibrate?.(ms);
}
