// The lobby: one page of tables followed over the socket while the lobby shows, and the names
// of rooms and tables in every language (the table's top bar and My bets name them too).

import { api } from "./net.js";
import { lobbyScreen, FILTER_KEY } from "./lobby.js";
import { shell } from "./shell.js";
import { whenReleased } from "./press.js";

export class LobbyControl {
  /**
   * `to.watch(tableId)`, `to.sit(tableId, seat)` and `to.history()` leave the lobby;
   * `to.entering()` says a table is being entered (its screen is about to replace the lobby).
   */
  constructor(session, to) {
    this.session = session;
    this.to = to;
    this.page = null; // the page last sent: {rooms, tables, room, page, road, pages, total}
    // The page this client looks at; its good-road filter (好路) is remembered.
    this.wanted = { room: null, page: 0, road: localStorage.getItem(FILTER_KEY) || null };
    this.on = false; // subscribed: only while the lobby shows
    this.fetched = null; // the names fetched over HTTP for a table entered without the lobby
    this.asking = null;
  }

  show() {
    if (location.hash) history.replaceState(null, "", location.pathname);
    this.render();
    if (!this.on) this.subscribe();
  }

  render() {
    const screen = lobbyScreen({
      lobby: this.page,
      user: this.session.user,
      seat: this.session.seat,
      room: this.wanted.room,
      watch: (tableId) => this.to.watch(tableId),
      sit: (tableId, seat) => this.to.sit(tableId, seat),
      subscribe: (view) => this.subscribe(view),
      history: () => this.to.history(),
      logout: () => this.session.logout(),
    });
    shell.show("lobby", screen, { relang: () => this.render() });
  }

  /** Draw the lobby again if it shows (and no table is being entered instead), once no
   * pointer is pressed on it: a redraw under a tap would lose the tap. */
  redraw() {
    whenReleased(this.redrawNow);
  }

  redrawNow = () => {
    if (shell.screen === "lobby" && !this.to.entering()) this.render();
  };

  /** Follow one page of the lobby (a room's tables, or every room's); a fresh page follows. */
  subscribe(view = this.wanted) {
    const road = view.road === undefined ? this.wanted.road : view.road;
    this.wanted = { room: view.room ?? null, page: view.page ?? 0, road: road ?? null };
    this.on = true;
    const fields = { page: this.wanted.page };
    if (this.wanted.room) fields.room = this.wanted.room;
    if (this.wanted.road) fields.road = this.wanted.road;
    this.session.send("lobby.subscribe", fields).catch(() => {
      this.on = false;
    });
  }

  /** Stop the lobby's updates: no other screen shows the lobby. */
  unsubscribe() {
    if (!this.on) return;
    this.on = false;
    this.session.send("lobby.unsubscribe").catch(() => {});
  }

  /** A new socket has no subscription. */
  socketOpened() {
    this.on = false;
  }

  /** A lobby message: a whole page, or the changed fields of some of its tables. */
  received(msg) {
    if (msg.type === "lobby") {
      this.session.route.learn(msg.tables);
      this.page = { rooms: msg.rooms, tables: msg.tables, room: msg.room ?? null, page: msg.page ?? 0,
        road: msg.road ?? null, pages: msg.pages ?? 1, total: msg.total ?? msg.tables.length };
    } else {
      if (!this.page) return;
      this.session.route.learn(msg.tables);
      for (const change of msg.tables) {
        const i = this.page.tables.findIndex((tb) => tb.table_id === change.table_id);
        if (i >= 0) this.page.tables[i] = { ...this.page.tables[i], ...change };
      }
    }
    this.redraw();
  }

  /** The rooms and tables whose names are known: the lobby's page, and any fetched since. */
  known() {
    if (!this.fetched) return this.page;
    return { rooms: [...(this.page?.rooms ?? []), ...this.fetched.rooms],
      tables: [...(this.page?.tables ?? []), ...this.fetched.tables] };
  }

  /** Fetch every room's and table's names over HTTP (once; again after a failure). */
  fetchNames() {
    this.asking ??= api("/api/lobby").then((data) => {
      this.fetched = { rooms: data.rooms, tables: data.tables };
      this.session.route.learn(data.tables);
    }, (err) => {
      this.asking = null;
      throw err;
    });
    return this.asking;
  }

  /** The other nodes' addresses the lobby named, at other hosts than this page's (none with a
   * single server, nor behind one public address, where a node is a path of this one). */
  nodes() {
    const urls = new Set((this.page?.tables ?? []).map((tb) => tb.url).filter(Boolean));
    return [...urls].filter((url) => new URL(url, location.href).origin !== location.origin);
  }
}
