// The squeeze: a large face-down card whose corner peels back as its controller drags.
//
// The peel is a fold line across the card, perpendicular to the diagonal from the dragged
// corner. In the card's unit square, seen from that corner, the fold is u + v = f with
// f = progress * MAX_FOLD: the back is clipped to u + v >= f (the face shows through
// below it), and a shaded flap (the peeled part folded over) is the mirror image of
// u + v < f across the fold.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { cardFace, cardBack, cardBlank } from "./cards.js";
import { ring } from "./parts.js";

const MAX_FOLD = 1.3;
const SEND_EVERY_MS = 66; // about 15 progress messages a second

function peeled(f) {
  // The part of the unit square with u + v < f, as a polygon seen from corner (0,0).
  if (f <= 0) return [];
  if (f <= 1) return [[0, 0], [f, 0], [0, f]];
  const g = Math.min(f - 1, 1);
  return [[0, 0], [1, 0], [1, g], [g, 1], [0, 1]];
}

function kept(f) {
  if (f <= 0) return [[0, 0], [1, 0], [1, 1], [0, 1]];
  if (f <= 1) return [[f, 0], [1, 0], [1, 1], [0, 1], [0, f]];
  const g = Math.min(f - 1, 1);
  return g >= 1 ? [[1, 1], [1, 1], [1, 1]] : [[1, g], [1, 1], [g, 1]];
}

function orient(points, corner) {
  // Map corner-relative points onto the card for the dragged corner.
  return points.map(([u, v]) => [corner[1] === "r" ? 1 - u : u, corner[0] === "b" ? 1 - v : v]);
}

function poly(points) {
  return `polygon(${points.map(([u, v]) => `${(u * 100).toFixed(2)}% ${(v * 100).toFixed(2)}%`).join(",")})`;
}

/** The large squeeze card, for its controller (draggable) or a viewer (driven by events). */
export class SqueezeView {
  constructor({ onProgress, onOpen }) {
    this.onProgress = onProgress;
    this.onOpen = onOpen;
    this.timer = ring("squeeze-ring");
    this.face = h("div", { class: "sq-face" });
    this.back = h("div", { class: "sq-back" }, cardBack());
    this.flap = h("div", { class: "sq-flap" });
    this.grips = ["tl", "tr", "bl", "br"].map((c) => h("div", { class: `grip grip-${c}`, "data-corner": c }));
    this.card = h("div", { class: "sq-card" }, this.face, this.back, this.flap, ...this.grips);
    this.label = h("div", { class: "sq-label" });
    this.openBtn = h("button", { class: "btn btn-open", onclick: () => this.open() }, t("open"));
    this.el = h("div", { class: "squeeze", hidden: true },
      h("div", { class: "sq-stage" }, this.card, this.timer.el), this.label, this.openBtn);
    this.key = null;
    this.lastSent = 0;
    this.pendingSend = null;
    this.bindDrag();
  }

  /** Show (or keep showing) the squeeze described by `sq`. */
  show(sq, { mine, code, handLabel }) {
    const key = `${sq.hand}:${sq.position}:${mine}`;
    this.el.hidden = false;
    this.sq = sq;
    this.mine = mine;
    this.el.classList.toggle("mine", mine);
    this.el.dataset.hand = sq.hand;
    if (key !== this.key || this.code !== code) {
      this.key = key;
      this.code = code;
      this.face.replaceChildren(code ? cardFace(code) : cardBlank());
      this.progress = 0;
      this.corner = sq.corner || "br";
    }
    this.label.textContent = mine
      ? `${handLabel} · ${t("your_squeeze")}`
      : `${handLabel} · ${t("squeezing", { name: sq.controllerName || "?" })}`;
    this.openBtn.hidden = !mine;
    if (!mine || !this.dragging) this.setPeel(sq.progress ?? this.progress, sq.corner || this.corner);
  }

  /** Hide the squeeze. */
  hide() {
    this.el.hidden = true;
    this.key = null;
    this.dragging = false;
  }

  /** Draw the peel at `progress` (0..1) from `corner`. */
  setPeel(progress, corner) {
    this.progress = Math.max(0, Math.min(1, Number(progress) || 0));
    this.corner = ["tl", "tr", "bl", "br"].includes(corner) ? corner : "br";
    const f = this.progress * MAX_FOLD;
    this.back.style.clipPath = poly(orient(kept(f), this.corner));
    const flapPts = peeled(f).map(([u, v]) => [f - v, f - u]); // mirror across the fold
    this.flap.style.clipPath = poly(orient(flapPts, this.corner));
    this.flap.hidden = f <= 0;
    this.flap.dataset.corner = this.corner;
    this.card.dataset.corner = this.corner;
  }

  /** Count down the squeeze's time. */
  tick(left, total) {
    this.timer.set(left, total);
  }

  open() {
    if (!this.mine) return;
    this.flush();
    this.onOpen?.(this.sq.hand);
  }

  bindDrag() {
    const pointFor = (ev) => {
      const r = this.card.getBoundingClientRect();
      let u = (ev.clientX - r.left) / r.width;
      let v = (ev.clientY - r.top) / r.height;
      if (this.corner[1] === "r") u = 1 - u;
      if (this.corner[0] === "b") v = 1 - v;
      return [u, v];
    };
    this.card.addEventListener("pointerdown", (ev) => {
      if (!this.mine) return;
      const grip = ev.target.closest?.(".grip");
      const r = this.card.getBoundingClientRect();
      // A press near any corner grabs that corner; a grip makes it explicit.
      const corner = grip?.dataset.corner ??
        `${ev.clientY - r.top < r.height / 2 ? "t" : "b"}${ev.clientX - r.left < r.width / 2 ? "l" : "r"}`;
      this.dragging = true;
      this.pressed = { x: ev.clientX, y: ev.clientY, at: performance.now(), moved: false };
      this.corner = corner;
      this.card.setPointerCapture?.(ev.pointerId);
      ev.preventDefault();
    });
    this.card.addEventListener("pointermove", (ev) => {
      if (!this.dragging) return;
      if (Math.hypot(ev.clientX - this.pressed.x, ev.clientY - this.pressed.y) < 6) return;
      this.pressed.moved = true;
      const [u, v] = pointFor(ev);
      // The dragged corner sits on the pointer, so the fold is halfway: f = (u + v) / 2.
      const f = Math.max(0, (u + v) / 2);
      const p = Math.min(1, f / MAX_FOLD);
      this.setPeel(p, this.corner);
      this.queueSend();
    });
    const end = () => {
      if (!this.dragging) return;
      this.dragging = false;
      // A quick tap without a drag opens the card at once, like the 開牌 button.
      const tap = !this.pressed.moved && performance.now() - this.pressed.at < 350;
      if (tap || this.progress >= 0.98) this.open();
      else this.flush();
    };
    this.card.addEventListener("pointerup", end);
    this.card.addEventListener("pointercancel", end);
  }

  queueSend() {
    const now = performance.now();
    const wait = this.lastSent + SEND_EVERY_MS - now;
    if (wait <= 0) {
      this.flush();
    } else if (!this.pendingSend) {
      this.pendingSend = setTimeout(() => this.flush(), wait);
    }
  }

  flush() {
    clearTimeout(this.pendingSend);
    this.pendingSend = null;
    if (!this.sq) return;
    this.lastSent = performance.now();
    this.onProgress?.(this.sq.hand, Math.round(this.progress * 1000) / 1000, this.corner);
  }
}
