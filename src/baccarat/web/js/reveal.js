// The reveal: a squeezed card that opens turns face up in the big view for a beat, its hand's
// points flash, and it flies into its hand.
//
// It is a copy of the big card laid over the screen, so the table goes on underneath: the next
// squeeze shows at once (the copy then steps aside, or flies at once where there is no room),
// and the server never waits for it. Every step is a Web Animation, so the whole beat can be
// slowed down or sped up as one (and ends with its animations). For a player who asked for
// reduced motion the steps that move are cut to nothing: the card shows face up for its beat
// and is then in its hand, nothing turns or flies.

import { h, reducedMotion } from "./dom.js";
import { t } from "./i18n.js";
import { cardFace } from "./cards.js";
import { buzz } from "./device.js";

const FLIP_MS = 360;
const HOLD_MS = 800;
const ASIDE_MS = 280;
const FLY_MS = 480;
// With no room beside the next squeeze (a phone), the card flies at once and quickly: it
// would otherwise sit over the card now being squeezed while that card's countdown runs.
const RUSH_MS = 260;
const RUSH_HOLD_MS = 300;
const EASE = "cubic-bezier(0.2, 0.8, 0.2, 1)";

/** A place beside the big card, toward its hand, for an opened card to finish its beat in. */
export function asideRect(card, panel, host, hand) {
  if (!host) return null;
  const c = card.getBoundingClientRect();
  const target = host.querySelector(`.hand[data-hand="${hand}"]`)?.getBoundingClientRect();
  if (!target) return null;
  const right = target.left + target.width / 2 > c.left + c.width / 2;
  const p = panel.getBoundingClientRect();
  const room = right ? innerWidth - c.right - 24 : c.left - 24;
  let top = c.top;
  let bottom = c.bottom;
  // Keep clear of the caption and the button when they sit on that side: above them, or
  // below them when they stand at the card's head (a card between the hands).
  if ((right && p.left >= c.right) || (!right && p.right <= c.left)) {
    if (p.top - c.top >= c.bottom - p.bottom) bottom = Math.min(bottom, p.top - 12);
    else top = Math.max(top, p.bottom + 12);
  }
  const w = Math.min(c.width * 0.72, room - 16, (bottom - top) / 1.4);
  if (w < c.width * 0.4) return null;
  const hgt = w * 1.4;
  const left = right ? c.right + 16 + (room - 16 - w) / 2 : c.left - 16 - w - (room - 16 - w) / 2;
  top += (bottom - top - hgt) / 2;
  return { left, top, width: w, height: hgt };
}

/** One opened card's beat, from the big view into its hand. */
export class Reveal {
  constructor({ host, hand, position, code, points, forced, handLabel, from, onDone }) {
    Object.assign(this, { host, hand, position, code, points, forced, handLabel, onDone });
    this.from = from.getBoundingClientRect();
    // The card as it looked when it opened: the face with the peel over it.
    const peel = from.querySelector("canvas");
    const copy = document.createElement("canvas");
    if (peel?.width) {
      copy.width = peel.width;
      copy.height = peel.height;
      copy.getContext("2d").drawImage(peel, 0, 0);
      copy.style.cssText = `position:absolute;left:${peel.style.left};top:${peel.style.top};` +
        `width:${peel.style.width};height:${peel.style.height}`;
    }
    this.card = h("div", { class: "rv-card" },
      h("div", { class: "rv-side rv-back" }, cardFace(code), copy),
      h("div", { class: "rv-side rv-front" }, cardFace(code)));
    this.caption = h("div", { class: "rv-caption" },
      forced ? h("div", { class: "rv-forced" }, t("time_up_opened")) : null,
      h("div", { class: "rv-points" }, t("reveal_points", { hand: handLabel, n: points })));
    // data-step says where the beat is (flip, hold, aside, fly), for anyone watching the page.
    // A picture only: the live region (announcer.js) names the card.
    this.el = h("div", { class: "sq-reveal", "aria-hidden": "true", "data-hand": hand, "data-forced": String(forced), "data-step": "flip",
      style: { left: `${this.from.left}px`, top: `${this.from.top}px`, width: `${this.from.width}px`,
        height: `${this.from.height}px` } }, this.card, this.caption);
    // The table stays dimmed through the beat when no squeeze follows (css: only then).
    this.dim = h("div", { class: "rv-dim" });
    this.room = undefined; // undefined: no squeeze came after; null: no room beside it; else a rect
    this.hurried = false;
    this.anims = new Set();
    this.done = false;
  }

  /** Play the beat. */
  async start() {
    const host = this.host ?? document.body;
    host.dataset.landing = `${this.hand}-${this.position}`;
    host.append(this.dim, this.el);
    try {
      await this.play(this.card, [{ transform: "rotateY(0deg) scale(1)" },
        { transform: "rotateY(90deg) scale(1.06)", offset: 0.5 },
        { transform: "rotateY(180deg) scale(1)" }], FLIP_MS, EASE);
      this.flash();
      buzz();
      if (this.room === null && !this.forced) {
        await this.fly(RUSH_MS);
        return;
      }
      this.el.dataset.step = "hold";
      this.play(this.caption, [{ opacity: 0, transform: "translate(-50%, 8px) scale(0.9)" },
        { opacity: 1, transform: "translate(-50%, 0) scale(1)" }], 220, EASE);
      // The whole beat here, unless a squeeze starts meanwhile (then the rest of it beside
      // that card, or straight to its hand where there is no room) or another card opens.
      // (The timer's words get a short beat even with no room: the player did not open it.)
      const beside = Boolean(this.room);
      const beat = this.room === null ? RUSH_HOLD_MS : HOLD_MS;
      const held = beside || this.hurried ? 0 : await this.hold(beat);
      if (beside && !this.hurried) await this.aside(Math.max(250, HOLD_MS - held - ASIDE_MS));
      await this.fly(this.room === null ? RUSH_MS : FLY_MS);
    } catch {
      // Cancelled: the screen went away.
    } finally {
      this.finish();
    }
  }

  /** A squeeze started meanwhile: finish beside it (`rect`), or fly at once (null). */
  makeRoom(rect) {
    if (this.room !== undefined || this.done) return;
    this.room = rect;
    if (rect === null) {
      // Face up now (the flip jumps to its end) and on its way before the next frame.
      for (const a of this.anims) if (a.effect?.target === this.card) a.finish();
      if (this.forced) {
        // The timer's words still get their short beat.
        const done = Number(this.holding?.currentTime) || 0;
        this.holding?.effect.updateTiming({ duration: Math.max(done, RUSH_HOLD_MS) });
        return;
      }
      this.el.dataset.step = "fly";
    }
    this.cut();
  }

  /** Another card opened: this one goes to its hand now. */
  hurry() {
    this.hurried = true;
    this.cut();
  }

  // End the hold under way now, remembering how long it held.
  cut() {
    if (!this.holding) return;
    this.heldFor = Number(this.holding.currentTime) || 0;
    this.holding.finish();
  }

  /** In its hand now: the result is due, and waits for no flight (a starved device's
   * stretches over seconds). `why`: "late" (the page read the result late) or "beat". */
  land(why) {
    this.el.dataset.landed = why;
    for (const a of this.anims) a.cancel();
    this.finish();
  }

  /** Stop at once (the screen is leaving). */
  cancel() {
    for (const a of this.anims) a.cancel();
    this.finish();
  }

  play(el, frames, duration, easing = "linear") {
    const a = el.animate(frames, { duration: reducedMotion() ? 0 : duration, easing, fill: "forwards" });
    this.anims.add(a);
    // A cancelled animation rejects its promise: fine for the steps nobody waits for.
    const done = a.finished.finally(() => this.anims.delete(a));
    done.catch(() => {});
    return done;
  }

  // The hold is an animation too (of nothing), so it keeps time with the rest; it resolves to
  // how long it held (less when cut short).
  hold(ms) {
    if (ms <= 0) return Promise.resolve(0);
    const a = this.el.animate([{ opacity: 1 }, { opacity: 1 }], { duration: ms });
    this.holding = a;
    this.anims.add(a);
    this.heldFor = ms;
    const done = a.finished.then(() => this.heldFor).finally(() => {
      this.holding = null;
      this.anims.delete(a);
    });
    done.catch(() => {});
    return done;
  }

  async aside(rest) {
    this.el.dataset.step = "aside";
    const r = this.room;
    const f = this.from;
    const k = r.width / f.width;
    const dx = r.left + r.width / 2 - (f.left + f.width / 2);
    const dy = r.top + r.height / 2 - (f.top + f.height / 2);
    this.at = `translate(${dx}px, ${dy}px) scale(${k})`;
    await this.play(this.el, [{ transform: "none" }, { transform: this.at }], ASIDE_MS, EASE);
    await this.hold(rest);
  }

  // The hand's points flash where they are shown.
  flash() {
    const pts = this.host?.querySelector(`.hand[data-hand="${this.hand}"] .hand-points`);
    if (!pts) return;
    const r = pts.getBoundingClientRect();
    const badge = h("div", { class: `rv-flash rv-flash-${this.hand}`, "aria-hidden": "true",
      style: { left: `${r.left + r.width / 2}px`, top: `${r.top + r.height / 2}px` } }, String(this.points));
    (this.host ?? document.body).append(badge);
    const a = badge.animate([
      { transform: "translate(-50%, -50%) scale(1)", opacity: 0 },
      { transform: `translate(-50%, -50%) scale(${reducedMotion() ? 1 : 2.1})`, opacity: 1, offset: 0.3 },
      { transform: "translate(-50%, -50%) scale(1)", opacity: 1, offset: 0.75 },
      { transform: "translate(-50%, -50%) scale(1)", opacity: 0 },
    ], { duration: 1100, easing: "ease-out" });
    a.finished.finally(() => badge.remove()).catch(() => {});
  }

  async fly(ms = FLY_MS) {
    this.el.dataset.step = "fly";
    const target = this.host?.querySelector(`.hand[data-hand="${this.hand}"] .card[data-i="${this.position}"]`);
    this.play(this.caption, [{ opacity: 1 }, { opacity: 0 }], 160);
    this.play(this.dim, [{ opacity: 1 }, { opacity: 0 }], ms);
    if (!target) {
      await this.play(this.el, [{ opacity: 1 }, { opacity: 0 }], Math.min(200, ms));
      return;
    }
    const r = target.getBoundingClientRect();
    const f = this.from;
    // A third card lies sideways in its hand.
    const sideways = target.classList.contains("third");
    const w = sideways ? r.height : r.width;
    const k = w / f.width;
    const dx = r.left + r.width / 2 - (f.left + f.width / 2);
    const dy = r.top + r.height / 2 - (f.top + f.height / 2);
    const end = `translate(${dx}px, ${dy}px) scale(${k})${sideways ? " rotate(90deg)" : ""}`;
    await this.play(this.el, [{ transform: this.at ?? "none" }, { transform: end }], ms, EASE);
  }

  finish() {
    if (this.done) return;
    this.done = true;
    this.el.remove();
    this.dim.remove();
    if (this.host?.dataset.landing === `${this.hand}-${this.position}`) delete this.host.dataset.landing;
    this.onDone?.();
  }
}
