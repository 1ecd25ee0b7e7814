// The console's screens. Each draws into `body` from the API and redraws itself after an
// action; every action sends the reason typed beside it.

import { h, mount, fmt, signed } from "../js/dom.js";
import { api } from "../js/net.js";
import { t, refusal, when } from "./words.js";
import { grid } from "./grid.js";
import { memo, roomName, roundName, tableName, target } from "./names.js";

/**
 * Where the console API of a table's node answers: "" for this node, the node's path when
 * it shares this address ("/node/b": the console's cookie goes there too), or null when the
 * node is another address, whose own console acts on it.
 */
export function nodeBase(here, url) {
  if (here) return "";
  if (!url) return null;
  try {
    const node = new URL(url, location.href);
    return node.origin === location.origin ? node.pathname.replace(/\/+$/, "") : null;
  } catch {
    return null;
  }
}

/** Every table of every node, refreshed every 3 s; a table's panel closes or reopens it. */
export async function tablesView(body, ctx) {
  const list = h("div");
  const panel = h("div");
  const watch = h("div", { class: "cs-watch" });
  let chosen = null;
  let base = null;
  const tablePath = (id) => `${base}/api/admin/tables/${encodeURIComponent(id)}`;
  const follow = async () => {
    if (!chosen || base === null) return;
    const got = await api(tablePath(chosen));
    mount(watch, watched(got.view, got.book));
  };
  const choose = (line) => {
    chosen = line.table_id;
    base = nodeBase(line.here, line.url);
    const closed = Boolean(line.suspended);
    mount(watch);
    mount(panel, h("section", { class: "cs-table panel", "data-table": line.table_id, "data-node": line.here ? "here" : line.node_id },
      h("h2", null, tableName(line.table_id, line), " ", h("small", { class: "muted" }, line.table_id)),
      closed ? h("p", { class: "pill cs-muted", "data-field": "suspended" }, `${t("closed")}: ${line.suspended}`) : null,
      base === null ? h("p", { class: "muted" }, t("elsewhere", { node: line.node_id ?? "?" }), " ",
        /^https?:\/\//.test(line.url ?? "") ? h("a", { href: `${line.url.replace(/\/+$/, "")}/admin/`, "data-action": "node_console" }, t("node_console")) : null) : [
        action(closed ? "open_table" : "close_table", closed ? t("open_table") : t("close_table"), [],
          (reason) => api(`${tablePath(line.table_id)}/${closed ? "open" : "close"}`, { reason }),
          async () => { await draw(); }),
        noticeForm(line.table_id, base)]), watch);
    follow().catch(() => null);
  };
  const draw = async () => {
    const { tables } = await api("/api/admin/tables");
    const rows = tables.map((line) => h("tr", { "data-table": line.table_id, class: line.suspended ? "cs-closed" : null },
      h("td", null, h("button", { class: "btn-link", "data-action": "choose", onclick: () => choose(line) }, tableName(line.table_id, line))),
      h("td", null, roomName(line.room_id)),
      h("td", { "data-phase": line.phase }, line.suspended ? t("closed") : t(`phase_${line.phase}`)),
      h("td", { class: "num" }, line.shoe_round),
      h("td", null, line.seats?.[0]?.name ?? "—"),
      h("td", { class: "num" }, `${line.taken}/8`),
      h("td", { class: "num" }, line.watchers),
      h("td", { class: "num" }, fmt(line.escrow)),
      h("td", null, line.here ? t("here") : (line.node_id ?? "—"))));
    mount(list, grid([t("table"), t("room"), t("phase"), t("shoe_round"), t("dealer"), t("seats"),
      t("watchers"), t("escrow"), t("node")], rows, { "data-list": "tables" }));
    // The chosen table's panel follows it when it closes or reopens.
    const again = tables.find((line) => line.table_id === chosen);
    const shownClosed = panel.querySelector("[data-field='suspended']") !== null;
    if (again && shownClosed !== Boolean(again.suspended)) choose(again);
    else await follow();
  };
  mount(body, list, panel, h("section", { class: "cs-lobby-notice" }, noticeForm(null)));
  await draw();
  ctx.refresh(() => draw().catch(() => null), 3000);
}

// A table as a spectator sees it, with the dealer's book: what the operator watches.
function watched(view, book) {
  const cards = (hand) => (view.hands[hand] ?? []).map((c) => (c.card ? c.card : "▮")).join(" ") || "—";
  const seats = view.seats.map((occ, seat) => (occ ? h("tr", { "data-seat": seat },
    h("td", { class: "num" }, seat === 0 ? t("dealer") : seat),
    h("td", null, h("a", { href: `#/users/${occ.user_id}` }, occ.name)),
    h("td", { class: "num" }, fmt(occ.coins)),
    h("td", null, Object.entries(occ.bets ?? {}).filter(([, n]) => n)
      .map(([a, n]) => `${t(`area_${a}`)} ${fmt(n * view.chip_unit)}`).join("、"))) : null)).filter(Boolean);
  const exp = book.exposure;
  return h("section", { class: "cs-watched panel", "data-phase": view.phase },
    h("p", null, `${t(`phase_${view.phase}`)} · ${t("round")} ${view.round_no}`,
      view.squeeze ? ` · ${t("phase_squeeze")} ${t(`area_${view.squeeze.hand}`)}` : ""),
    h("p", { class: "cs-hands" }, `${t("area_player")} ${cards("player")}　${t("area_banker")} ${cards("banker")}`),
    grid([t("seat"), t("name"), t("coins"), t("bets")], seats, { "data-list": "seats" }),
    h("h3", null, t("book")),
    h("dl", { class: "cs-facts", "data-list": "book" },
      h("dt", null, t("area_player")), h("dd", null, fmt(book.totals.player.coins)),
      h("dt", null, t("area_banker")), h("dd", null, fmt(book.totals.banker.coins)),
      h("dt", null, t("if_player_wins")), h("dd", { "data-field": "if_player_wins" }, signed(exp.if_player_wins)),
      h("dt", null, t("if_banker_wins")), h("dd", { "data-field": "if_banker_wins" }, signed(exp.if_banker_wins))));
}

/** A notice in both languages to one table's players (posted to the node running it), or
 * (null) to every player of the system. */
function noticeForm(tableId, base = "") {
  const zh = h("input", { name: "zh", placeholder: "中文公告", maxlength: 200 });
  const en = h("input", { name: "en", placeholder: "Notice in English", maxlength: 200 });
  return action(tableId ? "table_notice" : "lobby_notice", tableId ? t("table_notice") : t("lobby_notice"), [zh, en],
    async (reason) => {
      const text = Object.fromEntries([["zh-TW", zh.value], ["en", en.value]].filter(([, v]) => v.trim()));
      await api(`${base}/api/admin/notices`, { table_id: tableId, text, reason });
      zh.value = "";
      en.value = "";
    }, async () => {});
}

/** Search users by name. */
export async function usersView(body) {
  const q = h("input", { name: "q", type: "search", placeholder: t("search"), autocomplete: "off" });
  const out = h("div");
  const form = h("form", { class: "cs-search" }, q, h("button", { class: "btn btn-gold", type: "submit" }, t("find")));
  const find = async () => {
    const { users } = await api(`/api/admin/users?q=${encodeURIComponent(q.value)}`);
    mount(out, grid([t("name"), t("display_name"), t("coins"), t("level"), t("role"), t("status")],
      users.map((u) => h("tr", { "data-user": u.username },
        h("td", null, h("a", { href: `#/users/${u.user_id}` }, u.username)),
        h("td", null, u.display_name),
        h("td", { class: "num" }, fmt(u.coins)),
        h("td", { class: "num" }, u.level),
        h("td", null, t(u.role)),
        h("td", null, statusOf(u)))), { "data-list": "users" }));
  };
  form.addEventListener("submit", (e) => { e.preventDefault(); find().catch((err) => mount(out, h("p", { class: "cs-error" }, refusal(err)))); });
  mount(body, form, out);
  await find();
}

function statusOf(u) {
  if (u.banned) return h("span", { class: "pill cs-banned" }, `${t("banned")}: ${u.banned}`);
  if (u.muted_until && u.muted_until * 1000 > Date.now()) return h("span", { class: "pill cs-muted" }, t("muted", { until: when(u.muted_until) }));
  return t("active");
}

/** An action form: its own fields plus a reason; posts and redraws the user. */
function action(name, title, fields, send, redraw) {
  const reason = h("input", { name: "reason", placeholder: t("reason"), maxlength: 500 });
  const msg = h("span", { class: "cs-msg", role: "status" });
  const form = h("form", { class: "cs-action", "data-action": name },
    h("h3", null, title), ...fields, reason,
    h("button", { class: "btn btn-small btn-gold", type: "submit" }, t("apply")), msg);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!reason.value.trim()) {
      msg.textContent = t("need_reason");
      msg.dataset.code = "bad_reason";
      return;
    }
    try {
      // A grant that waits for a second operator changed nothing to redraw: it says so.
      const note = await send(reason.value);
      msg.textContent = typeof note === "string" ? note : t("done");
      msg.dataset.code = typeof note === "string" ? "waiting" : "ok";
      if (typeof note === "string") return;
      await redraw();
    } catch (err) {
      msg.textContent = refusal(err);
      msg.dataset.code = err.code;
    }
  });
  return form;
}

/** One user: who they are, where they sit, the actions, their ledger, rounds and log. */
export async function userView(body, userId, ctx) {
  const base = `/api/admin/users/${userId}`;
  const got = await api(base);
  const u = got.user;
  const redraw = () => userView(body, userId, ctx);
  const post = (what, data) => api(`${base}/${what}`, data);
  const num = (name, value) => h("input", { name, type: "number", step: 1, value });
  const coins = num("coins", "");
  coins.placeholder = t("amount");
  const level = num("level", u.level);
  const minutes = num("minutes", 10);
  minutes.title = t("minutes");
  const role = h("select", { name: "role" }, ["player", "operator", "admin"].map((r) =>
    h("option", { value: r, selected: r === u.role }, t(r))));
  // Only what the server says this operator may do to this user (their rank, their own
  // account); the note says why the rest is missing.
  const may = new Set(got.may ?? []);
  const granted = async (reason) => {
    const done = await post("grant", { coins: Number(coins.value), reason });
    return done.request ? t("grant_waiting") : undefined;
  };
  const actions = [
    may.has("grant") ? action("grant", t("grant"), [coins], granted, redraw) : null,
    may.has("set_level") ? action("level", t("set_level"), [level], (reason) => post("level", { level: Number(level.value), reason }), redraw) : null,
    may.has("mute") ? action("mute", t("mute"), [minutes], (reason) => post("mute", { seconds: Number(minutes.value) * 60, reason }), redraw) : null,
    u.banned
      ? (may.has("unban") ? action("unban", t("unban"), [], (reason) => post("unban", { reason }), redraw) : null)
      : (may.has("ban") ? action("ban", t("ban"), [], (reason) => post("ban", { reason }), redraw) : null),
    may.has("stand_up") ? standAction(got.seat, userId, redraw) : null,
    may.has("set_role") ? action("role", t("set_role"), [role], (reason) => post("role", { role: role.value, reason }), redraw) : null,
    may.has("unlock") && got.console_locked ? action("unlock", t("unlock"), [], (reason) => post("unlock", { reason }), redraw) : null,
  ];
  const barred = u.user_id === ctx.operator.user_id ? "own_account" : (!may.has("ban") && !may.has("unban") ? "outranked" : null);
  mount(body,
    h("a", { href: "#/users", class: "btn-link" }, `← ${t("back")}`),
    h("section", { class: "cs-user panel", "data-user": u.username },
      h("h2", null, `${u.display_name} `, h("small", { class: "muted" }, `@${u.username} · #${u.user_id}`)),
      h("dl", { class: "cs-facts" },
        h("dt", null, t("coins")), h("dd", { "data-field": "coins" }, fmt(u.coins)),
        h("dt", null, t("level")), h("dd", { "data-field": "level" }, u.level),
        h("dt", null, t("role")), h("dd", { "data-field": "role" }, t(u.role)),
        h("dt", null, t("status")), h("dd", { "data-field": "status" }, statusOf(u)),
        h("dt", null, t("seat")), h("dd", { "data-field": "seat" }, got.seat ? `${tableName(got.seat.table_id)} #${got.seat.seat}` : "—"),
        h("dt", null, t("online")), h("dd", null, got.online ? t("online") : t("offline")),
        h("dt", null, t("sessions")), h("dd", null, got.sessions),
        h("dt", null, t("last_seen")), h("dd", { "data-field": "last_login" }, when(got.last_login)),
        got.console_locked ? [h("dt", null, t("console_lock")), h("dd", { "data-field": "console_locked" }, h("span", { class: "pill cs-banned" }, t("console_locked_note")))] : null),
      barred ? h("p", { class: "muted cs-barred", "data-field": "barred", "data-code": barred }, t(barred)) : null),
    h("section", { class: "cs-actions" }, actions),
    h("h3", null, t("ledger")),
    grid([t("time"), t("kind"), t("memo"), t("coins")], got.ledger.map((e) => h("tr", null,
      h("td", null, when(e.at)), h("td", null, t(`kind_${e.kind}`)), h("td", null, memo(e)), h("td", { class: "num" }, signed(e.amount)))), { "data-list": "ledger" }),
    h("h3", null, t("rounds")),
    grid([t("time"), t("round"), t("status"), t("net")], got.rounds.map((r) => h("tr", null,
      h("td", null, when(r.time)),
      h("td", null, h("a", { href: `#/records/${encodeURIComponent(r.round_id)}`, title: r.round_id }, roundName(r.table_id, r.round_no))),
      h("td", null, t(`status_${r.status}`)),
      h("td", { class: "num" }, r.net === null ? "—" : signed(r.net)))), { "data-list": "rounds" }),
    h("h3", null, t("log")),
    logGrid(got.log, got.names));
}

// Stand the user up, asking the node that runs their table; a node at another address is
// left to its own console.
function standAction(seat, userId, redraw) {
  if (!seat) return null;
  const base = nodeBase(seat.here, seat.url);
  if (base === null) return h("p", { class: "muted", "data-field": "stand_elsewhere" }, t("elsewhere", { node: seat.url ?? "?" }));
  return action("stand", t("stand_up"), [], (reason) => api(`${base}/api/admin/users/${userId}/stand`, { reason }), redraw);
}

// A state before or after an action, as "field: value" (times as times).
function shown(v) {
  if (v === null || v === undefined) return "—";
  if (typeof v !== "object") return String(v);
  return Object.entries(v).map(([k, x]) =>
    `${k}: ${k.endsWith("_until") && typeof x === "number" ? when(x) : typeof x === "number" ? fmt(x) : JSON.stringify(x)}`).join(", ");
}

function logGrid(entries, names) {
  const show = shown;
  return grid([t("time"), t("actor"), t("action"), t("target"), t("reason"), t("before"), t("after")],
    entries.map((e) => h("tr", { "data-action": e.action },
      h("td", null, when(e.at)), h("td", null, e.actor_id == null ? e.actor : `${e.actor} #${e.actor_id}`), h("td", { "data-code": e.action }, t(`do_${e.action}`)), h("td", null, target(e.target, names)),
      h("td", null, e.reason), h("td", { class: "cs-json" }, show(e.before)), h("td", { class: "cs-json" }, show(e.after)))),
    { "data-list": "log" });
}

/** The operator log, filtered by action and actor. */
export async function logView(body) {
  const action = h("select", { name: "action", "aria-label": t("action") }, ["", "grant", "set_level", "set_role", "mute", "unmute", "ban", "unban", "stand_up",
    "close_table", "open_table", "notice", "audit", "grant_requested", "grant_approved", "grant_refused", "unlock",
    "console_login", "console_login_failed", "totp_enrolled", "console_locked"]
    .map((a) => h("option", { value: a }, a ? t(`do_${a}`) : t("all"))));
  const actor = h("input", { name: "actor", placeholder: t("actor") });
  const out = h("div");
  const form = h("form", { class: "cs-search" }, action, actor, h("button", { class: "btn btn-gold", type: "submit" }, t("find")));
  const load = async () => {
    const q = new URLSearchParams({ action: action.value, actor: actor.value.trim() });
    const { log, names } = await api(`/api/admin/log?${q}`);
    mount(out, logGrid(log, names));
  };
  form.addEventListener("submit", (e) => { e.preventDefault(); load().catch((err) => mount(out, h("p", { class: "cs-error" }, refusal(err)))); });
  mount(body, form, out);
  await load();
}

/** Grants waiting for a second operator (or decided): approve or refuse each with a reason. */
export async function grantsView(body, ctx) {
  const status = h("select", { name: "status", "aria-label": t("status") }, ["pending", "approved", "refused", "all"].map((x) =>
    h("option", { value: x }, x === "all" ? t("all") : t(`status_${x}`))));
  const out = h("div");
  const load = async () => {
    const { requests } = await api(`/api/admin/grants?status=${status.value}`);
    mount(out, requests.length ? h("div", { class: "cs-requests", "data-list": "grants" }, requests.map((r) => request(r, ctx, load)))
      : h("p", { class: "muted", "data-list": "grants" }, t("empty")));
  };
  status.addEventListener("change", () => load().catch((err) => mount(out, h("p", { class: "cs-error" }, refusal(err)))));
  mount(body, h("form", { class: "cs-search" }, status), out);
  await load();
}

// One request: who asked, for whom, how much and why; its decision, or the two forms.
function request(r, ctx, reload) {
  const mine = r.requested_by_id === ctx.operator.user_id;
  const decide = (verb) => action(verb, t(verb), [], (reason) => api(`/api/admin/grants/${r.id}/${verb}`, { reason }), reload);
  return h("section", { class: "cs-request panel", "data-request": r.id, "data-status": r.status },
    h("h3", null, h("a", { href: `#/users/${r.user_id}` }, r.username), " ",
      h("span", { class: `cs-amount ${r.coins < 0 ? "neg" : ""}` }, signed(r.coins)), " ",
      h("span", { class: "pill cs-muted" }, t(`why_${r.why}`))),
    h("dl", { class: "cs-facts" },
      h("dt", null, t("requested_by")), h("dd", null, `${r.requested_by} · ${when(r.created_at)}`),
      h("dt", null, t("reason")), h("dd", null, r.reason),
      h("dt", null, t("status")), h("dd", { "data-field": "status" }, t(`status_${r.status}`)),
      r.decided_by ? [h("dt", null, t("decided_by")), h("dd", null, `${r.decided_by} · ${when(r.decided_at)}`),
        h("dt", null, t("decision")), h("dd", null, r.decision)] : null),
    r.status === "pending" ? h("div", { class: "cs-actions" },
      mine ? h("p", { class: "muted", "data-code": "own_request" }, t("own_request")) : decide("approve"),
      decide("refuse")) : null);
}
