// The operator console: log in with a password and an authenticator code, then the live
// tables, users and their actions, rounds by table and time, shoes, round records, the
// audit, the risk view and the operator log.

import { h, mount } from "../js/dom.js";
import { api } from "../js/net.js";
import { getLang, setLang, t, refusal } from "./words.js";
import { tablesView, usersView, userView, logView, grantsView } from "./views.js";
import { riskView } from "./risk.js";
import { roundView } from "./rounds.js";
import { shoesView } from "./shoes.js";
import { loadNames } from "./names.js";

const root = document.getElementById("console");
const TABS = ["tables", "users", "grants", "records", "shoes", "risk", "log"];
const state = { operator: null, refresh: 0 };

function topbar() {
  const op = state.operator;
  return h("header", { class: "cs-top" },
    h("h1", null, t("title")),
    op ? h("nav", { class: "cs-tabs" }, TABS.map((tab) =>
      h("a", { href: `#/${tab}`, class: `cs-tab${location.hash.startsWith(`#/${tab}`) ? " on" : ""}`, "data-tab": tab }, t(tab)))) : null,
    h("div", { class: "cs-who" },
      op ? h("span", { class: "cs-op", "data-role": op.role }, `${op.username} · ${t(op.role)}`) : null,
      h("button", { class: "btn btn-ghost btn-small", "data-action": "lang",
        onclick: () => { setLang(getLang() === "en" ? "zh-TW" : "en"); show(); } }, getLang() === "en" ? "中文" : "EN"),
      op ? h("button", { class: "btn btn-ghost btn-small", "data-action": "logout", onclick: logout }, t("logout")) : null));
}

function loginForm(enrol) {
  const msg = h("p", { class: "cs-error", role: "alert" });
  const user = h("input", { name: "username", autocomplete: "username", required: true });
  const pass = h("input", { name: "password", type: "password", autocomplete: "current-password", required: true });
  const code = h("input", { name: "code", inputmode: "numeric", autocomplete: "one-time-code", maxlength: 6, pattern: "[0-9]{6}" });
  const form = h("form", { class: "cs-login panel" },
    h("h2", null, t("login")),
    h("label", null, t("username"), user),
    h("label", null, t("password"), pass),
    enrol ? h("div", { class: "cs-enrol" },
      h("p", null, t("enrol")),
      h("img", { src: enrol.qr, alt: "QR", class: "cs-qr" }),
      h("p", { class: "muted" }, `${t("secret")}: `, h("code", { class: "cs-secret" }, enrol.secret))) : null,
    h("label", null, t("code"), code),
    msg,
    h("button", { class: "btn btn-gold", type: "submit" }, t("login")));
  if (enrol) {
    user.value = enrol.username;
    pass.value = enrol.password;
  }
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { username: user.value, password: pass.value, code: code.value };
    try {
      const got = await api("/api/admin/login", body);
      state.operator = got.operator;
      location.hash = "#/tables";
      show();
    } catch (err) {
      if (err.code === "totp_enrol") {
        mount(root, topbar(), h("main", null, loginForm({ ...err.details, username: user.value, password: pass.value })));
        root.querySelector("input[name=code]").focus();
        return;
      }
      msg.textContent = refusal(err);
      msg.dataset.code = err.code;
    }
  });
  return form;
}

async function logout() {
  await api("/api/admin/logout", {}).catch(() => null);
  state.operator = null;
  show();
}

/** Draw the screen the hash names. */
async function show() {
  clearInterval(state.refresh);
  setLang(getLang());
  if (!state.operator) {
    mount(root, topbar(), h("main", null, loginForm(null)));
    return;
  }
  const [, tab = "tables", arg, arg2] = location.hash.split("/");
  // The view's name heads it for screen readers (the tab shows it), above the view's own headings.
  const body = h("div");
  mount(root, topbar(), h("main", { class: "cs-main", "data-view": tab }, h("h2", { class: "sr-only" }, t(tab)), body));
  const ctx = { operator: state.operator, refresh: (fn, ms) => { state.refresh = setInterval(fn, ms); }, show };
  try {
    await loadNames();
    if (tab === "users" && arg) await userView(body, Number(arg), ctx);
    else if (tab === "users") await usersView(body, ctx);
    else if (tab === "records") await roundView(body, arg ? decodeURIComponent(arg) : "", ctx);
    else if (tab === "shoes") await shoesView(body, arg ? decodeURIComponent(arg) : "", arg2 ? decodeURIComponent(arg2) : "");
    else if (tab === "log") await logView(body, ctx);
    else if (tab === "grants") await grantsView(body, ctx);
    else if (tab === "risk") await riskView(body, ctx);
    else await tablesView(body, ctx);
  } catch (err) {
    if (err.code === "console_login" || err.code === "not_operator") {
      state.operator = null;
      show();
      return;
    }
    body.append(h("p", { class: "cs-error", role: "alert" }, refusal(err)));
  }
}

addEventListener("hashchange", show);
api("/api/admin/me").then((got) => { state.operator = got.operator; }, () => null).finally(show);
