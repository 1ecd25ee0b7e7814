// Table chat and emotes (聊天/表情): a drawer with the table's last messages, a line to write
// in, the emote row, and a bubble over the speaker's seat. Emotes are drawn here as SVG (no
// emoji font is needed). Muting a user hides their messages in this browser only.

import { h, s, mount } from "./dom.js";
import { t } from "./i18n.js";
import { toast } from "./shell.js";

export const EMOTES = ["clap", "laugh", "cry", "angry", "thumbs_up", "fire", "lucky", "wow"];
const KEPT = 30;
const MAX_CHARS = 120;
const MUTED_KEY = "baccarat.muted";

function face(...features) {
  return [s("circle", { cx: 12, cy: 12, r: 10, fill: "#ffcc4d", stroke: "#c98a00", "stroke-width": 1 }), ...features];
}

const eyes = [s("circle", { cx: 8.5, cy: 10, r: 1.4, fill: "#3b2a00" }), s("circle", { cx: 15.5, cy: 10, r: 1.4, fill: "#3b2a00" })];

const DRAW = {
  laugh: () => face(s("path", { d: "M6.5 9.5q2-2 4 0M13.5 9.5q2-2 4 0", stroke: "#3b2a00", fill: "none", "stroke-width": 1.4 }),
    s("path", { d: "M6.5 13h11q-1 5-5.5 5t-5.5-5z", fill: "#7a1f1f" })),
  cry: () => face(...eyes, s("path", { d: "M8.5 17q3.5-3 7 0", stroke: "#3b2a00", fill: "none", "stroke-width": 1.4 }),
    s("path", { d: "M7 12q-1.5 3 0 4q1.5-1 0-4z", fill: "#4fa3ff" }), s("path", { d: "M17 12q-1.5 3 0 4q1.5-1 0-4z", fill: "#4fa3ff" })),
  angry: () => [s("circle", { cx: 12, cy: 12, r: 10, fill: "#ff7043", stroke: "#b23c17", "stroke-width": 1 }),
    s("path", { d: "M6 7.5l4 2M18 7.5l-4 2", stroke: "#3b1000", "stroke-width": 1.6 }), ...eyes,
    s("path", { d: "M8.5 17q3.5-3 7 0", stroke: "#3b1000", fill: "none", "stroke-width": 1.6 })],
  wow: () => face(...eyes, s("ellipse", { cx: 12, cy: 16, rx: 2.2, ry: 2.8, fill: "#7a1f1f" })),
  thumbs_up: () => [s("path", { d: "M3 11h4v10H3zM8 11l4-8q2 0 2 2.5L13 10h6q2 0 1.6 2.2l-1.5 7Q18.7 21 17 21H8z",
    fill: "#ffcc4d", stroke: "#c98a00", "stroke-width": 1.2, "stroke-linejoin": "round" })],
  clap: () => [s("path", { d: "M5 13l6-7q1.4-1 2.2.4L9 12l5-5q1.5-1 2.3.5L12 12.5l4-3.5q1.5-.8 2 .8l-5.5 6q-3 3-6 1.5T5 13z",
    fill: "#ffcc4d", stroke: "#c98a00", "stroke-width": 1.1, "stroke-linejoin": "round" }),
  s("path", { d: "M17 3l1 2M20 5l-2 1M14 2l.3 2", stroke: "#f1d58f", "stroke-width": 1.4 })],
  fire: () => [s("path", { d: "M12 2q1 4 4 6.5T18 15a6 6 0 0 1-12 0q0-3 2.5-5 0 3 2 3.5Q9 8 12 2z", fill: "#ff6d00", stroke: "#c43c00", "stroke-width": 1 }),
    s("path", { d: "M12 12q2 2 2 4a2 2 0 0 1-4 0q0-2 2-4z", fill: "#ffd54f" })],
  lucky: () => [...[[12, 7], [17, 12], [12, 17], [7, 12]].map(([cx, cy]) => s("circle", { cx, cy, r: 4.2, fill: "#2e9d4a", stroke: "#1b5e20", "stroke-width": 1 })),
    s("path", { d: "M12 12q2 6 6 9", stroke: "#1b5e20", fill: "none", "stroke-width": 1.6 })],
};

/** An emote as a small SVG picture. */
export function emoteSVG(name) {
  const draw = DRAW[name];
  return s("svg", { viewBox: "0 0 24 24", class: "emote", role: "img", "aria-label": t(`emote_${name}`),
    "data-emote": name }, ...(draw ? draw() : []));
}

/** The user ids muted in this browser. */
export function mutedUsers() {
  try {
    const ids = JSON.parse(localStorage.getItem(MUTED_KEY) || "[]");
    return new Set(Array.isArray(ids) ? ids.map(Number) : []);
  } catch {
    return new Set();
  }
}

function setMuted(ids) {
  localStorage.setItem(MUTED_KEY, JSON.stringify([...ids]));
}

/** The chat drawer of the table screen: `to.send(type, fields)` says, `to.refuse(err)` shows a
 * refusal, `to.userId()` is who reads. */
export class ChatPanel {
  constructor(to) {
    this.to = to;
    this.lastId = null;
    this.loaded = false;
    this.unread = 0;
    this.messages = [];
    this.canSpeak = false;
    this.list = h("ol", { class: "chat-list", "aria-live": "polite" });
    this.input = h("input", { class: "chat-input", name: "chat", maxlength: MAX_CHARS, autocomplete: "off",
      placeholder: t("chat_placeholder") });
    this.form = h("form", { class: "chat-form", onsubmit: (ev) => {
      ev.preventDefault();
      this.send({ text: this.input.value });
    } }, this.input, h("button", { class: "btn btn-small btn-send", type: "submit", "data-action": "chat-send" }, t("send")));
    this.emotes = h("div", { class: "chat-emotes" }, EMOTES.map((name) => h("button", {
      class: "btn-emote", type: "button", "data-emote": name, title: t(`emote_${name}`),
      onclick: () => this.send({ emote: name }),
    }, emoteSVG(name))));
    this.mutedLine = h("div", { class: "chat-muted" });
    this.hint = h("div", { class: "chat-hint" });
    this.badge = h("span", { class: "chat-badge", hidden: true });
    this.toggle = h("button", { class: "btn btn-ghost btn-small btn-chat", "data-action": "chat",
      onclick: () => this.setOpen(this.el.hidden) }, t("chat"), this.badge);
    this.el = h("aside", { class: "chat-panel", hidden: true, "aria-label": t("chat") },
      h("header", null, h("b", null, t("chat")),
        h("button", { class: "btn btn-ghost btn-small", type: "button", "data-action": "chat-close",
          "aria-label": t("close"), onclick: () => this.setOpen(false) }, "×")),
      this.list, this.mutedLine, this.hint, this.emotes, this.form);
  }

  setOpen(open) {
    this.el.hidden = !open;
    // On a wide screen the table makes room for the panel beside it (css), so that it covers
    // no seat and no control.
    this.el.parentElement?.classList.toggle("chat-open", open);
    if (open) {
      this.unread = 0;
      this.badge.hidden = true;
      this.list.scrollTop = this.list.scrollHeight;
    }
  }

  send(fields) {
    const type = fields.emote ? "emote" : "say";
    if (type === "say" && !fields.text.trim()) return;
    this.to.send(type, fields).then(() => {
      if (type === "say") this.input.value = "";
    }, (err) => this.to.refuse(err));
  }

  /** Draw the whole list from the table's view (only when it changed). */
  update(view) {
    const speak = view.me.seat !== null;
    if (speak !== this.canSpeak || this.hint.textContent === "") {
      this.canSpeak = speak;
      this.input.disabled = !speak;
      for (const b of this.el.querySelectorAll(".btn-emote, .btn-send")) b.disabled = !speak;
      this.hint.textContent = speak ? "" : t("chat_seated_only");
      this.hint.hidden = speak;
    }
    const msgs = view.chat ?? [];
    const last = msgs.length ? msgs[msgs.length - 1].id : null;
    if (this.loaded && last === this.lastId) return;
    // The first list (the snapshot's) is old news; later ones count what is new.
    const fresh = this.loaded ? msgs.filter((m) => m.id > (this.lastId ?? 0)).length : 0;
    this.loaded = true;
    this.lastId = last;
    this.messages = msgs.slice(-KEPT);
    this.redraw();
    if (this.el.hidden && fresh) {
      this.unread += fresh;
      this.badge.textContent = String(this.unread);
      this.badge.hidden = false;
    }
  }

  redraw() {
    const muted = mutedUsers();
    const me = this.to.userId();
    mount(this.list, this.messages.filter((m) => !muted.has(m.user_id)).map((m) => h("li", {
      class: `chat-msg${m.user_id === me ? " mine" : ""}`, "data-user": m.user_id, "data-id": m.id },
    h("button", { class: "chat-name", translate: "no", type: "button", title: m.user_id === me ? "" : t("mute_user", { name: m.name }),
      disabled: m.user_id === me, onclick: () => this.mute(m.user_id, m.name) }, m.name),
    m.emote ? emoteSVG(m.emote) : h("span", { class: "chat-text", translate: "no" }, m.text))));
    const names = new Map(this.messages.map((m) => [m.user_id, m.name]));
    mount(this.mutedLine, [...muted].filter((id) => names.has(id)).map((id) => h("button", {
      class: "chat-unmute", type: "button", "data-user": id, onclick: () => this.unmute(id) },
    t("unmute_user", { name: names.get(id) }))));
    this.list.scrollTop = this.list.scrollHeight;
  }

  mute(userId, name) {
    const muted = mutedUsers();
    muted.add(userId);
    setMuted(muted);
    toast(t("muted_user", { name }));
    this.redraw();
  }

  unmute(userId) {
    const muted = mutedUsers();
    muted.delete(userId);
    setMuted(muted);
    this.redraw();
  }
}
