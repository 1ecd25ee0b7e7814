// Who is logged in, and the one connection to the server: logging in and out, the hello, and
// finding the table's node again when the one this page talks to stops answering.

import { api, Connection, SILENT } from "./net.js";
import { errorText, t } from "./i18n.js";
import { keepAwake } from "./device.js";
import { loginScreen } from "./lobby.js";
import { shell, toast } from "./shell.js";

// Whether this browser logged in last time. The session cookie is HttpOnly, so the page cannot
// see it; without this mark a first visit would ask /api/me only to be answered 401, which the
// browser logs as an error in the console.
const SESSION_MARK = "baccarat.session";
const markSession = (on) => (on ? localStorage.setItem(SESSION_MARK, "1") : localStorage.removeItem(SESSION_MARK));

// With many nodes, a seated user keeps a spare ticket, so that if this node dies the page
// can still move to the node that takes the table over without logging in again.
const FAILOVER_TRIES = 3;
const LEFT = "baccarat.left"; // the node this tab left because it stopped answering
const LEFT_AT = "baccarat.left_at"; // when
const LEFT_FOR = 30000; // how long a left node's table is waited for here (leases are shorter)
const SPARE_EVERY = 45000;

function rememberLeft(origin) {
  sessionStorage.setItem(LEFT, origin);
  sessionStorage.setItem(LEFT_AT, String(Date.now()));
}

export class Session {
  /**
   * `on.hello(msg)` after the server's hello, `on.message(msg)` for every other message;
   * `on.opened()` when a new socket opens; `on.tableId()` is the table the page is at and
   * `on.nodes()` the other nodes the lobby named (for the move when this node goes), and
   * `on.paths()` their paths behind this page's own address, if they have one, and
   * `on.pathOf(tableId)` the path of the node that runs a table.
   */
  constructor(on) {
    this.on = on;
    this.user = null;
    this.held = null;
    this.squeezeRate = 10; // peel moves a second the server passes on (its hello says)
    this.conn = null;
    this.spare = { ticket: null, at: 0 };
    this.failedPaths = new Map(); // node path -> when its socket last stopped answering
    setInterval(() => this.keepSpare(), 5000);
  }

  /** Where the user sits ({table_id, seat}) or null. */
  get seat() {
    return this.held;
  }

  // While the player holds a seat the phone's screen stays on (a round waits for nobody).
  set seat(seat) {
    this.held = seat;
    keepAwake(Boolean(seat));
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
    });
    this.conn.connect();
  }

  showLogin() {
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
      this.bootDelay = 0;
      this.connect();
    } catch (err) {
      if (err?.code === "not_authenticated") {
        // The session ended (expired, or logged out elsewhere): log in again.
        markSession(false);
        this.showLogin();
        return;
      }
      // The server could not say (its database down, a node restarting, no network): the
      // session stands; ask again, less often each time.
      shell.offline(true);
      this.bootDelay = Math.min(Math.max(2 * (this.bootDelay ?? 0), 500), 8000);
      setTimeout(() => this.boot(), this.bootDelay);
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
    shell.offline(false);
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

  closed(willRetry, code) {
    if (code === 4001 || code === 4003) markSession(false);
    if (code === 4003) toast(t("account_closed"), "error");
    if (code === 4001 || code === 4003 || !this.user) {
      this.showLogin();
      return;
    }
    shell.offline(willRetry);
    // 4002: the table moved (its node is stopping, or another node took it), or the node
    // stopped answering (SILENT): look for the table elsewhere at once, rather than after a
    // few tries at this node.
    const gone = code === 4002 || code === SILENT || (this.conn?.retry ?? 0) >= FAILOVER_TRIES;
    if (willRetry && this.conn && gone && this.anotherPath()) return;
    // This node is gone while a table is open here: after a few tries, find the table on
    // another node (the lobby said which nodes there are), with the spare ticket.
    const tableId = this.on.tableId();
    if (willRetry && tableId && this.conn && gone) {
      const others = this.on.nodes();
      // (A browser that knows it is offline stays: another node is no nearer.)
      if (others.length && this.spare.ticket && navigator.onLine !== false) {
        const ticket = this.spare.ticket;
        this.spare.ticket = null;
        rememberLeft(location.origin);
        this.conn.stop();
        this.moveTo(others[0], tableId, ticket, location.origin);
      }
    }
  }

  // Behind one public address, the node this socket reached stopped answering (the address
  // itself reaches whichever node the proxy picks, which may be the very one that froze): go
  // to another node's own path, one the lobby named that has not failed lately, and only then
  // to the address itself. Any node will say where the table runs now. Whether it moved.
  anotherPath() {
    const here = this.conn.base;
    const now = Date.now();
    this.failedPaths.set(here, now);
    // Reached through the address itself, the socket was on the node that runs the table.
    const table = this.on.tableId();
    const ran = table ? this.on.pathOf(table) : null;
    if (!here && ran) this.failedPaths.set(ran, now);
    const fresh = (path) => now - (this.failedPaths.get(path) ?? 0) > LEFT_FOR;
    const next = this.on.paths().find((path) => path !== here && fresh(path));
    if (next !== undefined) {
      this.conn.moveTo(next);
      return true;
    }
    if (here) {
      this.conn.moveTo("");
      return true;
    }
    return false;
  }

  // A fresh spare ticket now and then, while seated at a table of a system of many nodes.
  keepSpare() {
    const many = this.on.nodes().length > 0;
    if (!many || !this.seat || !this.conn?.online || Date.now() - this.spare.at < SPARE_EVERY) return;
    this.spare.at = Date.now();
    api("/api/ticket", {}).then((data) => { this.spare.ticket = data.ticket; }, () => {});
  }
}
