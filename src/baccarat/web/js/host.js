// The page that framed the game: when a platform shows the game in a frame of its own page
// (docs/integration.md, "Embedding"), the game tells that page, by postMessage to the one
// origin the launch found among the platform file's listed origins, when the player's
// balance changes, when the player goes back from a table to the lobby, and when the game
// asks to be closed (the login screen: a launched player has no password to log in with).
// Outside such a frame it tells nothing.
//
// It watches what the page shows (window.baccaratApp) after each change to the page, so the
// controllers need not know it exists. It is the page's first import: a browser that keeps
// a third-party frame from its storage (cookies blocked, a private window) throws on any
// use of localStorage, so there the page keeps its settings in memory for the visit.

const SOURCE = "baccarat";

function memoryStorage() {
  const items = new Map();
  return {
    get length() { return items.size; },
    key: (i) => [...items.keys()][i] ?? null,
    getItem: (k) => (items.has(String(k)) ? items.get(String(k)) : null),
    setItem: (k, v) => { items.set(String(k), String(v)); },
    removeItem: (k) => { items.delete(String(k)); },
    clear: () => items.clear(),
  };
}

for (const name of ["localStorage", "sessionStorage"]) {
  try {
    window[name].getItem(SOURCE);
  } catch {
    Object.defineProperty(window, name, { value: memoryStorage(), configurable: true });
  }
}
// A launch that could not store the token's language passed it on (?lang=).
const passedLang = new URLSearchParams(location.search).get("lang");
if (passedLang === "en" || passedLang === "zh-TW") localStorage.setItem("baccarat.lang", passedLang);

// Which listed origin framed the game: the launch passed it on (?host=), and the tab keeps it
// for a reload; the browser's own word for the parent's origin goes first where it has one.
function hostOrigin() {
  if (window.parent === window) return null;
  const passed = new URLSearchParams(location.search).get("host");
  const host = location.ancestorOrigins?.[0] || passed || sessionStorage.getItem("baccarat.host");
  if (host) sessionStorage.setItem("baccarat.host", host);
  return host || null;
}

const host = hostOrigin();
const told = { coins: undefined, user: null, tableId: null, closed: false };

function tell(type, fields = {}) {
  // Addressed to that origin: the browser delivers it to no page of another.
  window.parent.postMessage({ source: SOURCE, type, ...fields }, host);
}

/** The player's coins as the page shows them: at their seat, else the account's as the
 * server last answered it (the answer from before the table is not news). */
function coinsOf(app) {
  const view = app.table.tableId ? app.table.view : null;
  const seat = view?.me?.seat;
  const seated = seat !== null && seat !== undefined ? view.seats?.[seat]?.coins : undefined;
  if (typeof seated === "number") return seated;
  const user = app.session.user;
  if (!user || user === told.user) return undefined;
  told.user = user;
  return typeof user.coins === "number" ? user.coins : undefined;
}

function look() {
  const app = window.baccaratApp;
  if (!app) return;
  const coins = coinsOf(app);
  if (coins !== undefined && coins !== told.coins) {
    told.coins = coins;
    tell("balance", { coins });
  }
  const tableId = app.table.tableId ?? null;
  if (told.tableId && tableId !== told.tableId) tell("left_table", { table_id: told.tableId });
  told.tableId = tableId;
  const closing = app.screen === "login";
  if (closing && !told.closed) tell("close");
  told.closed = closing;
}

if (host) {
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      look();
    });
  }).observe(document.documentElement, { childList: true, subtree: true, characterData: true });
}
