// The app: who is logged in, which screen shows, and the one connection to the server.

import { h, mount } from "./dom.js";
import { t, getLang, setLang, onLang, errorText } from "./i18n.js";
import { api, Connection, SILENT } from "./net.js";
import { readView } from "./state.js";
import { apply } from "./reducer.js";
import { loginScreen, lobbyScreen } from "./lobby.js";
import { TableScreen } from "./table.js";
import { historyScreen, fetchTotals, sessionStart } from "./history.js";
import { isMuted, setMuted, play } from "./sound.js";
import { soundIcon } from "./icons.js";
import { keepAwake } from "./device.js";

const root = document.getElementById("app");
const offline = document.getElementById("offline");
const toasts = document.getElementById("toasts");

// Whether this browser logged in last time. The session cookie is HttpOnly, so the page cannot
// see it; without this mark a first visit would ask /api/me only to be answered 401, which the
// browser logs as an error in the console.
const SESSION_MARK = "baccarat.session";
const markSession = (on) => (on ? localStorage.setItem(SESSION_MARK, "1") : localStorage.removeItem(SESSION_MARK));

const app = {
  user: null,
  seat: null,
  squeezeRate: 10, // peel moves a second the server passes on (its hello says)
  lobby: null,
  // The page of the lobby this client looks at; its good-road filter (好路) is remembered.
  lobbyView: { room: null, page: 0, road: localStorage.getItem("baccarat.road_filter") || null },
  lobbyOn: false, // subscribed to the lobby: only while the lobby shows
  screen: "boot",
  tableId: null,
  table: null,
  conn: null,
  snapshot: null,
  view: null, // the table's view as the server projects it, kept with the reducer
  viewAt: 0, // when (performance.now()) the view's remaining_ms was current
  seq: -1,
  resyncTimer: null,
  totals: null, // the day's and the session's net: {day, session} from /api/my/net
  returnTo: null, // the table to go back to from My bets
  resyncs: 0, // snapshots asked for since the page loaded (the browser tests read it)
  resyncCauses: {}, // the events that asked for them, by name

  /** The language and sound toggles (a fresh element each call). */
  toolbar() {
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
  },

  /** A short message over the top bar; kind "error" for refusals. One at a time: a new one
   * replaces the last, so messages never pile up over the table. */
  toast(text, kind = "info", ms = 2600) {
    const el = h("div", { class: `toast toast-${kind}`, role: kind === "error" ? "alert" : "status" }, text);
    toasts.replaceChildren(el);
    setTimeout(() => el.classList.add("out"), ms);
    setTimeout(() => el.remove(), ms + 500);
  },

  send(type, fields) {
    return app.conn ? app.conn.send(type, fields) : Promise.reject({ code: "offline", message: "offline" });
  },

  async authenticate(mode, username, password, displayName) {
    const body = { username, password };
    if (mode === "register" && displayName) body.display_name = displayName;
    const data = await api(mode === "login" ? "/api/login" : "/api/register", body);
    app.user = data.user;
    markSession(true);
    app.connect();
  },

  async logout() {
    app.conn?.stop();
    app.conn = null;
    markSession(false);
    try {
      await api("/api/logout", {});
    } catch {
      // Already logged out: the login screen is where we go either way.
    }
    app.user = null;
    app.showLogin();
  },

  connect() {
    app.conn?.stop();
    app.conn = new Connection({ open: onOpen, message: onMessage, close: onClose });
    app.conn.connect();
  },

  showLogin() {
    leaveTableScreen();
    app.screen = "login";
    mount(root, loginScreen(app));
  },

  showLobby() {
    leaveTableScreen();
    app.screen = "lobby";
    if (location.hash) history.replaceState(null, "", location.pathname);
    app.renderLobby();
    if (!app.lobbyOn) app.subscribeLobby();
  },

  renderLobby() {
    mount(root, lobbyScreen(app));
  },

  /** My bets (投注紀錄); a table being watched is left and watched again on the way back. */
  showHistory() {
    app.unsubscribeLobby();
    app.returnTo = app.tableId ?? null;
    if (app.tableId) app.send("table.leave").catch(() => {});
    app.tableId = null;
    leaveTableScreen();
    app.screen = "history";
    history.replaceState(null, "", "#/history");
    mount(root, historyScreen(app));
  },

  /** Leave My bets: back to the table it was opened from, else the lobby. */
  back() {
    const to = app.returnTo ?? (app.seat ? app.seat.table_id : null);
    app.returnTo = null;
    if (to) app.watch(to);
    else app.showLobby();
  },

  /** Ask the server for the day's and the session's totals and redraw them. */
  refreshTotals() {
    fetchTotals().then((totals) => {
      app.totals = totals;
      if (app.table?.st) app.table.drawTop(app.table.st);
    }, () => {});
  },

  /** Follow one page of the lobby (a room's tables, or every room's); a fresh page follows. */
  subscribeLobby(view = app.lobbyView) {
    const road = view.road === undefined ? app.lobbyView.road : view.road;
    app.lobbyView = { room: view.room ?? null, page: view.page ?? 0, road: road ?? null };
    app.lobbyOn = true;
    const fields = { page: app.lobbyView.page };
    if (app.lobbyView.room) fields.room = app.lobbyView.room;
    if (app.lobbyView.road) fields.road = app.lobbyView.road;
    app.send("lobby.subscribe", fields).catch(() => {
      app.lobbyOn = false;
    });
  },

  /** Stop the lobby's updates: a table screen does not show the lobby. */
  unsubscribeLobby() {
    if (!app.lobbyOn) return;
    app.lobbyOn = false;
    app.send("lobby.unsubscribe").catch(() => {});
  },

  goLobby() {
    app.send("table.leave").catch(() => {});
    app.tableId = null;
    app.showLobby();
    refreshMe();
  },

  watch(tableId) {
    app.tableId = tableId;
    history.replaceState(null, "", `#/table/${encodeURIComponent(tableId)}`);
    app.send("table.watch", { table_id: tableId }).catch((err) => {
      if (elsewhere(err, tableId)) return;
      app.toast(errorText(err), "error");
      app.tableId = null;
      app.showLobby();
    });
  },

  sit(tableId, seat) {
    app.tableId = tableId;
    history.replaceState(null, "", `#/table/${encodeURIComponent(tableId)}`);
    app.send("sit", { table_id: tableId, seat }).then(
      () => {
        app.seat = { table_id: tableId, seat };
      },
      (err) => {
        if (elsewhere(err, tableId, seat)) return;
        play("refuse");
        app.toast(errorText(err), "error");
        if (app.screen !== "table") app.watch(tableId);
      },
    );
  },

  /** The table runs on another node: go there with a single-use ticket, still logged in. */
  async moveTo(url, tableId, ticket = null, left = null) {
    try {
      ticket = ticket ?? (await api("/api/ticket", {})).ticket;
    } catch (err) {
      app.toast(errorText(err), "error");
      return;
    }
    // The node left because it died goes along: storage is per origin, and the new node's
    // page must not follow a stale lobby line back to it before the takeover.
    const gone = left ? `&left=${encodeURIComponent(left)}` : "";
    const next = `/?entered=1${gone}#/table/${encodeURIComponent(tableId)}`;
    location.assign(`${url}/api/enter?ticket=${encodeURIComponent(ticket)}&next=${encodeURIComponent(next)}`);
  },

  /** Ask for a fresh snapshot of the watched table. */
  resync() {
    app.resyncs += 1;
    app.send("resync").catch(() => {});
  },

  stand() {
    app.send("stand").then(() => {
      app.seat = null;
    }, (err) => app.toast(errorText(err), "error"));
  },
};

// While the player holds a seat the phone's screen stays on (a round waits for nobody).
let seatHeld = null;
Object.defineProperty(app, "seat", {
  enumerable: true,
  get: () => seatHeld,
  set: (seat) => {
    seatHeld = seat;
    keepAwake(Boolean(seat));
  },
});

/** Follow a table_elsewhere refusal to the table's node (and sit there, if that was
 * asked); whether it was one. */
function elsewhere(err, tableId, seat = null) {
  const url = err.code === "table_elsewhere" ? err.details?.url : null;
  if (!url) return false;
  const there = new URL(url, location.href);
  if (there.origin === location.origin) {
    // One public address (a proxy routes each node's path): the session is good on every
    // node, so only the socket moves, to the table's node.
    app.tableId = tableId;
    app.pendingSit = seat === null ? null : { tableId, seat };
    app.conn.moveTo(there.pathname.replace(/\/$/, ""));
  } else if (url === sessionStorage.getItem(LEFT) && Date.now() - Number(sessionStorage.getItem(LEFT_AT)) < LEFT_FOR) {
    // The node this page left because it died: the table comes here once its lease runs out.
    // (Past LEFT_FOR that node answers again after all: the page goes back to it.)
    setTimeout(() => app.watch(tableId), 1000);
  } else {
    app.moveTo(url, tableId);
  }
  return true;
}

function leaveTableScreen() {
  app.table?.destroy();
  app.table = null;
  app.snapshot = null;
  app.view = null;
  app.seq = -1;
}

async function refreshMe() {
  try {
    const data = await api("/api/me");
    app.user = data.user;
    if (app.screen === "lobby") app.renderLobby();
  } catch {
    // Not logged in any more: the socket will be closed and the login screen shown.
  }
}

function onOpen() {
  offline.hidden = true;
  // A new socket has no subscription; the hello decides whether the lobby shows.
  app.lobbyOn = false;
}

function onClose(willRetry, code) {
  if (code === 4001) markSession(false);
  if (code === 4001 || !app.user) {
    app.showLogin();
    return;
  }
  offline.hidden = !willRetry;
  // 4002: the table moved (its node is stopping, or another node took it), or the node
  // stopped answering (SILENT): look for the table elsewhere at once, rather than after a
  // few tries at this node.
  const gone = code === 4002 || code === SILENT || (app.conn?.retry ?? 0) >= FAILOVER_TRIES;
  if (willRetry && app.conn?.base && gone) {
    // Behind one address, this node's path stopped answering: any node will say where the
    // table runs now.
    app.conn.moveTo("");
    return;
  }
  // This node is gone while a table is open here: after a few tries, find the table on
  // another node (the lobby said which nodes there are), with the spare ticket.
  if (willRetry && app.tableId && app.conn && gone) {
    const others = [...new Set((app.lobby?.tables ?? []).map((tb) => tb.url))]
      .filter((url) => url && url !== location.origin);
    // (A browser that knows it is offline stays: another node is no nearer.)
    if (others.length && spare.ticket && navigator.onLine !== false) {
      const ticket = spare.ticket;
      spare.ticket = null;
      rememberLeft(location.origin);
      app.conn.stop();
      app.moveTo(others[0], app.tableId, ticket, location.origin);
    }
  }
}

// With many nodes, a seated user keeps a spare ticket, so that if this node dies the page
// can still move to the node that takes the table over without logging in again.
const FAILOVER_TRIES = 3;
const LEFT = "baccarat.left"; // the node this tab left because it stopped answering
const LEFT_AT = "baccarat.left_at"; // when
const LEFT_FOR = 30000; // how long a left node's table is waited for here (leases are shorter)

function rememberLeft(origin) {
  sessionStorage.setItem(LEFT, origin);
  sessionStorage.setItem(LEFT_AT, String(Date.now()));
}
const SPARE_EVERY = 45000;
const spare = { ticket: null, at: 0 };
app.spare = spare;
setInterval(() => {
  const many = (app.lobby?.tables ?? []).some((tb) => tb.url && tb.url !== location.origin);
  if (!many || !app.seat || !app.conn?.online || Date.now() - spare.at < SPARE_EVERY) return;
  spare.at = Date.now();
  api("/api/ticket", {}).then((data) => { spare.ticket = data.ticket; }, () => {});
}, 5000);

function scheduleResync(cause) {
  app.resyncCauses[cause] = (app.resyncCauses[cause] ?? 0) + 1;
  // Many events come in a burst (betting closes, four cards are dealt): one snapshot covers them.
  clearTimeout(app.resyncTimer);
  app.resyncTimer = setTimeout(() => app.resync(), 40);
}

function onSnapshot(msg) {
  if (msg.table_id !== app.tableId) return;
  if (!app.table) {
    // First the old screen goes (it forgets its seq and view), then this snapshot counts.
    leaveTableScreen();
    app.unsubscribeLobby();
    app.screen = "table";
    app.table = new TableScreen(app);
    mount(root, app.table.el);
    // The table opens at its top (the felt), wherever the lobby was scrolled to.
    scrollTo(0, 0);
    app.refreshTotals();
  }
  app.seq = msg.seq;
  app.view = msg.view;
  app.viewAt = performance.now();
  const st = readView(msg, app.viewAt, known());
  noteSeat(st);
  app.table.setState(st);
  if (!st.names) fetchNames();
}

/** A table entered without the lobby (a reload, a link): its and its room's names in every
 * language come from the lobby over HTTP, and the top bar is drawn again with them. */
function fetchNames() {
  if (app.namesAsked) return;
  app.namesAsked = true;
  api("/api/lobby").then((data) => {
    app.names = { rooms: data.rooms, tables: data.tables };
    const st = app.table?.st;
    if (!st) return;
    const again = readView({ view: st.raw, table_id: st.table_id }, app.viewAt, known());
    const named = { ...st, names: again.names, room: { ...st.room, names: again.room.names } };
    app.table.st = named;
    app.snapshot = named;
    app.table.drawTop(named);
  }, () => {
    app.namesAsked = false;
  });
}

/** The rooms and tables whose names are known: the lobby's page, and any fetched since. */
function known() {
  if (!app.names) return app.lobby;
  return { rooms: [...(app.lobby?.rooms ?? []), ...app.names.rooms],
    tables: [...(app.lobby?.tables ?? []), ...app.names.tables] };
}

function noteSeat(st) {
  app.snapshot = st;
  if (st.me.seat !== null) app.seat = { table_id: st.table_id, seat: st.me.seat };
  else if (app.seat?.table_id === st.table_id) app.seat = null;
}

function onEvent(msg) {
  if (msg.table_id !== app.tableId || !app.table) return;
  if (!msg.private) {
    if (msg.seq <= app.seq) return;
    const gap = msg.seq > app.seq + 1;
    app.seq = msg.seq;
    if (gap) {
      scheduleResync("gap");
      return;
    }
  }
  if (msg.event === "round_settled" && String(app.user?.id) in (msg.data?.settlement?.deltas ?? {})) {
    app.refreshTotals();
  }
  const data = msg.data || {};
  if (!app.view) {
    scheduleResync(msg.event);
    return;
  }
  // Every event goes into the view (reducer.js); no snapshot is needed to follow the table.
  app.view = apply(app.view, msg.event, data);
  if (typeof data.remaining_ms === "number") app.viewAt = performance.now();
  // Frequent events are also drawn in place (sounds, the peel, a chip's flight); for the
  // rest the screen is drawn again from the view.
  const handled = app.table.onEvent(msg.event, data, Boolean(msg.private));
  if (handled) {
    app.snapshot = app.table.st;
    return;
  }
  const fresh = readView({ view: app.view, table_id: app.tableId }, app.viewAt, known());
  // The viewer's own part changes alone; the rest of the screen stays as drawn.
  const st = msg.event === "me" && app.table.st ? { ...app.table.st, me: fresh.me, book: fresh.book } : fresh;
  noteSeat(st);
  app.table.setState(st);
}

function onMessage(msg) {
  switch (msg.type) {
    case "hello":
      app.user = msg.user;
      app.seat = msg.seat;
      app.squeezeRate = msg.squeeze_rate;
      if (app.pendingSit) {
        const { tableId, seat } = app.pendingSit;
        app.pendingSit = null;
        app.sit(tableId, seat);
      } else if (app.tableId || msg.seat) {
        app.watch(app.tableId || msg.seat.table_id);
      } else {
        const m = location.hash.match(/^#\/table\/(.+)$/);
        if (m) app.watch(decodeURIComponent(m[1]));
        else if (location.hash === "#/history") app.showHistory();
        else app.showLobby();
      }
      break;
    case "lobby":
      app.lobby = { rooms: msg.rooms, tables: msg.tables, room: msg.room ?? null, page: msg.page ?? 0,
        road: msg.road ?? null, pages: msg.pages ?? 1, total: msg.total ?? msg.tables.length };
      // Not while a table is being entered: the table screen is about to replace the lobby.
      if (app.screen === "lobby" && !app.tableId) app.renderLobby();
      break;
    case "lobby.update": {
      // Each entry names a table of this page and carries only the fields that changed.
      if (!app.lobby) break;
      for (const change of msg.tables) {
        const i = app.lobby.tables.findIndex((tb) => tb.table_id === change.table_id);
        if (i >= 0) app.lobby.tables[i] = { ...app.lobby.tables[i], ...change };
      }
      // Not while a table is being entered: the table screen is about to replace the lobby.
      if (app.screen === "lobby" && !app.tableId) app.renderLobby();
      break;
    }
    case "snapshot":
      onSnapshot(msg);
      break;
    case "event":
      onEvent(msg);
      break;
    case "error":
      if (msg.code) app.toast(errorText(msg), "error");
      break;
    default:
      break;
  }
}

onLang(() => {
  if (app.screen === "login") app.showLogin();
  else if (app.screen === "lobby") app.renderLobby();
  else if (app.screen === "history") mount(root, historyScreen(app));
  else if (app.screen === "table" && app.snapshot) {
    app.table.destroy();
    app.table = new TableScreen(app, app.table);
    mount(root, app.table.el);
    app.table.setState(app.snapshot);
  }
  offline.textContent = t("offline");
  document.title = t("title");
});

async function boot() {
  setLang(getLang());
  sessionStart();
  const arrived = new URLSearchParams(location.search);
  if (arrived.has("entered")) {
    // Arrived from another node with a ticket: this node has set our session cookie.
    markSession(true);
    if (arrived.get("left")) rememberLeft(arrived.get("left"));
    history.replaceState(null, "", location.pathname + location.hash);
  }
  if (!localStorage.getItem(SESSION_MARK)) {
    app.showLogin();
    return;
  }
  try {
    const data = await api("/api/me");
    app.user = data.user;
    app.connect();
  } catch {
    // The session ended (expired, or logged out elsewhere): log in again.
    markSession(false);
    app.showLogin();
  }
}

window.baccaratApp = app; // for the browser tests and the curious
boot();
