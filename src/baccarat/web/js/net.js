// HTTP calls and the one WebSocket: commands with ids, acks, and reconnecting by itself.

/** POST or GET a JSON endpoint; throws {code, message} on a refusal. */
export async function api(path, body) {
  const res = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = data?.error ?? { code: `http_${res.status}`, message: res.statusText };
    throw err;
  }
  return data;
}

/** The close code the page gives a socket whose node stopped answering (never the server's). */
export const SILENT = 4900;
// A socket that has heard nothing for PING_AFTER ms sends a ping; one whose ping has gone
// unanswered for DEAD_AFTER ms, or that has not opened within OPEN_WITHIN ms, is given up:
// a frozen node never closes its sockets, and the browser would wait on it for minutes.
// (Generous: a busy phone may read its messages late, and the table's node is taken over
// only when its lease runs out, 10 s by default, anyway.)
const PING_AFTER = 2000;
const DEAD_AFTER = 5000;
const OPEN_WITHIN = 5000;
const WATCH_EVERY = 500;

/** The table WebSocket. Calls handlers.message(msg), .open(), .close(willRetry, code). */
export class Connection {
  constructor(handlers) {
    this.handlers = handlers;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map();
    this.retry = 0;
    this.stopped = false;
    this.timer = null;
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
      this.retry = 0;
      this.heardAt = performance.now();
      this.handlers.open?.();
    };
    ws.onmessage = (ev) => {
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
    if (code === SILENT) ws.close();
    for (const { reject } of this.pending.values()) {
      reject({ code: "offline", message: "The connection was lost." });
    }
    this.pending.clear();
    // 4001: the session ended (4003: an operator banned the account); reconnecting would
    // only be refused.
    const retry = !this.stopped && code !== 4001 && code !== 4003;
    this.handlers.close?.(retry, code);
    if (retry) this.schedule();
  }

  schedule() {
    // Exponential backoff with jitter: 0.5 s, 1 s, 2 s ... capped at 15 s.
    const delay = Math.min(15000, 500 * 2 ** this.retry) * (0.75 + Math.random() * 0.5);
    this.retry += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
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
    for (const { reject } of this.pending.values()) {
      reject({ code: "offline", message: "The connection moved." });
    }
    this.pending.clear();
    clearTimeout(this.timer);
    this.retry = 0;
    this.connect();
  }

  /** Close for good (logout). */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.close();
  }
}
