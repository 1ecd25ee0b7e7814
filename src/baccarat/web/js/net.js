// HTTP calls and the one WebSocket: commands with ids, acks, and reconnecting by itself.

/** POST or GET a JSON endpoint; throws {code, message} on a refusal (with `retry_after`, in
 * seconds, when the answer said when to come back). */
export async function api(path, body) {
  const res = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
  const data = await res.json().catch(() => null);
  if (!res.ok) throw refusal(res, data);
  return data;
}

/** GET a JSON endpoint, given up after `ms`: its JSON; throws as api() does, with the code
 * `offline` when nothing answered in time. */
export async function ask(path, ms) {
  const timer = new AbortController();
  const stop = setTimeout(() => timer.abort(), ms);
  try {
    const res = await fetch(path, { credentials: "same-origin", signal: timer.signal });
    const data = await res.json().catch(() => null);
    if (!res.ok) throw refusal(res, data);
    return data;
  } catch (err) {
    // (an abort's DOMException has a numeric `code` of its own)
    throw typeof err?.code === "string" ? err : { code: "offline", message: "Nothing answered in time." };
  } finally {
    clearTimeout(stop);
  }
}

// A refusal as the page reads it: the server's {code, message}, or (a proxy's own error page is
// HTML) its status; and when to ask again, if the answer said (`Retry-After` in seconds).
function refusal(res, data) {
  const err = { ...(data?.error ?? { code: `http_${res.status}`, message: res.statusText }) };
  const after = Number(res.headers.get("Retry-After"));
  if (after > 0) err.retry_after = after;
  return err;
}

/** The close code the page gives a socket whose node stopped answering (never the server's). */
export const SILENT = 4900;
/** The close code the page gives a socket it leaves to look for its table's node again. */
export const REROUTE = 4901;
// A socket that has heard nothing for PING_AFTER ms sends a ping; one whose ping has gone
// unanswered for DEAD_AFTER ms, or that has not opened within OPEN_WITHIN ms, is given up:
// a frozen node never closes its sockets, and the browser would wait on it for minutes.
// (Generous: a busy phone may read its messages late, and the table's node is taken over
// only when its lease runs out, 10 s by default, anyway.)
const PING_AFTER = 2000;
const DEAD_AFTER = 5000;
const OPEN_WITHIN = 5000;
const WATCH_EVERY = 500;

/** The close code of a table that moved to another node (its seat waits there). */
export const MOVED = 4002;
// Reconnecting: a pause that doubles from 0.5 s, with jitter, up to CAP (HELD_CAP while a seat
// waits: it waits only for the reconnect grace); after a move, a moment only.
const CAP = 15000;
const HELD_CAP = 4000;
const MOVED_PAUSE = 200;

/**
 * The table WebSocket. Calls handlers.message(msg), .open(), .close(willRetry, code); before
 * each reconnect, `await handlers.ready()` says whether to go now (`{go: true}`, to
 * `this.base`), wait (`{after: ms}`, or `{backoff: true}`) or stop (`{stop: true}`), and
 * `handlers.held()` whether a seat waits meanwhile.
 */
export class Connection {
  constructor(handlers) {
    this.handlers = handlers;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map();
    this.retry = 0;
    this.stopped = false;
    this.timer = null;
    this.turn = 0; // the reconnect planned last: a move or a stop makes older ones moot
    this.nextAt = 0; // when (Date.now()) the next try is due
    this.base = ""; // the path of the node this socket goes to, behind one public address
    this.heardAt = 0; // when this socket last received anything (or opened)
    this.pingAt = 0; // when an unanswered ping went out (0: none)
    this.silences = 0; // sockets given up on for their silence
    this.watchedAt = 0;
    setInterval(() => this.watch(), WATCH_EVERY);
  }

  // Give up on a socket that stopped answering (see PING_AFTER).
  watch() {
    const ws = this.ws;
    const now = performance.now();
    // A page that was itself too busy to look (its timer came late) may not have read
    // what came meanwhile either: it judges nothing this time.
    const late = now - this.watchedAt > 3 * WATCH_EVERY;
    this.watchedAt = now;
    if (!ws || late) return;
    if (ws.readyState === WebSocket.CONNECTING) {
      if (now - this.openedAt > OPEN_WITHIN) this.lost(ws, SILENT);
      return;
    }
    if (ws.readyState !== WebSocket.OPEN) return;
    if (this.pingAt && now - this.pingAt > DEAD_AFTER) {
      this.silences += 1;
      this.lost(ws, SILENT);
    } else if (!this.pingAt && now - this.heardAt > PING_AFTER) {
      this.pingAt = now;
      this.send("ping").catch(() => {});
    }
  }

  /** Open the socket (again). */
  connect() {
    this.stopped = false;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}${this.base}/ws`);
    this.ws = ws;
    this.openedAt = performance.now();
    this.pingAt = 0;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.retry = 0;
      this.heardAt = performance.now();
      this.handlers.open?.();
    };
    ws.onmessage = (ev) => {
      // (a socket left for another says nothing more to this page)
      if (this.ws !== ws) return;
      this.heardAt = performance.now();
      this.pingAt = 0;
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if ((msg.type === "ack" || msg.type === "error") && this.pending.has(msg.id)) {
        const { resolve, reject } = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.type === "ack") resolve(msg);
        else reject(msg);
        return;
      }
      this.handlers.message?.(msg);
    };
    ws.onclose = (ev) => this.lost(ws, ev.code);
  }

  // The socket closed (or was given up on, with SILENT): reject what waits, tell, retry.
  lost(ws, code) {
    if (this.ws !== ws) return;
    this.ws = null;
    if (code === SILENT || code === REROUTE) ws.close();
    this.rejectPending("The connection was lost.");
    // 4001: the session ended (4003: an operator banned the account); reconnecting would
    // only be refused.
    const retry = !this.stopped && code !== 4001 && code !== 4003;
    this.handlers.close?.(retry, code);
    if (retry && !this.stopped) this.schedule(code);
  }

  rejectPending(message) {
    for (const { reject } of this.pending.values()) reject({ code: "offline", message });
    this.pending.clear();
  }

  /** Plan the next try: after a move at once, else after the backoff's next pause. */
  schedule(code) {
    if (code === MOVED) {
      this.later(MOVED_PAUSE);
      return;
    }
    this.later(this.backoff());
  }

  // The next pause of the backoff, jittered (so that the pages a node dropped together do
  // not come back together).
  backoff() {
    const cap = this.handlers.held?.() ? HELD_CAP : CAP;
    const pause = Math.min(cap, 500 * 2 ** this.retry);
    this.retry += 1;
    return pause * (0.75 + Math.random() * 0.5);
  }

  // Try again after `delay` ms, once `handlers.ready()` agrees.
  later(delay) {
    clearTimeout(this.timer);
    const turn = ++this.turn;
    this.nextAt = Date.now() + delay;
    this.timer = setTimeout(async () => {
      const plan = this.handlers.ready ? await this.handlers.ready().catch(() => ({ backoff: true })) : { go: true };
      if (turn !== this.turn || this.stopped || plan.stop) return;
      if (plan.go) this.connect();
      else this.later(plan.after ?? this.backoff());
    }, delay);
  }

  /** Whether the socket is open. */
  get online() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /** Send a command; resolves with its ack, rejects with its error. */
  send(type, fields = {}) {
    if (!this.online) {
      return Promise.reject({ code: "offline", message: "Not connected." });
    }
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ type, id, ...fields }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  /** Open the socket again at another path: another node behind the same address. */
  moveTo(base) {
    this.base = base;
    const old = this.ws;
    this.ws = null; // its close is no longer this connection's
    old?.close();
    this.rejectPending("The connection moved.");
    clearTimeout(this.timer);
    this.turn += 1;
    this.retry = 0;
    this.connect();
  }

  /** Leave this socket for another, opened once `handlers.ready()` says where: its node
   * cannot show what the page needs. */
  reroute() {
    if (this.ws) this.lost(this.ws, REROUTE);
  }

  /** Close for good (logout). */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.turn += 1;
    this.ws?.close();
  }
}
