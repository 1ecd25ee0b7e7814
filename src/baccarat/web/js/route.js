// Where the page's table runs, behind one public address: the nodes' own paths the lobby
// named, the ones that failed lately or gave the table up, and asking the lobbies where the
// table runs now (as the bots do, baccarat/bots/route.py), so that the socket goes straight
// to the node that runs it rather than to whichever node it tries first.

import { ask } from "./net.js";

const ASK_WITHIN = 1500; // ms one lobby may take to answer
const ASKED_AT_ONCE = 3; // the address itself and two nodes' own paths
const FAILED_FOR = 30000; // how long a node that stopped answering is asked nothing
// A line that still names the node that gave the table up (4002, or table_closing) is
// believed only after this long: until then it is the line that node has not withdrawn yet.
const LEFT_FOR = 5000;

/** A URL's path behind this page's own address (no trailing slash), or null on another one. */
export function pathOf(url) {
  const there = new URL(url, location.href);
  return there.origin === location.origin ? there.pathname.replace(/\/$/, "") : null;
}

export class Route {
  constructor() {
    this.known = new Set(); // nodes' own paths behind this address, as lobby lines named them
    this.failed = new Map(); // path -> when it last failed to answer
    this.left = null; // {path, at}: the node that gave the table up last
  }

  /** Remember the nodes' paths that lobby lines name. */
  learn(lines) {
    for (const { url } of lines ?? []) {
      const path = url ? pathOf(url) : null;
      if (path) this.known.add(path);
    }
  }

  /** The node at `path` stopped answering. */
  failing(path) {
    if (path) this.failed.set(path, Date.now());
  }

  /** The node at `path` gives the table up (it closes it, or closed its socket with 4002). */
  leaving(path) {
    this.left = { path, at: Date.now() };
  }

  /** Whether the node at `path` failed to answer lately. */
  failedLately(path) {
    return Date.now() - (this.failed.get(path) ?? 0) < FAILED_FOR;
  }

  // Where to ask: the address itself (the proxy picks a node that is up), and a few nodes'
  // own paths that have not failed lately.
  bases() {
    const fresh = [...this.known].filter((path) => !this.failedLately(path));
    return ["", ...fresh.sort()].slice(0, ASKED_AT_ONCE);
  }

  // Whether a line naming `path` is the word of the node that runs the table now.
  believed(path) {
    return !this.left || path !== this.left.path || Date.now() - this.left.at > LEFT_FOR;
  }

  /**
   * Ask the lobbies where `tableId` runs now: `{answered: false}` when none answered;
   * else `path` (the node's own path behind this address; "" with a single node), or
   * `elsewhere` (a node at another address), or neither while no node runs the table.
   */
  async find(tableId) {
    const answers = await Promise.all(this.bases().map((base) =>
      ask(`${base}/api/lobby`, ASK_WITHIN).then((data) => data?.tables ?? [], () => null)));
    const heard = answers.filter((tables) => tables !== null);
    if (!heard.length) return { answered: false };
    let cluster = false;
    let url = null;
    for (const tables of heard) {
      this.learn(tables);
      cluster ||= tables.some((tb) => tb.url);
      const line = tables.find((tb) => tb.table_id === tableId && tb.url);
      const path = line ? pathOf(line.url) : null;
      if (line && (path === null || this.believed(path))) url = line.url;
    }
    if (!cluster) return { answered: true, path: "" };
    if (url === null) return { answered: true };
    const path = pathOf(url);
    return path === null ? { answered: true, elsewhere: url } : { answered: true, path };
  }
}
