// The provably fair shoe, checked in the browser with WebCrypto: a revealed seed against its
// commitment (SHA-256), and the whole shoe's card order rebuilt from the seed by the algorithm
// of docs/fairness.md (HMAC-SHA256 in counter mode, Fisher-Yates from the end with rejection
// sampling), then every round's cards checked against their places in that order.
//
// This file imports nothing: the stand-alone verifier page (/verify) carries it inline, so
// that it also works saved to a disk and opened from there.

export const DECKS = 8;
export const SHOE_CARDS = 52 * DECKS;
const RANKS = "A23456789TJQK";
const SUITS = "SHDC";
const TWO32 = 2 ** 32;

function hexBytes(text, what) {
  const clean = String(text ?? "").trim().toLowerCase();
  if (!/^([0-9a-f]{2})+$/.test(clean)) throw new Error(`${what} is not hexadecimal`);
  return new Uint8Array(clean.match(/../g).map((b) => parseInt(b, 16)));
}

/** Lowercase hex SHA-256 of the bytes written as hex in `seedHex`. */
export async function sha256Hex(seedHex) {
  const digest = await crypto.subtle.digest("SHA-256", hexBytes(seedHex, "the seed"));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether the seed hashes to the commitment. */
export async function seedMatches(seedHex, commitmentHex) {
  return (await sha256Hex(seedHex)) === String(commitmentHex ?? "").trim().toLowerCase();
}

/** The command line that recomputes the shoe's card order. */
export function verifyCommand(seedHex, commitmentHex) {
  return `baccarat verify-shoe --seed ${seedHex}` + (commitmentHex ? ` --commitment ${commitmentHex}` : "");
}

/** The shoe's cards ("AS", "TD", ...) in dealing order, rebuilt from its 32-byte seed. */
export async function shoeOrder(seedHex, decks = DECKS) {
  const seed = hexBytes(seedHex, "the seed");
  if (seed.length !== 32) throw new Error("a seed is 32 bytes (64 hex digits)");
  const key = await crypto.subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  // The byte stream: block k is HMAC-SHA256(seed, k as 8 bytes big-endian); 4 bytes a draw.
  let block = 0;
  let bytes = new DataView(new ArrayBuffer(0));
  let at = 0;
  const draw = async () => {
    if (at + 4 > bytes.byteLength) {
      const msg = new DataView(new ArrayBuffer(8));
      msg.setBigUint64(0, BigInt(block++));
      bytes = new DataView(await crypto.subtle.sign("HMAC", key, msg.buffer));
      at = 0;
    }
    const x = bytes.getUint32(at);
    at += 4;
    return x;
  };
  const n = 52 * decks;
  const cards = Array.from({ length: n }, (_, p) => RANKS[(p % 52) % 13] + SUITS[Math.floor((p % 52) / 13)]);
  for (let i = n - 1; i >= 1; i--) {
    const m = i + 1;
    const limit = TWO32 - (TWO32 % m);
    let x = await draw();
    while (x >= limit) x = await draw();
    const j = x % m;
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return cards;
}

/** A card as the order writes it: "10" is "T", suits upper case. */
function norm(code) {
  return String(code ?? "").trim().toUpperCase().replace(/^10/, "T");
}

const MAX_ROUND_CARDS = 6;

/**
 * Every round's cards against their places in `order`: rounds are taken in round order, each
 * dealing its cards from where the last one stopped. A round voided after its cards were
 * drawn (a server stopped mid-squeeze) keeps no cards, so the next round may start up to 6
 * places further for each such round: it is placed at the first of those where every card
 * matches, the places it skipped reported as `skipped`. Each round comes back with its cards
 * as [{code, position, expected, ok}] and `ok`; `ok` is the whole check.
 */
export function checkRounds(order, rounds) {
  let next = 0;
  let slack = 0; // places voided rounds may have taken since the last round with cards
  const out = [...rounds].sort((a, b) => a.round_no - b.round_no).map((r) => {
    const codes = (r.cards ?? []).map(norm);
    if (!codes.length) {
      if (r.status === "voided") slack += MAX_ROUND_CARDS;
      return { ...r, cards: [], skipped: [], ok: true };
    }
    const fits = (at) => codes.every((code, i) => order[at + i] === code);
    let skip = 0;
    while (skip < slack && !fits(next + skip)) skip++;
    if (!fits(next + skip)) skip = 0; // matched nowhere: checked where it should have been
    const skipped = Array.from({ length: skip }, (_, i) => next + i);
    next += skip;
    slack = 0;
    const cards = r.cards.map((code, i) => {
      const position = next + i;
      const expected = order[position] ?? null;
      return { code, position, expected, ok: expected !== null && codes[i] === expected };
    });
    next += cards.length;
    return { ...r, cards, skipped, ok: cards.every((c) => c.ok) };
  });
  return { rounds: out, dealt: next, ok: out.every((r) => r.ok) };
}

/**
 * The whole check of a shoe: the seed against the commitment, then every round's cards.
 * `shoe` is {seed, commitment, rounds: [{round_no, cards}]}.
 */
export async function verifyShoe(shoe) {
  const seedOk = await seedMatches(shoe.seed, shoe.commitment);
  const order = await shoeOrder(shoe.seed);
  const check = checkRounds(order, shoe.rounds ?? []);
  return { seedOk, order, ...check, ok: seedOk && check.ok };
}
