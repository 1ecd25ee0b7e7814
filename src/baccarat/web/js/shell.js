// The page's frame: which screen shows, the toasts over it, the offline notice, and the language
// and sound toggles every top bar carries.

import { h, mount } from "./dom.js";
import { t, getLang, setLang } from "./i18n.js";
import { isMuted, setMuted, play } from "./sound.js";
import { soundIcon } from "./icons.js";
import { OfflineNotice } from "./offline.js";

const root = document.getElementById("app");
const notice = new OfflineNotice(document.getElementById("offline"));
const toasts = document.getElementById("toasts");

let current = { name: "boot" };

export const shell = {
  /** The screen on show: "boot", "login", "lobby", "history" or "table". */
  get screen() {
    return current.name;
  },

  /**
   * Show `el` as the screen `name`. A screen that another one replaces is left first
   * (`hooks.leave` of its last show); `hooks.relang` draws it again in another language.
   */
  show(name, el, hooks = {}) {
    const from = current.name;
    if (name !== from) current.leave?.();
    current = { name, ...hooks };
    mount(root, el);
    // Another screen: the keyboard starts at its heading, not at the page's top (where the
    // control that led here was), and a screen reader says where it is.
    const lost = !document.activeElement || document.activeElement === document.body;
    if (name !== from && from !== "boot" && lost) el.querySelector("h1")?.focus({ preventScroll: true });
  },

  /** Draw the screen on show again, in the language just chosen. */
  relang() {
    current.relang?.();
    notice.draw();
    document.title = t("title");
  },

  /** Say the socket is down and being tried again (`state`: see OfflineNotice.show), or with
   * null that it is back. */
  offline(state) {
    if (state) notice.show(state);
    else notice.hide();
  },
};

/** The language and sound toggles (a fresh element each call). */
export function toolbar() {
  // The switch names the other language in that language (marked as such for readers).
  const lang = h("button", { class: "btn btn-ghost btn-lang", "data-action": "lang", title: "中文 / English",
    lang: getLang() === "en" ? "zh-Hant" : "en",
    onclick: () => setLang(getLang() === "en" ? "zh-TW" : "en") }, getLang() === "en" ? "中文" : "EN");
  const sound = h("button", { class: "btn btn-ghost btn-sound", "data-action": "sound",
    title: isMuted() ? t("sound_off") : t("sound_on"),
    onclick: () => {
      setMuted(!isMuted());
      sound.replaceChildren(soundIcon(isMuted()));
      sound.title = isMuted() ? t("sound_off") : t("sound_on");
      play("chip");
    } }, soundIcon(isMuted()));
  return h("div", { class: "toolbar" }, lang, sound);
}

/** A short message over the top bar; kind "error" for refusals. One at a time: a new one
 * replaces the last, so messages never pile up over the table. */
export function toast(text, kind = "info", ms = 2600) {
  const el = h("div", { class: `toast toast-${kind}`, role: kind === "error" ? "alert" : "status" }, text);
  toasts.replaceChildren(el);
  setTimeout(() => el.classList.add("out"), ms);
  setTimeout(() => el.remove(), ms + 500);
}
