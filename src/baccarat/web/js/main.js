// The page: the session, the lobby and the table, each its own controller. This module only
// connects them and hands each the server's messages meant for it.

import { getLang, setLang, onLang, errorText } from "./i18n.js";
import { shell, toast } from "./shell.js";
import { Session } from "./session.js";
import { LobbyControl } from "./lobbycontrol.js";
import { TableControl } from "./tablecontrol.js";
import { historyScreen, sessionStart } from "./history.js";

const session = new Session({
  hello,
  message,
  opened: () => lobby.socketOpened(),
  tableId: () => table.tableId,
  grace: () => table.view?.timers?.reconnect_grace_seconds,
  tableNames: (tableId) => lobby.known()?.tables?.find((tb) => tb.table_id === tableId) ?? null,
  nodes: () => lobby.nodes(),
});
const lobby = new LobbyControl(session, {
  watch: (tableId) => table.watch(tableId),
  sit: (tableId, seat) => table.sit(tableId, seat),
  history: () => showHistory(),
  entering: () => Boolean(table.tableId),
});
const table = new TableControl(session, lobby, { history: () => showHistory() });

let returnTo = null; // the table My bets was opened from

/** My bets (投注紀錄); a table being watched is left and watched again on the way back. */
function showHistory() {
  lobby.unsubscribe();
  returnTo = table.unwatch();
  history.replaceState(null, "", "#/history");
  const draw = () => shell.show("history", historyScreen(lobby, back), { relang: draw });
  draw();
}

/** Leave My bets: back to the table it was opened from (else the user's seat), else the lobby. */
function back() {
  const to = returnTo ?? session.seat?.table_id ?? null;
  returnTo = null;
  if (to) table.watch(to);
  else lobby.show();
}

/** The server's hello: go where this page was, else where the user sits (this node's word, or
 * the seat kept while the page was away), else the lobby. */
function hello(msg) {
  if (table.resume(msg.seat ?? session.awaySeat)) return;
  const m = location.hash.match(/^#\/table\/(.+)$/);
  if (m) table.watch(decodeURIComponent(m[1]));
  else if (location.hash === "#/history") showHistory();
  else lobby.show();
}

function message(msg) {
  switch (msg.type) {
    case "lobby":
    case "lobby.update":
      lobby.received(msg);
      break;
    case "snapshot":
      table.snapshot(msg);
      break;
    case "event":
      table.event(msg);
      break;
    case "error":
      if (msg.code) toast(errorText(msg), "error");
      break;
    case "notice":
      // An operator's notice, in the page's language when it was written in it.
      toast(msg.text[getLang()] ?? Object.values(msg.text)[0], "notice", 12000);
      break;
    default:
      break;
  }
}

onLang(() => shell.relang());

// For the browser tests and the curious: the controllers, and the screen on show.
window.baccaratApp = { session, lobby, table, get screen() { return shell.screen; } };

setLang(getLang());
sessionStart();
session.boot();
