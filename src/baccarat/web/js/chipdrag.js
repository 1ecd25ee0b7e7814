// Chips in motion: dragging one from the tray onto an area, and one flying to its area when
// a bet is accepted. Pointer events, so a finger works the same as a mouse.

import { h, reducedMotion } from "./dom.js";
import { chipSVG } from "./chips.js";

const DRAG_START_PX = 6; // below this a press is a tap, which the chip's click handles

function areaAt(x, y) {
  return document.elementFromPoint(x, y)?.closest(".area[data-area]") ?? null;
}

function ghost(value, x, y, cls) {
  const el = h("div", { class: `chip-ghost ${cls}` }, chipSVG(value));
  el.style.left = `${x}px`;
  el.style.top = `${y}px`;
  document.body.append(el);
  return el;
}

/** Let `button` (a tray chip of `value`) be dragged; onDrop(area, x, y) when let go on an area. */
export function draggable(button, value, onDrop) {
  button.addEventListener("pointerdown", (down) => {
    if (down.button !== 0) return;
    const id = down.pointerId;
    let el = null;
    let over = null;
    const mark = (area) => {
      if (area === over) return;
      over?.classList.remove("drop-target");
      over = area;
      over?.classList.add("drop-target");
    };
    const move = (ev) => {
      if (ev.pointerId !== id) return;
      if (!el && Math.hypot(ev.clientX - down.clientX, ev.clientY - down.clientY) < DRAG_START_PX) return;
      if (!el) el = ghost(value, ev.clientX, ev.clientY, "dragging");
      el.style.left = `${ev.clientX}px`;
      el.style.top = `${ev.clientY}px`;
      mark(areaAt(ev.clientX, ev.clientY));
    };
    const end = (ev) => {
      if (ev.pointerId !== id) return;
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", end);
      window.removeEventListener("pointercancel", end);
      mark(null);
      if (!el) return;
      el.remove();
      const area = ev.type === "pointerup" ? areaAt(ev.clientX, ev.clientY) : null;
      if (area) onDrop(area.dataset.area, ev.clientX, ev.clientY);
    };
    // Listening on the window (not capturing the pointer) lets elementFromPoint see the areas.
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", end);
    window.addEventListener("pointercancel", end);
  });
}

/** A chip of `value` flies from the point (x, y) to the element `to`, then disappears. */
export function flyChip(value, x, y, to) {
  if (!to || reducedMotion()) return;
  const r = to.getBoundingClientRect();
  const el = ghost(value, x, y, "flying");
  const dx = r.left + r.width / 2 - x;
  const dy = r.top + r.height * 0.75 - y;
  const anim = el.animate(
    [
      { transform: "translate(-50%, -50%) scale(1)" },
      { transform: `translate(calc(-50% + ${dx}px), calc(-50% + ${dy}px)) scale(0.6)`, opacity: 0.9 },
    ],
    { duration: 380, easing: "cubic-bezier(0.3, 0.7, 0.3, 1)" },
  );
  anim.onfinish = () => el.remove();
  anim.oncancel = () => el.remove();
}
