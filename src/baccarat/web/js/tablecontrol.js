// The table being watched: its store (the one view of it), the commands that enter, sit at
// and leave it, and its screen, drawn again from the store after each snapshot and event.

import { errorText, t } from "./i18n.js";
import { TableStore } from "./store.js";
import { names } from "./selectors.js";
import { TableScreen } from "./table.js";
import { fetchTotals } from "./history.js";
import { play } from "./sound.js";
import { shell, toast } from "./shell.js";
import { whenReleased } from "./press.js";
import { atTable } from "./device.js";

const OPENING_FOR = 30000; // how long a table between nodes is waited for (leases are shorter)

export class TableControl {
  /** `to.history()` opens My bets (a button of the table's top bar). */
  constructor(session, lobby, to) {
    this.session = session;
    this.lobby = lobby;
    this.to = to;
    this.store = new TableStore();
    this.tableId = null; // the table watched, or being entered
    this.screen = null; // the TableScreen, while the table shows
    this.pendingSit = null; // a sit to make once the socket reached the table's node
    this.openingOf = null; // {tableId, since}: the table answering table_opening, from when
    this.totals = null; // the day's and the session's net: {day, session} from /api/my/net
    this.resyncTimer = null;
    this.resyncs = 0; // snapshots asked for since the page loaded (the browser tests read it)
    this.resyncCauses = {}; // the events that asked for them, by name
  }

  /** The table's view as the server projects it, kept with the reducer (null without one). */
  get view() {
    return this.store.view;
  }

  send(type, fields) {
    return this.session.send(type, fields);
  }

  history() {
    this.to.history();
  }

  watch(tableId) {
    this.tableId = tableId;
    history.replaceState(null, "", `#/table/${encodeURIComponent(tableId)}`);
    this.send("table.watch", { table_id: tableId }).then(() => { this.openingOf = null; }, (err) => {
      if (this.elsewhere(err, tableId) || this.opening(err, tableId, () => this.watch(tableId))) return;
      // (a seat kept there, or a socket lost under the command: never the lobby meanwhile)
      if (this.session.stays(tableId, err)) return;
      toast(errorText(err), "error");
      this.openingOf = null;
      this.tableId = null;
      this.lobby.show();
    });
  }

  sit(tableId, seat) {
    this.tableId = tableId;
    history.replaceState(null, "", `#/table/${encodeURIComponent(tableId)}`);
    this.send("sit", { table_id: tableId, seat }).then(
      () => {
        this.openingOf = null;
        this.session.seat = { table_id: tableId, seat };
      },
      (err) => {
        if (this.elsewhere(err, tableId, seat) || this.opening(err, tableId, () => this.sit(tableId, seat))) return;
        play("refuse");
        toast(errorText(err), "error");
        if (shell.screen !== "table") this.watch(tableId);
      },
    );
  }

  stand() {
    this.send("stand").then(() => {
      this.session.seat = null;
    }, (err) => toast(errorText(err), "error"));
  }

  /** Back to the lobby: stop watching (a seat is kept), and show the coins the table left. */
  leave() {
    this.send("table.leave").catch(() => {});
    this.tableId = null;
    this.lobby.show();
    this.session.refreshMe().then(() => this.lobby.redraw());
  }

  /** Stop watching the table, if one is watched; the table it was, or null. */
  unwatch() {
    const was = this.tableId ?? null;
    if (was) this.send("table.leave").catch(() => {});
    this.tableId = null;
    return was;
  }

  /** After the hello: the sit or the table this page was at, else the user's seat; whether
   * there was one to go to. */
  resume(seat) {
    if (this.pendingSit) {
      const { tableId, seat: at } = this.pendingSit;
      this.pendingSit = null;
      this.sit(tableId, at);
      return true;
    }
    if (this.tableId || seat) {
      this.watch(this.tableId || seat.table_id);
      return true;
    }
    return false;
  }

  /** Follow a table_elsewhere refusal to the table's node (and sit there, if that was
   * asked); whether it was one. */
  elsewhere(err, tableId, seat = null) {
    const url = err.code === "table_elsewhere" ? err.details?.url : null;
    if (!url) return false;
    const there = new URL(url, location.href);
    if (there.origin === location.origin) {
      // One public address (a proxy routes each node's path): the session is good on every
      // node, so only the socket moves, to the table's node.
      this.tableId = tableId;
      this.pendingSit = seat === null ? null : { tableId, seat };
      this.session.conn.moveTo(there.pathname.replace(/\/$/, ""));
    } else if (this.session.leftRecently(url)) {
      // The node this page left because it died: the table comes here once its lease runs out.
      setTimeout(() => this.watch(tableId), 1000);
    } else {
      this.session.moveTo(url, tableId);
    }
    return true;
  }

  /** A table_opening refusal (its node died and the next has not started it yet, for a
   * lease's ttl at most): ask again in a second, for up to OPENING_FOR (while a seat is kept
   * there, for as long as it is); whether it was one. */
  opening(err, tableId, again) {
    if (err.code !== "table_opening") return false;
    if (this.openingOf?.tableId !== tableId) {
      this.openingOf = { tableId, since: Date.now() };
      toast(t("opening_wait"), "info", 6000);
    }
    const kept = this.session.away.tableId === tableId && this.session.away.held;
    if (Date.now() - this.openingOf.since > OPENING_FOR && !kept) return false;
    setTimeout(() => {
      if (this.tableId === tableId) again();
    }, 1000);
    return true;
  }

  /** Ask the server for the day's and the session's totals and redraw them. */
  refreshTotals() {
    fetchTotals().then((totals) => {
      this.totals = totals;
      if (this.screen && this.view) this.screen.drawTop(this.view);
    }, () => {});
  }

  /** Ask for a fresh snapshot of the watched table. */
  resync() {
    this.resyncs += 1;
    this.send("resync").catch(() => {});
  }

  scheduleResync(cause) {
    this.resyncCauses[cause] = (this.resyncCauses[cause] ?? 0) + 1;
    // Many events come in a burst (betting closes, four cards are dealt): one snapshot covers them.
    clearTimeout(this.resyncTimer);
    this.resyncTimer = setTimeout(() => this.resync(), 40);
  }

  snapshot(msg) {
    if (msg.table_id !== this.tableId) return;
    if (!this.screen) {
      this.lobby.unsubscribe();
      this.screen = new TableScreen(this);
      this.showScreen();
      // The table opens at its top (the felt), wherever the lobby was scrolled to.
      scrollTo(0, 0);
      this.refreshTotals();
    }
    this.store.take(msg);
    this.draw();
    if (!names(this.view, this.lobby.known()).table.names) this.fetchNames();
  }

  event(msg) {
    if (msg.table_id !== this.tableId || !this.screen) return;
    const got = this.store.apply(msg);
    if (got === "old") return;
    if (got === "gap") {
      this.scheduleResync("gap");
      return;
    }
    if (msg.event === "table_closing") this.session.tableClosing();
    if (msg.event === "round_settled" && String(this.session.user?.id) in (msg.data?.settlement?.deltas ?? {})) {
      this.refreshTotals();
    }
    if (got === "missed") {
      this.scheduleResync(msg.event);
      return;
    }
    // Every event went into the view; the screen plays what the event brings (a sound, a
    // chip's flight, the peel) and is drawn again from the view unless nothing else changed.
    if (!this.screen.react(msg.event, msg.data || {}, Boolean(msg.private))) whenReleased(this.drawLater);
  }

  /** Draw once no mouse button is pressed: a redraw under a click (on an area while others'
   * chips come) would replace the button and lose the click. */
  drawLater = () => {
    if (this.screen && this.store.view) this.draw();
  };

  /** Draw the screen from the store, and note where the user sits. */
  draw() {
    const view = this.store.view;
    const seat = view.me.seat;
    if (seat !== null) this.session.seat = { table_id: view.table_id, seat };
    else if (this.session.seat?.table_id === view.table_id) this.session.seat = null;
    if (seat === null && this.session.away.tableId === view.table_id) {
      // Back at the table, whose seat was let go meanwhile (the grace ran out).
      this.session.away.end();
      toast(t("seat_released"), "error", 8000);
    }
    this.screen.render(view);
  }

  /** A table entered without the lobby (a reload, a link): its and its room's names in every
   * language come from the lobby over HTTP, and the top bar is drawn again with them. */
  fetchNames() {
    this.lobby.fetchNames().then(() => {
      if (this.screen && this.view) this.screen.drawTop(this.view);
    }, () => {});
  }

  showScreen() {
    shell.show("table", this.screen.el, { leave: () => this.close(), relang: () => this.relang() });
    atTable(true);
  }

  /** Another screen replaced the table's: it stops, and the view is forgotten. */
  close() {
    atTable(false);
    this.screen?.destroy();
    this.screen = null;
    this.store.clear();
  }

  relang() {
    this.screen.destroy();
    this.screen = new TableScreen(this, this.screen);
    this.showScreen();
    this.screen.render(this.store.view);
  }
}
