// What this page saw of each shoe before its seed was revealed: the commitment, kept in the
// browser (IndexedDB), so that a revealed seed is checked against what the page itself was
// shown when the shoe started, not only against what the server says afterwards.
//
// One record a shoe in the database "baccarat-fair": {shoe_id, table_id, commitment, seen_at}
// (seen_at in ms since the epoch). The first sighting is kept; a later, different commitment
// for the same shoe is kept beside it, in `others` ([{commitment, seen_at}]), as the red flag
// it is. A browser may keep nothing (private browsing): then every answer says so.

import { sha256Hex } from "./fair.js";
import { keptStore } from "./idb.js";

const seenShoes = keptStore("baccarat-fair", "shoes", "shoe_id");
const noted = new Set(); // "shoe|commitment" already written by this page

/** Whether the page can remember what it saw (IndexedDB opens). */
export async function remembers() {
  return (await seenShoes.open()) !== null;
}

/** Note that the page was shown `commitment` for a shoe (its start, or the table's snapshot). */
export async function remember(shoeId, tableId, commitment) {
  const seen = String(commitment ?? "").trim().toLowerCase();
  const key = `${shoeId}|${seen}`;
  if (!shoeId || !seen || noted.has(key)) return;
  noted.add(key);
  if (!(await seenShoes.open())) return;
  const wrote = await seenShoes.change(shoeId, (first) => {
    if (!first) return { shoe_id: shoeId, table_id: tableId, commitment: seen, seen_at: Date.now() };
    if (first.commitment === seen || (first.others ?? []).some((o) => o.commitment === seen)) return null;
    return { ...first, others: [...(first.others ?? []), { commitment: seen, seen_at: Date.now() }] };
  });
  if (!wrote) noted.delete(key); // tried again at the next sighting
}

/** What the page saw of a shoe: its record, null if it never saw it; undefined if it keeps nothing. */
export async function recall(shoeId) {
  if (!(await seenShoes.open())) return undefined;
  if (!shoeId) return null; // a shoe without an id was never noted
  return seenShoes.get(shoeId);
}

/**
 * A revealed seed against the commitment this page saw for its shoe: {verdict, record,
 * others}. The verdict is one of "matches", "mismatch" (the seed is not the one this page saw
 * committed to), "never" (the page did not see the shoe before it ended) and "no_memory" (this
 * browser keeps nothing for the page); `others` are the different commitments the server
 * showed the page for the same shoe later ([{commitment, seen_at}]: each a red flag).
 */
export async function witness(shoeId, seedHex) {
  const record = await recall(shoeId);
  if (record === undefined) return { verdict: "no_memory", record: null, others: [] };
  if (record === null) return { verdict: "never", record: null, others: [] };
  let digest = null;
  try {
    digest = await sha256Hex(seedHex);
  } catch {
    digest = null; // not a seed at all: it matches nothing
  }
  return { verdict: digest === record.commitment ? "matches" : "mismatch", record, others: record.others ?? [] };
}

/** Whether a witness's answer is a red flag: a mismatch, or two commitments for one shoe. */
export function alarming(seen) {
  return seen.verdict === "mismatch" || seen.others.length > 0;
}
