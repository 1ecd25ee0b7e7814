// The login form and the lobby: rooms with their rules, tables with seats and beads.

import { h, s, fmt } from "./dom.js";
import { PATTERNS } from "./patterns.js";
import { t, errorText, named } from "./i18n.js";
import { cardFace, cardBack } from "./cards.js";
import { chipSVG } from "./chips.js";
import { eyeIcon } from "./icons.js";
import { toolbar } from "./shell.js";

const BEAD = { banker: "#d32f2f", player: "#1e63d6", tie: "#1f9d55" };

/** The login / register screen; `session.authenticate` logs in or registers. */
export function loginScreen(session) {
  let mode = "login";
  const msg = h("div", { class: "form-msg", role: "alert" });
  const user = h("input", { name: "username", autocomplete: "username", required: true, minlength: 1,
    maxlength: 32, placeholder: t("username") });
  const pass = h("input", { name: "password", type: "password", autocomplete: "current-password",
    required: true, placeholder: t("password") });
  // Only a new account chooses a display name (the username when left empty).
  const display = h("input", { name: "display_name", autocomplete: "nickname", maxlength: 32,
    placeholder: t("display_name_hint") });
  const displayRow = h("label", { class: "display-name-row" }, h("span", null, t("display_name")), display);
  const submit = h("button", { class: "btn btn-gold", type: "submit" }, t("login"));
  const switcher = h("button", { class: "btn-link", type: "button" });
  const swText = h("span");
  const setMode = (m) => {
    mode = m;
    submit.textContent = t(m === "login" ? "login" : "register");
    swText.textContent = t(m === "login" ? "no_account" : "have_account");
    switcher.textContent = t(m === "login" ? "register" : "login");
    pass.autocomplete = m === "login" ? "current-password" : "new-password";
    pass.minLength = m === "login" ? 1 : 6;
    displayRow.hidden = m === "login";
  };
  switcher.onclick = () => setMode(mode === "login" ? "register" : "login");
  setMode("login");
  // The form checks itself (novalidate): the browser's own bubbles would speak the browser's
  // language, not the one chosen here.
  const invalid = () => {
    if (!user.value.trim()) return [user, t("need_username")];
    if (!pass.value) return [pass, t("need_password")];
    if (mode === "register" && pass.value.length < 6) return [pass, errorText({ code: "bad_password" })];
    return null;
  };
  const form = h("form", { class: "login-form", novalidate: true, onsubmit: async (ev) => {
    ev.preventDefault();
    msg.textContent = "";
    const bad = invalid();
    if (bad) {
      msg.textContent = bad[1];
      bad[0].focus();
      return;
    }
    submit.disabled = true;
    try {
      await session.authenticate(mode, user.value.trim(), pass.value, display.value.trim());
    } catch (err) {
      msg.textContent = errorText(err);
      if (err?.code === "registration_closed") {
        setMode("login");
        switcher.parentElement.hidden = true;
      }
    } finally {
      submit.disabled = false;
    }
  } },
    h("label", null, h("span", null, t("username")), user),
    h("label", null, h("span", null, t("password")), pass),
    displayRow,
    submit, msg,
    h("div", { class: "switch" }, swText, " ", switcher));
  const logo = h("div", { class: "logo", "aria-hidden": "true" },
    h("div", { class: "logo-cards" }, h("div", { class: "lc lc1" }, cardFace("9H")), h("div", { class: "lc lc2" }, cardFace("KS")),
      h("div", { class: "lc lc3" }, cardBack())),
    h("div", { class: "logo-chips" }, chipSVG(10), chipSVG(5), chipSVG(2)));
  return h("div", { class: "screen login-screen" },
    h("header", { class: "login-top" }, toolbar()),
    h("main", { class: "login-card" }, logo,
      h("h1", { tabindex: "-1" }, t("title")), h("p", { class: "tagline" }, t("welcome")),
      form, h("p", { class: "hint" }, t("login_hint"))));
}

function miniBeads(beads) {
  // The last results as a small bead plate: 6 rows, filled top to bottom, left to right.
  const size = 12;
  const cols = 6;
  const svg = s("svg", { viewBox: `0 0 ${cols * size} ${6 * size}`, class: "mini-beads" });
  svg.append(s("rect", { width: cols * size, height: 6 * size, fill: "#fbfaf5" }));
  for (let i = 1; i < cols; i++) {
    svg.append(s("line", { x1: i * size, y1: 0, x2: i * size, y2: 6 * size, stroke: "#e3dccb", "stroke-width": 0.6 }));
  }
  for (let i = 1; i < 6; i++) {
    svg.append(s("line", { x1: 0, y1: i * size, x2: cols * size, y2: i * size, stroke: "#e3dccb", "stroke-width": 0.6 }));
  }
  (beads || []).slice(-cols * 6).forEach((b, i) => {
    const cx = Math.floor(i / 6) * size + size / 2;
    const cy = (i % 6) * size + size / 2;
    svg.append(s("circle", { cx, cy, r: 5, fill: BEAD[b.winner] || "#999" }));
    svg.append(s("text", { x: cx, y: cy + 2.6, "text-anchor": "middle", "font-size": 7, "font-weight": 700, fill: "#fff" }, String(b.points ?? "")));
    if (b.banker_pair) svg.append(s("circle", { cx: cx - 3.6, cy: cy - 3.6, r: 1.6, fill: "#d32f2f", stroke: "#fff", "stroke-width": 0.5 }));
    if (b.player_pair) svg.append(s("circle", { cx: cx + 3.6, cy: cy + 3.6, r: 1.6, fill: "#1e63d6", stroke: "#fff", "stroke-width": 0.5 }));
  });
  return svg;
}

/** A lobby seat's name in words: the seat to take, or whose it is. */
function seatName(i, occ, me) {
  if (!occ) return i === 0 ? t("sit_dealer") : t("sit_seat", { n: i });
  if (me) return i === 0 ? t("dealer_yours") : t("seat_yours", { n: i });
  return i === 0 ? t("dealer_taken_by", { name: occ.name }) : t("seat_taken_by", { n: i, name: occ.name });
}

const PHASE_KEY = { waiting: "phase_waiting", betting: "phase_betting", squeeze: "phase_squeeze",
  result: "phase_result", shuffling: "phase_shuffling" };

function tableCard(ctx, table, room) {
  const seats = table.seats || [];
  const mySeat = ctx.seat?.table_id === table.table_id ? ctx.seat.seat : null;
  const lowLevel = (ctx.user?.level ?? 0) < (room?.min_level ?? 0);
  const seatDot = (i) => {
    const occ = seats[i];
    const me = occ && occ.user_id === ctx.user?.id;
    // Named in words for a screen reader (its face is only the seat's number and a name).
    const name = seatName(i, occ, me);
    return h("button", {
      class: `seat-dot${i === 0 ? " dealer" : ""}${occ ? " taken" : " free"}${me ? " me" : ""}`,
      "data-seat": i, disabled: Boolean(occ) || lowLevel || Boolean(table.suspended),
      title: name, "aria-label": name,
      onclick: () => ctx.sit(table.table_id, i),
    }, i === 0 ? t("dealer").slice(0, 1) : String(i), occ ? h("span", { class: "sd-name", translate: "no" }, occ.name) : null);
  };
  const free = seats.slice(1).filter((x) => !x).length;
  return h("article", { class: "table-card", "data-table": table.table_id },
    h("header", null, h("h3", null, named(table, table.table_id)),
      table.suspended
        ? h("span", { class: "phase-tag phase-suspended", title: table.suspended }, t("phase_suspended"))
        : h("span", { class: `phase-tag phase-${table.phase}` }, t(PHASE_KEY[table.phase] || "phase_waiting"))),
    h("div", { class: "tc-body" },
      miniBeads(table.beads),
      h("div", { class: "tc-info" },
        table.suspended ? h("div", { class: "tc-closed" }, t("table_closed_notice", { notice: table.suspended })) : null,
        h("div", null, t("round_of", { n: table.shoe_round ?? 0 })),
        h("div", null, t("seats_free", { n: free })),
        table.queue ? h("div", { class: "tc-queue" }, `${t("dealer_queue")} ${table.queue}`) : null,
        (table.good_roads ?? []).length ? h("div", { class: "tc-good" }, table.good_roads.map((g) =>
          h("span", { class: "gr", "data-pattern": g.pattern }, `${t(`gr_${g.pattern}`)} ${g.length}`))) : null,
        h("div", { class: "muted watchers" }, eyeIcon(), ` ${table.watchers ?? 0}`),
        // The shoe's commitment, published before its first round: its start, whole on hover.
        table.commitment ? h("div", { class: "tc-commit muted", translate: "no", title: table.commitment },
          `${t("commitment")} ${table.commitment.slice(0, 10)}…`) : null)),
    h("div", { class: "tc-seats", role: "group", "aria-label": t("seats_of", { table: named(table, table.table_id) }) },
      h("div", { class: "tc-dealer" }, seatDot(0)),
      h("div", { class: "tc-bettors" }, [1, 2, 3, 4, 5, 6, 7].map(seatDot))),
    h("footer", null,
      h("button", { class: "btn btn-watch", disabled: lowLevel, onclick: () => ctx.watch(table.table_id) },
        mySeat !== null ? t("enter") : t("watch")),
      lowLevel ? h("span", { class: "muted level-needed" }, t("level_needed", { n: room.min_level })) : null),
  );
}

/** Room tabs and, when the tables fill more than one page, the pager. */
function lobbyNav(ctx, lobby) {
  const page = lobby.page ?? 0;
  const pages = lobby.pages ?? 1;
  const tab = (room, label) => h("button", {
    class: `btn btn-ghost room-tab${(lobby.room ?? null) === room ? " active" : ""}`, "data-room-tab": room ?? "",
    onclick: () => ctx.subscribe({ room, page: 0 }) }, label);
  const tabs = lobby.rooms.length > 1
    ? h("div", { class: "room-tabs" }, tab(null, t("all_rooms")), lobby.rooms.map((r) => tab(r.room_id, named(r, r.room_id))))
    : null;
  const pager = pages > 1
    ? h("div", { class: "pager" },
      h("button", { class: "btn btn-ghost", "data-page": "prev", title: t("prev_page"), disabled: page <= 0,
        onclick: () => ctx.subscribe({ room: lobby.room, page: page - 1 }) }, "‹"),
      h("span", null, t("page_of", { n: page + 1, m: pages })),
      h("button", { class: "btn btn-ghost", "data-page": "next", title: t("next_page"), disabled: page >= pages - 1,
        onclick: () => ctx.subscribe({ room: lobby.room, page: page + 1 }) }, "›"))
    : null;
  return tabs || pager ? h("nav", { class: "lobby-nav" }, tabs, pager) : null;
}

export const FILTER_KEY = "baccarat.road_filter"; // the good-road filter chosen last

function filterBar(ctx, filter) {
  // The server filters (the lobby is paged): a new filter asks for its first page.
  const choose = (value) => {
    if (value) localStorage.setItem(FILTER_KEY, value);
    else localStorage.removeItem(FILTER_KEY);
    ctx.subscribe({ room: ctx.room, page: 0, road: value });
  };
  const chip = (value, label) => h("button", { class: `btn btn-small rf${filter === value ? " on" : ""}`,
    "data-filter": value ?? "all", "aria-pressed": String(filter === value), onclick: () => choose(value) }, label);
  return h("nav", { class: "road-filter", "aria-label": t("good_roads") },
    h("span", { class: "rf-title" }, t("good_roads_filter")),
    chip(null, t("all_tables")), chip("any", t("any_good_road")),
    PATTERNS.map((p) => chip(p, t(`gr_${p}`))));
}

/**
 * The lobby screen for one page of tables, grouped by room. `ctx`: the page (`lobby`), `user`,
 * `seat`, the `room` looked at, and what its buttons do: `watch`, `sit`, `subscribe` (another
 * page), `history`, `logout`.
 */
export function lobbyScreen(ctx) {
  const lobby = ctx.lobby || { rooms: [], tables: [] };
  const u = ctx.user || {};
  // The good-road filter (好路): the page holds only tables where that road holds now.
  const filter = lobby.road ?? null;
  // Rooms with a table on this page (a chosen room always shows, even when empty).
  const shown = lobby.rooms.filter((room) => room.room_id === lobby.room ||
    lobby.tables.some((tb) => tb.room_id === room.room_id) || (!lobby.room && !lobby.tables.length));
  const rooms = shown.map((room) => {
    const tables = lobby.tables.filter((tb) => tb.room_id === room.room_id);
    const lim = room.limits || {};
    return h("section", { class: "room", "data-room": room.room_id },
      h("header", { class: "room-head" },
        h("h2", null, named(room, room.room_id)),
        h("div", { class: "room-rules" },
          h("span", { class: "rule" }, t("min_level", { n: room.min_level })),
          h("span", { class: "rule" }, t("chip_unit", { n: fmt(room.chip_unit) })),
          h("span", { class: "rule" }, t("bettor_floor", { n: fmt(room.bettor_floor) })),
          h("span", { class: "rule" }, t("dealer_floor", { n: fmt(room.dealer_floor) })),
          h("span", { class: "rule limits" },
            ["player", "banker", "tie", "player_pair", "banker_pair"].map((a) =>
              h("span", { class: `lim lim-${a}` }, `${t(a)} ≤${lim[a] === undefined ? "?" : fmt(lim[a] * room.chip_unit)}`))))),
      h("div", { class: "tables" }, tables.length ? tables.map((tb) => tableCard(ctx, tb, room))
        : h("p", { class: "muted" }, filter ? t("no_tables_filtered") : t("no_tables"))));
  });
  return h("div", { class: "screen lobby-screen", "data-road": filter ?? "all" },
    h("header", { class: "topbar" },
      h("h1", { class: "brand", tabindex: "-1" }, chipSVG(10, ""), h("b", null, t("title")), h("span", null, t("lobby"))),
      h("div", { class: "me-box" }, h("span", { class: "me-name", translate: "no" }, u.display_name || u.name || ""),
        h("span", { class: "lv" }, t("lv", { n: u.level ?? 0 })), h("span", { class: "coins" }, `${fmt(u.coins ?? 0)} ${t("coins")}`)),
      h("button", { class: "btn btn-ghost btn-history", "data-action": "history", onclick: () => ctx.history() }, t("my_bets")),
      toolbar(),
      h("button", { class: "btn btn-ghost", onclick: () => ctx.logout() }, t("logout"))),
    h("main", { class: "rooms" }, lobbyNav(ctx, lobby), filterBar(ctx, filter), rooms.length ? rooms : h("p", { class: "muted" }, "…")));
}
