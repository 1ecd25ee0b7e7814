// The controller's finger on the squeeze card: a press grabs the corner or side under it, the
// fold follows the pull toward the card's middle, and letting go opens the card (dragged far
// enough, flicked, or a tap) or lets it fall back flat. Pointer events, so a finger works the
// same as a mouse. And the keys of a player without a pointer: arrows peel, Enter opens.

import { frame, curlRadius, depthFor, progressFor, depthForTravel, tipTravel, zoneAt } from "./fold.js";

const OPEN_AT = 0.95; // let go this far and the card opens
// A flick opens it too: let go while the finger still pulls this fast (px/ms over the last
// FLICK_MS), once the card is at least FLICK_FROM peeled (a slip of the finger is no flick).
const FLICK_SPEED = 0.5;
const FLICK_MS = 100;
const FLICK_FROM = 0.2;
const TAP_MS = 350;

/** Let the controller peel `view`'s card (a SqueezeView) with a finger or the mouse. */
export function bindDrag(view) {
  const card = view.card;
  card.addEventListener("pointerdown", (ev) => {
    if (!view.mine || !view.sq) return;
    const r = card.getBoundingClientRect();
    const zone = zoneAt(ev.clientX - r.left, ev.clientY - r.top, r.width, r.height);
    if (zone !== view.zone) view.shown = 0;
    view.zone = zone;
    view.spring = null;
    const f = frame(zone, r.width, r.height);
    const radius = curlRadius(r.width);
    const travel = tipTravel(depthFor(view.shown, f), radius);
    const at = performance.now();
    view.drag = { x: ev.clientX, y: ev.clientY, at, moved: false, f, radius, travel,
      trail: [[at, travel]] };
    card.setPointerCapture?.(ev.pointerId);
    card.classList.add("held");
    ev.preventDefault();
  });
  card.addEventListener("pointermove", (ev) => {
    const d = view.drag;
    if (!d) return;
    const dx = ev.clientX - d.x;
    const dy = ev.clientY - d.y;
    if (!d.moved && Math.hypot(dx, dy) < 6) return;
    d.moved = true;
    // Only the pull toward the card's middle counts: the fold keeps its direction.
    const travel = d.travel - (dx * d.f.n[0] + dy * d.f.n[1]);
    const now = performance.now();
    d.trail.push([now, travel]);
    while (d.trail.length > 2 && now - d.trail[1][0] > FLICK_MS) d.trail.shift();
    const p = progressFor(depthForTravel(travel, d.radius), d.f);
    view.shown = Math.round(p * 1000) / 1000;
    view.paint();
    view.queueSend();
  });
  const end = () => {
    const d = view.drag;
    if (!d) return;
    view.drag = null;
    card.classList.remove("held");
    // A quick tap without a drag opens the card at once, like the 開牌 button.
    const tap = !d.moved && performance.now() - d.at < TAP_MS;
    if (tap || view.shown >= OPEN_AT || (view.shown >= FLICK_FROM && flickSpeed(d.trail) >= FLICK_SPEED)) {
      view.open();
    } else if (view.shown > 0) {
      view.spring = { from: view.shown, at: performance.now() };
      view.paint();
    }
  };
  card.addEventListener("pointerup", end);
  card.addEventListener("pointercancel", end);
}

const KEY_STEP = 0.1; // an arrow key peels this much more (or less) of the card
const KEY_MOST = 0.9; // the keys peel up to here: opening is Enter's
const KEY_STEPS = { ArrowUp: 1, ArrowRight: 1, PageUp: 3, ArrowDown: -1, ArrowLeft: -1, PageDown: -3 };

/** Let the controller peel `view`'s card from the keyboard (the card is a slider while it is
 * theirs): the arrows peel it bit by bit from the corner last used, Home lays it flat, Enter,
 * Space or End opens it. Each step goes to the other screens as a finger's move would. */
export function bindKeys(view) {
  view.card.addEventListener("keydown", (ev) => {
    if (!view.mine || !view.sq || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (ev.key === "Enter" || ev.key === " " || ev.key === "End") {
      ev.preventDefault();
      view.open();
      return;
    }
    const step = ev.key === "Home" ? -10 : KEY_STEPS[ev.key];
    if (!step) return;
    ev.preventDefault();
    view.spring = null;
    view.shown = Math.round(Math.max(0, Math.min(KEY_MOST, view.shown + step * KEY_STEP)) * 1000) / 1000;
    view.paint();
    view.queueSend();
  });
}

/** How fast (px/ms) the finger pulled over the drag's latest samples [[time, travel], ...]. */
export function flickSpeed(trail) {
  if (trail.length < 2) return 0;
  const [t0, s0] = trail[0];
  const [t1, s1] = trail[trail.length - 1];
  // A finger that stopped before letting go is no flick: the last sample must be recent.
  if (performance.now() - t1 > FLICK_MS) return 0;
  return t1 > t0 ? (s1 - s0) / (t1 - t0) : 0;
}
