// The result's badges: each seat's net floated on the felt beside its seat, on the side facing
// the table's middle, off every name, coin count and area, and following the seats while the
// result shows.

import { h, fmt, signed } from "./dom.js";
import { t } from "./i18n.js";

/** The badges of one table screen (`screen`: its felt and rows, read as they are drawn). */
export class ResultBadges {
  constructor(screen) {
    this.screen = screen;
    this.watch = null; // what follows the rows while badges show (a ResizeObserver)
  }

  get felt() {
    return this.screen.felt;
  }

  /** Stop following the rows (leaving the screen). */
  destroy() {
    this.watch?.disconnect();
  }

  /** After each redraw. */
  update(view) {
    // A result's badges go with the result (a fast table's next round comes sooner).
    if (view.phase !== "result") for (const el of this.felt.querySelectorAll(".float-net")) el.remove();
    // A redraw that moved a seat without resizing a row (a seat taken, a name changed).
    else if (this.felt.querySelector(".float-net")) this.layout();
  }

  /** Whether a badge shows by `seat`. */
  shownAt(seat) {
    return Boolean(this.felt.querySelector(`.float-net[data-seat="${seat}"]`));
  }

  /**
   * Each seat's net as a badge beside its seat, on the side facing the table's middle (above a
   * bettor on the bettor's screen, below on the dealer's; beside the dealer seat), never over
   * a name, and at most as wide as the seat so that neighbours' badges never meet.
   */
  place(badges, still) {
    const left = badges.until - performance.now();
    for (const { seat, delta, fee } of badges.list) {
      // Badges live on the felt, not in the seat, so a redraw of the seats keeps them.
      const el = h("div", { class: `float-net ${delta > 0 ? "up" : "down"}${still ? " still" : ""}`, "data-seat": seat },
        h("b", null, signed(delta)), fee ? h("small", null, t("commission_short", { n: fmt(fee) })) : null);
      this.felt.append(el);
      setTimeout(() => el.remove(), Math.max(0, left));
    }
    this.layout();
    // The badges follow their seats while they show: the table's rows move when the roads,
    // the hands or a seat change size, or the felt's padding does (a screen drawn again for a
    // language switch takes its last styles a few frames late). Watched, not measured every
    // frame: a loop of frames kept a software-drawn page busy for the whole result.
    if (!this.watch) {
      this.watch = new ResizeObserver(() => {
        if (this.felt.querySelector(".float-net")) this.layout();
      });
      const s = this.screen;
      for (const el of [s.felt, s.felt.querySelector(".felt-inner"), s.dealerRail, s.queueEl, s.handsRow, s.areasRow, s.seatsRow]) {
        if (el) this.watch.observe(el);
      }
    }
  }

  /** A box on the felt, from its padding box (where the badges are placed), or null. */
  feltBox(el) {
    const q = el?.getBoundingClientRect();
    if (!q?.width) return null;
    const f = this.felt.getBoundingClientRect();
    const left = q.left - f.left - this.felt.clientLeft;
    const top = q.top - f.top - this.felt.clientTop;
    return { left, top, right: left + q.width, bottom: top + q.height };
  }

  /** Whether a badge of size `b` at (x, y) stays inside the felt and off every box in `avoid`. */
  clearSpot(x, y, b, avoid) {
    const inside = x >= 4 && x + b.width <= this.felt.clientWidth - 4 && y >= 4 &&
      y + b.height <= this.felt.clientHeight - 4;
    return inside && avoid.every((a) => x + b.width <= a.left || x >= a.right || y + b.height <= a.top || y >= a.bottom);
  }

  /** Where the dealer's badge goes: beside the dealer's seat (right, else left), else above or
   * below it, else in the seat's own right end (a phone's narrow table: its middle, else its
   * foot), else beside the queue's line, wherever it stays inside the felt and off that line,
   * the dealer's name, level and coins, the hands, the areas and the banner. */
  dealerSpot(x0, y0, r, b) {
    const strip = this.feltBox(this.screen.queueEl);
    const own = this.screen.el.querySelectorAll('.seat[data-seat="0"] .seat-name, .seat[data-seat="0"] .seat-meta');
    // Nor over a hand, an area or the banner (a short phone's seat has the hands right under it).
    const table = this.screen.el.querySelectorAll(".hands-row .hand, .areas .area, .result-banner:not([hidden])");
    const avoid = [strip, ...[...own, ...table].map((el) => this.feltBox(el))].filter(Boolean);
    const midY = y0 + r.height / 2 - b.height / 2;
    const midX = x0 + r.width / 2 - b.width / 2;
    const spots = [[x0 + r.width + 8, midY], [x0 - 8 - b.width, midY], [midX, y0 - b.height - 4],
      [midX, y0 + r.height + 4], [x0 + r.width - b.width - 6, midY],
      [x0 + r.width - b.width - 6, y0 + r.height - b.height - 4]];
    if (strip) {
      // Beside the queue's line, on the row between the hands and the seat.
      const y = (strip.top + strip.bottom) / 2 - b.height / 2;
      spots.push([strip.right + 8, y], [strip.left - 8 - b.width, y]);
    }
    return spots.find(([x, y]) => this.clearSpot(x, y, b, avoid)) ?? this.leastCovering(spots, b, avoid);
  }

  /** Of `spots` inside the felt, the one whose badge of size `b` covers least of `avoid`. */
  leastCovering(spots, b, avoid) {
    const inside = spots.filter(([x, y]) => x >= 4 && x + b.width <= this.felt.clientWidth - 4 &&
      y >= 4 && y + b.height <= this.felt.clientHeight - 4);
    const covered = ([x, y]) => avoid.reduce((sum, a) =>
      sum + Math.max(0, Math.min(x + b.width, a.right) - Math.max(x, a.left)) *
        Math.max(0, Math.min(y + b.height, a.bottom) - Math.max(y, a.top)), 0);
    let best = null;
    for (const spot of inside) if (best === null || covered(spot) < covered(best)) best = spot;
    return best;
  }

  /** Where a bettor's badge goes, small and without the commission (the banner says the
   * viewer's): in the lane between the seat and the areas (sizes.css); else over the seat's
   * avatar (a phone's narrow seat); else in the seat's foot; else on the far side of the seat;
   * always off the areas (a badge in an area reads as that area's result), off the seat's
   * name, coins and bets, and off the badges placed before it. */
  bettorSpot(el, box) {
    const s = this.feltBox(box);
    const avoid = [...this.screen.areasRow.querySelectorAll(".area"),
      ...box.querySelectorAll(".seat-name, .seat-meta, .seat-bets .pill"),
      ...this.felt.querySelectorAll(".float-net.placed")]
      .map((a) => this.feltBox(a)).filter(Boolean);
    el.classList.add("in-seat");
    const b = { width: el.offsetWidth, height: el.offsetHeight };
    const inward = (s.top + s.bottom) / 2 > this.felt.clientHeight / 2;
    const x = (s.left + s.right) / 2 - b.width / 2;
    const spots = [[x, inward ? s.top - b.height - 1 : s.bottom + 1]];
    const face = this.feltBox(box.querySelector(".avatar"));
    if (face) spots.push([(face.left + face.right) / 2 - b.width / 2, (face.top + face.bottom) / 2 - b.height / 2]);
    spots.push([Math.max(s.left + 2, s.right - b.width - 6), s.bottom - b.height - 2],
      [x, inward ? s.bottom + 4 : s.top - b.height - 4]);
    return spots.find(([px, py]) => this.clearSpot(px, py, b, avoid)) ?? spots[0];
  }

  /** Put each badge by its seat again: seats move when the screen is drawn again (a seat
   * that gains a line moves its row). */
  layout() {
    const all = this.felt.querySelectorAll(".float-net");
    for (const el of all) el.classList.remove("placed");
    for (const el of all) {
      const seat = Number(el.dataset.seat);
      const box = this.screen.el.querySelector(`.seat[data-seat="${seat}"]`);
      if (!box) continue;
      const r = box.getBoundingClientRect();
      if (seat !== 0) el.style.maxWidth = `${r.width}px`;
      let x;
      let y;
      if (seat === 0) {
        // The badge's own size, not its box in the middle of its entrance (it scales up).
        const b = { width: el.offsetWidth, height: el.offsetHeight };
        const s = this.feltBox(box);
        [x, y] = this.dealerSpot(s.left, s.top, r, b) ?? [s.left + r.width / 2 - b.width / 2, s.bottom + 4];
        // (over the seat's own lines it is opaque, so they do not show through)
        el.classList.toggle("in-seat", x >= s.left && x + b.width <= s.right && y >= s.top && y + b.height <= s.bottom);
      } else {
        [x, y] = this.bettorSpot(el, box);
      }
      el.style.left = `${Math.max(4, Math.min(this.felt.clientWidth - el.offsetWidth - 4, x))}px`;
      el.style.top = `${Math.max(4, y)}px`;
      el.classList.add("placed");
    }
  }
}
