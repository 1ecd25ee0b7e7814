// Who is logged in, and the one connection to the server: logging in and out, the hello, and
// finding the table's node again when the one this page talks to stops answering or gives
// the table up. Nothing here sends the page to an error page: a node or a proxy that cannot
// answer is asked again, when its Retry-After says or after a growing pause, for as long as
// it takes; a seat waits meanwhile for the table's reconnect grace (away.js).

import { api, ask, Connection, MOVED, SILENT } from "./net.js";
import { errorText, t } from "./i18n.js";
import { keepAwake } from "./device.js";
import { loginScreen } from "./lobby.js";
import { shell, toast } from "./shell.js";
import { Away } from "./away.js";
import { Route } from "./route.js";

// Whether this browser logged in last time. The session cookie is HttpOnly, so the page cannot
// see it; without this mark a first visit would ask /api/me only to be answered 401, which the
// browser logs as an error in the console.
const SESSION_MARK = "baccarat.session";
const markSession = (on) => (on ? localStorage.setItem(SESSION_MARK, "1") : localStorage.removeItem(SESSION_MARK));

// With many nodes at addresses of their own, a seated user keeps a spare ticket, so that if
// this node dies the page can still move to the node that takes the table over without
// logging in again.
const FAILOVER_TRIES = 3;
const LEFT = "baccarat.left"; // the node this tab left because it stopped answering
const LEFT_AT = "baccarat.left_at"; // when
const LEFT_FOR = 30000; // how long a left node's table is waited for here (leases are shorter)
const SPARE_EVERY = 45000;
const FOLLOW_EVERY = 1000; // ms between two looks at the lobbies while no node runs the table
const OPENING_FOR = 30000; // how long a table watched without a seat is followed between nodes
const PROBE_WITHIN = 3000; // ms a node may take to say who we are before a socket is opened
const AFTER_CAP = 30000; // the longest Retry-After honoured as given

function rememberLeft(origin) {
  sessionStorage.setItem(LEFT, origin);
  sessionStorage.setItem(LEFT_AT, String(Date.now()));
}

// A pause of `seconds` (a Retry-After) in ms, capped, with jitter above it.
const after = (seconds) => Math.min(AFTER_CAP, seconds * 1000) * (1 + Math.random() * 0.25);

export class Session {
  /**
   * `on.hello(msg)` after the server's hello, `on.message(msg)` for every other message;
   * `on.opened()` when a new socket opens; `on.tableId()` is the table the page is at,
   * `on.grace()` its seats' reconnect grace in seconds and `on.tableNames(id)` a table's
   * names ({name, names} of its lobby line, or null);
   * `on.nodes()` the other nodes at addresses of their own the lobby named (for the move when
   * this node goes).
   */
  constructor(on) {
    this.on = on;
    this.user = null;
    this.held = null;
    this.squeezeRate = 10; // peel moves a second the server passes on (its hello says)
    this.conn = null;
    this.spare = { ticket: null, at: 0 };
    this.away = new Away(); // the seat kept while the socket is down
    this.route = new Route(); // where the table runs, behind one public address
    this.lostCode = null; // how the last socket closed
    this.lostSince = 0; // when the socket went down (0: it is up)
    this.closingBase = null; // the node that said its table is closing (table_closing)
    this.bootTries = 0;
    this.bootAt = 0; // when the next look at the session is due, while none answered
    setInterval(() => this.keepSpare(), 5000);
    // A reload while seated: the app shell that comes up (if no node answers it) knows the seat.
    addEventListener("pagehide", () => this.goingAway());
  }

  /** Where the user sits ({table_id, seat}) or null. */
  get seat() {
    return this.held;
  }

  // While the player holds a seat the phone's screen stays on (a round waits for nobody).
  set seat(seat) {
    this.held = seat;
    keepAwake(Boolean(seat));
    if (seat) this.away.end();
  }

  /** The seat kept while away, to go back to ({table_id, seat}), or null. */
  get awaySeat() {
    return this.away.held ? { table_id: this.away.tableId, seat: this.away.record.seat } : null;
  }

  send(type, fields) {
    return this.conn ? this.conn.send(type, fields) : Promise.reject({ code: "offline", message: "offline" });
  }

  async authenticate(mode, username, password, displayName) {
    const body = { username, password };
    if (mode === "register" && displayName) body.display_name = displayName;
    const data = await api(mode === "login" ? "/api/login" : "/api/register", body);
    this.user = data.user;
    markSession(true);
    this.connect();
  }

  async logout() {
    this.conn?.stop();
    this.conn = null;
    markSession(false);
    this.away.end();
    try {
      await api("/api/logout", {});
    } catch {
      // Already logged out: the login screen is where we go either way.
    }
    this.user = null;
    this.showLogin();
  }

  connect() {
    this.conn?.stop();
    this.conn = new Connection({
      open: () => this.opened(),
      message: (msg) => this.received(msg),
      close: (willRetry, code) => this.closed(willRetry, code),
      ready: () => this.ready(),
      held: () => this.away.held || Boolean(this.held),
    });
    this.conn.connect();
  }

  showLogin() {
    shell.offline(null);
    shell.show("login", loginScreen(this), { relang: () => this.showLogin() });
  }

  /** Ask the server who we are again (coins change at a table); resolves once known. */
  async refreshMe() {
    try {
      const data = await api("/api/me");
      this.user = data.user;
    } catch {
      // Not logged in any more: the socket will be closed and the login screen shown.
    }
  }

  /** The first look: arrived from another node, logged in before, or neither. */
  async boot() {
    const arrived = new URLSearchParams(location.search);
    if (arrived.has("entered")) {
      // Arrived from another node with a ticket: this node has set our session cookie.
      markSession(true);
      if (arrived.get("left")) rememberLeft(arrived.get("left"));
      history.replaceState(null, "", location.pathname + location.hash);
    }
    if (!localStorage.getItem(SESSION_MARK)) {
      this.showLogin();
      return;
    }
    try {
      const data = await api("/api/me");
      this.user = data.user;
      this.connect();
    } catch (err) {
      if (err?.code === "not_authenticated") {
        // The session ended (expired, or logged out elsewhere): log in again.
        markSession(false);
        this.away.end();
        this.showLogin();
        return;
      }
      // The server could not say (its database down, a node restarting, a proxy with no node
      // up, no network): the session stands; ask again when the answer said, else less often
      // each time.
      const cap = this.away.held ? 4000 : 8000;
      const pause = err?.retry_after ? after(err.retry_after) : backoff(this.bootTries++, cap);
      this.bootAt = Date.now() + pause;
      this.down(true);
      setTimeout(() => this.boot(), pause);
    }
  }

  /** The table runs on another node: go there with a single-use ticket, still logged in. */
  async moveTo(url, tableId, ticket = null, left = null) {
    try {
      ticket = ticket ?? (await api("/api/ticket", {})).ticket;
    } catch (err) {
      toast(errorText(err), "error");
      return;
    }
    // The node left because it died goes along: storage is per origin, and the new node's
    // page must not follow a stale lobby line back to it before the takeover.
    const gone = left ? `&left=${encodeURIComponent(left)}` : "";
    const next = `/?entered=1${gone}#/table/${encodeURIComponent(tableId)}`;
    location.assign(`${url}/api/enter?ticket=${encodeURIComponent(ticket)}&next=${encodeURIComponent(next)}`);
  }

  /** Whether `url` is the node this page left because it died, not long ago. (Past LEFT_FOR
   * that node answers again after all: the page goes back to it.) */
  leftRecently(url) {
    return url === sessionStorage.getItem(LEFT) && Date.now() - Number(sessionStorage.getItem(LEFT_AT)) < LEFT_FOR;
  }

  opened() {
    this.lostSince = 0;
    shell.offline(null);
    this.on.opened();
  }

  received(msg) {
    if (msg.type !== "hello") {
      this.on.message(msg);
      return;
    }
    this.user = msg.user;
    this.seat = msg.seat;
    this.squeezeRate = msg.squeeze_rate;
    this.on.hello(msg);
  }

  /** The table's node said the table is closing: it gives the table up after this round. */
  tableClosing() {
    this.closingBase = this.conn?.base ?? null;
  }

  closed(willRetry, code) {
    if (code === 4001 || code === 4003) markSession(false);
    if (code === 4003) toast(t("account_closed"), "error");
    if (code === 4001 || code === 4003 || !this.user) {
      this.away.end();
      this.showLogin();
      return;
    }
    this.goingAway();
    this.lostCode = code;
    this.lostSince ||= Date.now();
    const base = this.conn.base;
    // 4002: the table moved (its node is stopping, or another node took it); its lobby line
    // may still name that node for a moment. SILENT: the node stopped answering.
    if (code === MOVED || this.closingBase === base) this.route.leaving(base);
    if (code === SILENT) this.route.failing(base);
    this.closingBase = null;
    if (willRetry) this.down(false);
  }

  // The socket goes down (or the page): a seat held waits for its grace from now on.
  goingAway() {
    const seat = this.held;
    if (seat) this.away.begin(seat, this.on.grace(), this.on.tableNames(seat.table_id));
  }

  // Say the page is reconnecting (`now`: at once, without the moment a move takes).
  down(now) {
    shell.offline({ now, read: () => ({ away: this.away.told, nextAt: this.conn ? this.conn.nextAt : this.bootAt }) });
  }

  // Before the socket opens again: to which node, and whether now (Connection's `ready`).
  async ready() {
    const conn = this.conn;
    const table = this.on.tableId() ?? this.away.tableId;
    if (table && !this.on.nodes().length) {
      const wait = await this.findTable(conn, table);
      if (wait) return wait;
    } else if (conn.base && this.route.failedLately(conn.base)) {
      conn.base = ""; // (the lobby is the same on every node: any that is up)
    }
    // (a node that left a ping unanswered for seconds is not asked again before leaving it)
    if (this.lostCode === SILENT && this.leaveHost()) return { stop: true };
    return this.probe(conn);
  }

  // Point the socket at the node that runs `table`, as the lobbies say; a plan to wait instead
  // while no node runs it yet (between two nodes: the seat waits, so does the page), or null.
  async findTable(conn, table) {
    const found = await this.route.find(table);
    const waiting = this.away.held || Date.now() - this.lostSince < OPENING_FOR;
    if (found.path !== undefined && !(found.path && this.route.failedLately(found.path))) {
      conn.base = found.path;
      return null;
    }
    // No node runs it yet, or the line still names the node that stopped answering (its lease
    // has not run out): ask again shortly rather than wait on that node.
    if (found.answered && !found.elsewhere && waiting) return { after: FOLLOW_EVERY };
    return null;
  }

  // Ask the node whether it can take the socket now (it answers who we are): go, wait as its
  // Retry-After says, back off, or leave for another host.
  async probe(conn) {
    try {
      this.user = (await ask(`${conn.base}/api/me`, PROBE_WITHIN)).user ?? this.user;
      return { go: true };
    } catch (err) {
      if (err.code === "not_authenticated") {
        conn.stop();
        this.closed(false, 4001);
        return { stop: true };
      }
      // No answer, or a proxy's own error page (no node behind it answered): that node is
      // out for now. A node's own answer (its store is away) says when to come back.
      const silent = err.code === "offline" || err.code.startsWith("http_");
      if (silent) this.route.failing(conn.base);
      if (silent && this.leaveHost()) return { stop: true };
      return err.retry_after ? { after: after(err.retry_after) } : { backoff: true };
    }
  }

  // With nodes at addresses of their own, this one is gone while a table is open here: go
  // with the spare ticket to another node the lobby named, which finds the table. Whether
  // the page went.
  leaveHost() {
    const gone = this.lostCode === MOVED || this.lostCode === SILENT || this.conn.retry >= FAILOVER_TRIES;
    const tableId = this.on.tableId() ?? this.away.tableId;
    const others = this.on.nodes();
    // (A browser that knows it is offline stays: another node is no nearer.)
    if (!gone || !tableId || !others.length || !this.spare.ticket || navigator.onLine === false) return false;
    const ticket = this.spare.ticket;
    this.spare.ticket = null;
    rememberLeft(location.origin);
    this.conn.stop();
    this.moveTo(others[0], tableId, ticket, location.origin);
    return true;
  }

  /** Whether a refused look at `tableId` leaves the page where it is, rather than in the lobby:
   * the socket went down under it (the page comes back to the table by itself), or the seat
   * there is kept while this node cannot show the table (the page looks for it again). */
  stays(tableId, err) {
    if (err?.code === "offline") return true;
    if (this.away.tableId !== tableId || !this.away.held || !this.conn?.ws) return false;
    this.conn.reroute();
    return true;
  }

  // A fresh spare ticket now and then, while seated at a table of a system of many nodes.
  keepSpare() {
    const many = this.on.nodes().length > 0;
    if (!many || !this.seat || !this.conn?.online || Date.now() - this.spare.at < SPARE_EVERY) return;
    this.spare.at = Date.now();
    api("/api/ticket", {}).then((data) => { this.spare.ticket = data.ticket; }, () => {});
  }
}

// The `tries`-th pause of a backoff that doubles from 0.5 s up to `cap` ms, with jitter.
function backoff(tries, cap) {
  return Math.min(cap, 500 * 2 ** tries) * (0.75 + Math.random() * 0.5);
}
