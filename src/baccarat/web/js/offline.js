// The offline notice: what the page says while its socket is down. Calmly: the page tries
// again by itself and the server keeps a seat for its reconnect grace, so the notice says
// which seat waits and for how long, and when the next try comes; once the grace has run
// out, that the seat was let go. It shows only after a moment down (a table that moves to
// another node is followed in less), and over any screen, the boot screen included.

import { h, mount } from "./dom.js";
import { t, getLang, setLang, named } from "./i18n.js";

const SHOW_AFTER = 1000; // ms down before the notice shows

export class OfflineNotice {
  /** `el`: the notice's element (hidden while connected). */
  constructor(el) {
    this.el = el;
    this.state = null;
    this.showTimer = null;
    this.ticker = null;
  }

  /**
   * Say the page is reconnecting. `state.read()` tells what to say, read again each second:
   * `away` (the seat kept: {table_id, seat, label, grace, left}, or null) and `nextAt` (when
   * the next try comes, on Date.now()'s clock); `state.now` shows the notice at once rather
   * than after a moment.
   */
  show(state) {
    this.state = state;
    if (!this.el.hidden) {
      this.draw();
      return;
    }
    if (this.showTimer) return;
    this.showTimer = setTimeout(() => this.reveal(), state.now ? 0 : SHOW_AFTER);
  }

  reveal() {
    this.showTimer = null;
    if (!this.state) return;
    this.el.hidden = false;
    this.draw();
    clearInterval(this.ticker);
    this.ticker = setInterval(() => this.draw(), 1000);
  }

  /** Connected again. */
  hide() {
    this.state = null;
    clearTimeout(this.showTimer);
    this.showTimer = null;
    clearInterval(this.ticker);
    this.el.hidden = true;
  }

  /** Draw the notice again (each second, and in a language just chosen). */
  draw() {
    if (!this.state || this.el.hidden) return;
    const { away, nextAt } = this.state.read();
    const wait = Math.ceil(((nextAt ?? 0) - Date.now()) / 1000);
    const lang = h("button", { class: "btn btn-ghost btn-small btn-lang", "data-action": "lang",
      lang: getLang() === "en" ? "zh-Hant" : "en",
      onclick: () => setLang(getLang() === "en" ? "zh-TW" : "en") }, getLang() === "en" ? "中文" : "EN");
    mount(this.el, h("div", { class: "offline-card", "data-away": away ? (away.left > 0 ? "kept" : "released") : "none" },
      h("div", { class: "offline-mark", "aria-hidden": "true" }),
      h("h2", null, t("reconnecting")),
      away ? h("p", { class: `offline-seat${away.left > 0 ? "" : " released"}` }, seatLine(away)) : null,
      h("p", { class: "offline-calm" }, t("reconnect_calm")),
      h("p", { class: "offline-next muted" }, wait > 0 ? t("retry_in", { n: wait }) : t("retrying")),
      lang));
  }
}

// The seat kept (and how long yet), or let go once the grace has run out.
function seatLine(away) {
  if (away.left <= 0) return t("seat_released_away", { n: Math.round(away.grace) });
  const seat = away.seat === 0 ? t("dealer_seat") : t("seat_n", { n: away.seat });
  return t("seat_kept", { table: named(away.label, away.table_id), seat, n: away.left });
}
