// The squeeze (瞇牌): the round's face-down card, large, peeled by its controller's finger.
//
// The controller drags a corner or a long side; the curl follows the finger at display rate
// and goes to the server ten times a second. Every other screen at the table draws the same
// curl from those moves with the real face under it, easing between two moves. The hands stay
// in view above the card, the caption and the 開牌 button keep off the controller's seat, and
// the one countdown of the squeeze runs beside the card. Where the card goes is
// squeezelayout.js, the controller's finger squeezedrag.js, and the curl drawn over the face
// peel.js.

import { h, reducedMotion } from "./dom.js";
import { t } from "./i18n.js";
import { cardFace, cardBack, cardBlank } from "./cards.js";
import { ring } from "./parts.js";
import { PeelCanvas } from "./peel.js";
import { isZone } from "./fold.js";
import { squeezeSpot, place } from "./squeezelayout.js";
import { bindDrag, bindKeys } from "./squeezedrag.js";
import { say, nth } from "./spoken.js";
import { Reveal, asideRect } from "./reveal.js";

const RATE = 10; // peel moves a second the server passes on, until its hello says otherwise
const EASE_MS = 100; // an onlooker eases over the time between two moves: at least this,
const EASE_MAX_MS = 400; // at most this (a server may pass on fewer moves a second)
const SPRING_MS = 240; // a card let go falls back flat

/** The large squeeze card, for its controller (draggable) or an onlooker (driven by moves). */
export class SqueezeView {
  constructor({ onProgress, onOpen, rate }) {
    this.onProgress = onProgress;
    /** Peel moves a second the server passes on (the hello's squeeze_rate): more would only
     * be coalesced, so no more are sent. */
    this.rate = rate;
    this.onOpen = onOpen;
    this.host = null;
    this.timer = ring("squeeze-ring");
    // The real face under the peel is a picture only: a screen reader hears the card when it opens.
    this.face = h("div", { class: "sq-face", "aria-hidden": "true" });
    this.canvas = h("canvas", { class: "sq-peel", "aria-hidden": "true" });
    this.peel = new PeelCanvas(this.canvas);
    this.grips = ["tl", "tr", "bl", "br", "l", "r"].map((z) => h("i", { class: `grip grip-${z}` }));
    this.card = h("div", { class: "sq-card" }, this.face, this.canvas, ...this.grips);
    this.label = h("div", { class: "sq-label" });
    this.openBtn = h("button", { class: "btn btn-open", "data-action": "open", onclick: () => this.open() }, t("open"));
    this.panel = h("div", { class: "sq-panel" }, this.label,
      h("div", { class: "sq-panel-row" }, this.timer.el, this.openBtn));
    this.backdrop = h("div", { class: "sq-backdrop" });
    this.el = h("div", { class: "squeeze", hidden: true }, this.backdrop, this.card, this.panel);
    this.key = null;
    this.zone = "br";
    this.shown = 0; // the progress drawn
    this.ease = null; // {from, to, at, span}: an onlooker's way to the latest move
    this.movedAt = 0; // when the latest move from the controller came
    this.spring = null; // {from, at}: a released card falling back
    this.drag = null;
    this.lastSent = 0;
    this.pendingSend = null;
    this.sentKey = "";
    this.frameReq = 0;
    this.size = null;
    this.scrolled = null; // {from, to}: where the page was before the squeeze scrolled it
    this.reveals = new Set();
    this.waiting = []; // what waits for the reveals to end (the result's banner)
    bindDrag(this);
    bindKeys(this);
    this.relayout = () => this.visible() && this.layout();
    addEventListener("resize", this.relayout);
    addEventListener("scroll", this.relayout, { passive: true });
    // A scroll of the user's own (not a peel on the card) keeps the page where they took it.
    this.userScrolled = (e) => {
      if (this.scrolled && !this.card.contains(e.target)) this.scrolled.user = true;
    };
    for (const kind of ["wheel", "touchmove", "keydown"]) {
      addEventListener(kind, this.userScrolled, { passive: true });
    }
  }

  /** The table screen this view lives on (its hands, seats and classes). */
  attach(host) {
    this.host = host;
    // The hands move without a resize of the window when the rows below them change height
    // (the felt grows to fill the window), or the felt's padding does (a screen drawn again
    // for a language switch takes its last styles a few frames late): the card follows them.
    this.watch = new ResizeObserver(this.relayout);
    for (const el of host.querySelectorAll(".felt, .felt-inner, .hands-row")) this.watch.observe(el);
  }

  visible() {
    return !this.el.hidden;
  }

  /** Show (or keep showing) the squeeze described by `sq`. */
  show(sq, { mine, code, handLabel, seat }) {
    const key = `${sq.hand}:${sq.position}`;
    const fresh = key !== this.key;
    const wasHidden = this.el.hidden;
    this.el.hidden = false;
    this.sq = sq;
    this.mine = mine;
    this.seat = seat;
    this.el.classList.toggle("mine", mine);
    this.el.dataset.hand = sq.hand;
    this.host?.classList.add("squeezing");
    if (fresh || this.code !== code) {
      this.code = code;
      this.face.replaceChildren(code ? cardFace(code) : cardBlank());
      this.el.dataset.face = code || "";
    }
    if (fresh) {
      this.key = key;
      this.drag = null;
      this.spring = null;
      this.ease = null;
      this.movedAt = 0;
      this.zone = isZone(sq.corner) ? sq.corner : "br";
      this.shown = Math.max(0, Math.min(1, Number(sq.progress) || 0));
      this.sentKey = "";
      if (!wasHidden && !reducedMotion()) this.card.animate([{ transform: "translateY(40px) scale(0.92)", opacity: 0 }, {}],
        { duration: 260, easing: "cubic-bezier(0.2, 0.8, 0.2, 1)" });
    }
    if (mine) {
      this.label.textContent = `${handLabel} · ${t("your_squeeze")}`;
    } else {
      // "<name> 瞇牌中": the name is the user's own, never translated.
      const [before, after] = t("squeezing", { name: "\u0001" }).split("\u0001");
      this.label.replaceChildren(`${handLabel} · ${before}`,
        h("span", { class: "sq-name", translate: "no" }, sq.controllerName || "?"), after ?? "");
    }
    this.openBtn.hidden = !mine;
    this.name(sq, mine, handLabel);
    if (fresh && mine) this.takeFocus();
    this.markHand();
    this.layout();
    if (fresh) {
      for (const r of this.reveals) r.makeRoom(asideRect(this.card, this.panel, this.host, r.hand));
    }
    if (!mine && !fresh) this.moveTo(sq.progress, sq.corner);
    this.paint();
  }

  /** The card as a screen reader has it: face down; for its controller a slider whose value is
   * how far it is peeled (squeezedrag.js's keys). */
  name(sq, mine, handLabel) {
    const card = this.card;
    const label = say("squeeze_card", { hand: handLabel, nth: nth(sq.position) });
    card.setAttribute("role", mine ? "slider" : "img");
    card.setAttribute("aria-label", mine ? `${label}${say("sep")}${say("peel_keys")}` : label);
    if (mine) {
      card.tabIndex = 0;
      card.setAttribute("aria-valuemin", "0");
      card.setAttribute("aria-valuemax", "100");
    } else {
      card.removeAttribute("tabindex");
      for (const a of ["aria-valuemin", "aria-valuemax", "aria-valuenow", "aria-valuetext"]) card.removeAttribute(a);
    }
  }

  // The controller's squeeze begins: the keyboard goes to the card, unless its user is busy
  // elsewhere (typing a chat line, another screen's panel).
  takeFocus() {
    const at = document.activeElement;
    const idle = !at || at === document.body || (this.host?.contains(at) && !at.closest("input, textarea, .fair-panel"));
    if (idle) this.card.focus({ preventScroll: true });
  }

  /** Hide the squeeze (a reveal under way goes on by itself). */
  hide() {
    if (this.el.hidden) return;
    // The keyboard was on the card: it goes to the table's heading, not the page's top.
    const focused = this.el.contains(document.activeElement);
    this.el.hidden = true;
    if (focused) this.host?.querySelector("h1")?.focus({ preventScroll: true });
    this.key = null;
    this.drag = null;
    this.spring = null;
    this.dropSend();
    this.host?.classList.remove("squeezing");
    if (this.host) delete this.host.dataset.squeezed;
    this.afterReveals(() => this.visible() || this.scrollBack());
  }

  /** Call `then` once no reveal is under way (at once if none is). */
  afterReveals(then) {
    if (!this.reveals.size) then();
    else this.waiting.push(then);
  }

  /** Put every card still turning over or flying in its hand at once (`why`: Reveal.land). */
  landReveals(why) {
    for (const r of [...this.reveals]) r.land(why);
  }

  /** Leave the screen: stop every reveal. */
  destroy() {
    this.hide();
    this.waiting = [];
    for (const r of this.reveals) r.cancel();
    removeEventListener("resize", this.relayout);
    removeEventListener("scroll", this.relayout);
    this.watch?.disconnect();
    for (const kind of ["wheel", "touchmove", "keydown"]) removeEventListener(kind, this.userScrolled);
  }

  // The hand's card under the squeeze glows in its hand; the host's data keeps it across redraws.
  markHand() {
    if (this.host && this.sq) this.host.dataset.squeezed = `${this.sq.hand}-${this.sq.position}`;
  }

  /**
   * A card opened. If it is the one on show, it turns face up here for a beat, the hand's points
   * flash, and it flies to its hand; a squeeze that starts meanwhile shows at once beside it.
   */
  opened(data, { handLabel, name }) {
    const sq = this.sq;
    if (!this.visible() || !sq || sq.hand !== data.hand || sq.position !== data.position) return;
    this.dropSend(); // the face shows: a peel move not yet sent is moot
    const reveal = new Reveal({
      host: this.host,
      hand: data.hand,
      position: data.position,
      code: data.card,
      points: data.points,
      forced: Boolean(data.forced),
      handLabel,
      name,
      from: this.card,
      onDone: () => {
        this.reveals.delete(reveal);
        if (this.reveals.size) return;
        this.host?.classList.remove("revealing");
        for (const then of this.waiting.splice(0)) then();
      },
    });
    this.host?.classList.add("revealing");
    for (const r of this.reveals) r.hurry();
    this.reveals.add(reveal);
    reveal.start();
  }

  /** An onlooker's move from the controller: ease to it over the time till the next one (or,
   * for a player who asked for reduced motion, show it at once: no frames in between). */
  moveTo(progress, zone) {
    const to = Math.max(0, Math.min(1, Number(progress) || 0));
    if (isZone(zone) && zone !== this.zone) {
      this.zone = zone;
      this.shown = 0;
    }
    if (to === this.shown && !this.ease) return;
    const now = performance.now();
    if (reducedMotion()) {
      this.movedAt = now;
      this.setPeel(to);
      return;
    }
    // The gap between the last two moves sets the pace: the card keeps moving until the next.
    const gap = this.movedAt ? now - this.movedAt : EASE_MS;
    this.movedAt = now;
    const span = Math.max(EASE_MS, Math.min(EASE_MAX_MS, gap));
    this.ease = { from: this.shown, to, at: now, span };
    this.paint();
  }

  /** Draw the peel at `progress` from `zone` at once (no easing). */
  setPeel(progress, zone) {
    if (isZone(zone)) this.zone = zone;
    this.shown = Math.max(0, Math.min(1, Number(progress) || 0));
    this.ease = null;
    this.paint();
  }

  /** Count down the squeeze's time. */
  tick(left, total) {
    this.timer.set(left, total);
  }

  open() {
    if (!this.mine || !this.sq) return;
    this.spring = null;
    this.dropSend(); // opened: a peel move not yet sent is moot (and would exceed the rate)
    this.onOpen?.(this.sq.hand);
  }

  // ---- layout -------------------------------------------------------------------------------

  // Scroll the page for the squeeze, remembering where it was: the page goes back there once
  // the squeezes and their reveals are over (unless its user scrolled it meanwhile).
  scrollBy(dy) {
    const before = scrollY;
    this.scrolled ??= { from: before, user: false };
    scrollBy(0, dy);
    // Whether the page moved (it may already be as far as it goes).
    return scrollY !== before;
  }

  scrollBack() {
    const s = this.scrolled;
    this.scrolled = null;
    if (s && !s.user) scrollTo(0, s.from);
  }

  /**
   * Place the card and its panel in the largest free part of the window below (or above) the
   * hands, centred on the table, the panel beside or under the card and off the controller's
   * seat (squeezelayout.js).
   */
  layout() {
    const host = this.host;
    if (!host) return;
    const best = squeezeSpot(host, this.panel, { seat: this.seat, hand: this.sq?.hand, scrollBy: (dy) => this.scrollBy(dy) });
    if (!best) return;
    this.panel.classList.toggle("side", best.mode === "side");
    this.panel.classList.toggle("below", best.mode === "below");
    place(this.card, best.card);
    place(this.panel, best.panel);
    this.sizeCard(best.card.w, best.card.h);
  }

  sizeCard(w, h) {
    const dpr = Math.min(2, devicePixelRatio || 1);
    const key = `${w}x${h}@${dpr}`;
    if (this.size === key) return;
    this.size = key;
    this.peel.resize(w, h, Math.round(w * 0.45), dpr);
    this.peel.setBack(null);
    backImage(w, h, dpr).then((img) => {
      if (this.size !== key) return;
      this.peel.setBack(img);
      this.paint();
    }, () => {});
  }

  // ---- drawing ------------------------------------------------------------------------------

  /** Draw on the next frame (once, however often asked). */
  paint() {
    if (this.frameReq) return;
    this.frameReq = requestAnimationFrame((now) => this.frame(now));
  }

  frame(now) {
    this.frameReq = 0;
    if (this.el.hidden) return;
    let more = false;
    if (this.ease) {
      const k = Math.min(1, (now - this.ease.at) / this.ease.span);
      this.shown = k >= 1 ? this.ease.to : this.ease.from + (this.ease.to - this.ease.from) * k;
      if (k >= 1) this.ease = null;
      else more = true;
    }
    if (this.spring) {
      const k = Math.min(1, (now - this.spring.at) / SPRING_MS);
      this.shown = k >= 1 ? 0 : Math.round(this.spring.from * (1 - k) ** 2 * 1000) / 1000;
      // (flat again: that last move goes when the rate allows, like every other)
      this.queueSend();
      if (k >= 1) {
        this.spring = null;
      } else {
        more = true;
      }
    }
    this.peel.draw(this.zone, this.shown);
    // What is drawn, for anyone comparing two screens: the zone and the progress.
    this.el.dataset.peel = `${this.zone}:${this.shown.toFixed(3)}`;
    const pct = String(Math.round(this.shown * 100));
    if (this.mine && this.card.getAttribute("aria-valuenow") !== pct) {
      this.card.setAttribute("aria-valuenow", pct);
      this.card.setAttribute("aria-valuetext", say("peeled", { n: pct }));
    }
    if (more) this.paint();
  }

  // ---- the moves sent -----------------------------------------------------------------------

  queueSend() {
    const wait = this.lastSent + 1000 / (this.rate?.() || RATE) - performance.now();
    if (wait <= 0) this.flush();
    else if (!this.pendingSend) this.pendingSend = setTimeout(() => this.flush(), wait);
  }

  dropSend() {
    clearTimeout(this.pendingSend);
    this.pendingSend = null;
  }

  flush() {
    this.dropSend();
    if (!this.sq || !this.mine) return;
    const key = `${this.zone}:${this.shown}`;
    if (key === this.sentKey) return;
    this.sentKey = key;
    this.onProgress?.(this.sq.hand, this.shown, this.zone);
    // The gap counts from when the move went out, so that a busy page never sends the next
    // one sooner than the rate allows.
    this.lastSent = performance.now();
  }
}

/** The card's back as a bitmap of w x h css px (drawn once per size). */
function backImage(w, h, dpr) {
  const svg = cardBack();
  svg.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  svg.setAttribute("width", String(Math.round(w * dpr)));
  svg.setAttribute("height", String(Math.round(h * dpr)));
  const img = new Image();
  img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(svg))}`;
  return img.decode().then(() => {
    const c = document.createElement("canvas");
    c.width = Math.round(w * dpr);
    c.height = Math.round(h * dpr);
    c.getContext("2d").drawImage(img, 0, 0, c.width, c.height);
    return c;
  });
}
