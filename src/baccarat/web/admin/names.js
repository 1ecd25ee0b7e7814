// The names the console shows for ids: rooms and tables in the page's language (the rooms
// file's names, read once a login), users by display name, and ledger memos worded from
// their parts in the page's words (the stored memo is the server's English).

import { h } from "../js/dom.js";
import { api } from "../js/net.js";
import { getLang, t } from "./words.js";

const known = { rooms: [], room: new Map(), table: new Map() };

const lang = () => (getLang() === "en" ? "en" : "zh-TW");

/** Read the rooms and tables with their names (once; again after a failed read). */
export async function loadNames() {
  if (known.rooms.length) return;
  const { rooms } = await api("/api/admin/rooms");
  known.rooms = rooms;
  for (const room of rooms) {
    known.room.set(room.room_id, room.names);
    for (const table of room.tables) known.table.set(table.table_id, { ...table, room_id: room.room_id });
  }
}

/** The rooms in file order, each with its tables. */
export function rooms() {
  return known.rooms;
}

/** A room's name in the page's language; its id when the rooms file does not name it. */
export function roomName(id) {
  return known.room.get(id)?.[lang()] ?? id;
}

/** A table's name in the page's language (a lobby line's own names first); else its id. */
export function tableName(id, line = null) {
  return line?.names?.[lang()] ?? known.table.get(id)?.names?.[lang()] ?? id;
}

/** "標準廳 1 · 第 3 局" / "Standard 1 · round 3". */
export function roundName(tableId, roundNo) {
  return `${tableName(tableId)} · ${t("round_no", { n: roundNo })}`;
}

/** A select of every table, grouped by room, each named in the page's language. */
export function tableSelect(chosen) {
  return h("select", { name: "table", "aria-label": t("table") }, known.rooms.map((room) =>
    h("optgroup", { label: roomName(room.room_id) }, room.tables.map((table) =>
      h("option", { value: table.table_id, selected: table.table_id === chosen }, tableName(table.table_id))))));
}

/** A user by display name, linked to their page; the id in a title for whoever needs it. */
export function userLink(id, name, note = "") {
  return h("a", { href: `#/users/${id}`, title: `#${id}` }, `${name ?? `#${id}`}${note}`);
}

/** A ledger memo in the page's words, from the parts the server read in it; a memo a person
 * wrote (a grant's reason) as it was written. */
export function memo(entry) {
  const p = entry.parts;
  if (!p) return entry.memo || "—";
  const place = p.table_id ? roundName(p.table_id, p.round_no) : t("round_id_is", { id: p.round_id });
  const text = p.what === "stakes_refused" ? t("memo_refused", { place }) : place;
  const href = p.round_id ? `#/records/${encodeURIComponent(p.round_id)}` : `#/shoes/${encodeURIComponent(p.table_id)}/${encodeURIComponent(p.shoe_id)}`;
  return h("a", { href, title: entry.memo, "data-memo": p.what }, text);
}

/** A log's target as a name: a user by display name, a table by its name. */
export function target(text, names = {}) {
  const user = /^user:(\d+)$/.exec(text);
  if (user) return userLink(user[1], names[text]);
  const table = /^table:(.+)$/.exec(text);
  if (table) return h("span", { title: text }, tableName(table[1]));
  return text;
}
