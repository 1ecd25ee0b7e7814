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

/** The most cards one round takes: a round voided after its deal may have taken this many. */
export const MAX_ROUND_CARDS = 6;

function fits(order, codes, at) {
  return at >= 0 && codes.every((code, i) => order[at + i] === code);
}

/** Where `codes` lie in `order`: the first place from `from` to `from + slack` where every
 * card matches, else the first anywhere in the shoe; -1 where they match nowhere. */
function where(order, codes, from, slack) {
  for (let at = from; at <= from + slack; at++) if (fits(order, codes, at)) return at;
  for (let at = 0; at + codes.length <= order.length; at++) if (fits(order, codes, at)) return at;
  return -1;
}

/**
 * Where a round's cards start. A round that says where (`first_card`, from 0) is checked
 * there, and is wrong if its cards are elsewhere or where earlier rounds already dealt; one
 * that does not is placed at the first of the places its voided predecessors allow
 * (`slack`) where every card matches, else where it should have been.
 */
function place(order, codes, round, next, slack) {
  const found = where(order, codes, next, slack);
  if (!Number.isInteger(round.first_card)) {
    return { at: found >= next && found <= next + slack ? found : next, problem: null };
  }
  const at = round.first_card;
  if (!fits(order, codes, at)) {
    return { at, problem: found >= 0 ? { code: "misplaced", at, found } : null };
  }
  return { at, problem: at < next ? { code: "overlap", at, last: next - 1 } : null };
}

/**
 * A shoe's rounds in dealing order: the rounds that say where their cards start (`first_card`)
 * by that place, then by number; a round recorded without it (an older server) keeps its place
 * among them by number. Never by the round's id, which is random: a crash's replacement round
 * could then come before the round it replaced.
 */
export function dealingOrder(rounds) {
  const known = (r) => Number.isInteger(r.first_card);
  const byNumber = [...rounds].sort((a, b) => a.round_no - b.round_no);
  const placed = byNumber.filter(known).sort((a, b) => a.first_card - b.first_card || a.round_no - b.round_no);
  let i = 0;
  return byNumber.map((r) => (known(r) ? placed[i++] : r));
}

/**
 * Every round's cards against their places in `order`, in dealing order (dealingOrder), each
 * round dealing its cards from where the last one stopped. A round voided after its cards were
 * drawn (a server stopped mid-squeeze) keeps no cards, so the next round may start up to 6
 * places further for each such round: the places passed over are that round's `skipped` (from
 * 0) and its `skip` ({from, to, round_no, voided, ok}; not ok when more were skipped than the
 * voided rounds could take, or none was voided), with the voided rounds that explain them
 * (`voided`); `skips` lists them all. A round that names its first card (`first_card`) is
 * checked there (see place()). Each round comes back with its cards as
 * [{code, position, expected, ok}], its `problem` (null, or {code: "misplaced" | "overlap",
 * ...}) and `ok`; `ok` is the whole check. `cardsDealt` counts the rounds' cards,
 * `positionsSkipped` the positions passed over, and `dealt` is the first position after the
 * last round's cards.
 */
export function checkRounds(order, rounds) {
  let next = 0;
  let voided = []; // the voided rounds since the last round with cards
  const skips = [];
  const out = dealingOrder(rounds).map((r) => {
    const codes = (r.cards ?? []).map(norm);
    if (!codes.length) {
      if (r.status === "voided") voided.push(r.round_no);
      return { ...r, cards: [], skipped: [], skip: null, voided: [], problem: null, ok: true };
    }
    const slack = voided.length * MAX_ROUND_CARDS;
    const { at, problem } = place(order, codes, r, next, slack);
    const skipped = problem ? [] : Array.from({ length: Math.max(0, at - next) }, (_, i) => next + i);
    const skip = skipped.length ? { from: next, to: at - 1, round_no: r.round_no, voided, ok: skipped.length <= slack }
      : null;
    if (skip) skips.push(skip);
    const cards = r.cards.map((code, i) => {
      const position = at + i;
      const expected = order[position] ?? null;
      return { code, position, expected, ok: expected !== null && codes[i] === expected };
    });
    const ok = !problem && (!skip || skip.ok) && cards.every((c) => c.ok);
    const checked = { ...r, cards, skipped, skip, voided: skip ? voided : [], problem, ok };
    next = Math.max(next, problem?.code === "misplaced" ? problem.found + codes.length : at + codes.length);
    voided = [];
    return checked;
  });
  const cardsDealt = out.reduce((n, r) => n + r.cards.length, 0);
  const positionsSkipped = skips.reduce((n, s) => n + s.to - s.from + 1, 0);
  return { rounds: out, skips, dealt: next, cardsDealt, positionsSkipped, ok: out.every((r) => r.ok) };
}

/** Positions `from` to `to` (from 0) as players count them, from 1: "37–40", or "37". */
export function positions(from, to = from) {
  return to > from ? `${from + 1}–${to + 1}` : `${from + 1}`;
}

/** Round numbers as a list in words: "12", "12、13" or "12 and 13" (`tr` gives list_sep, list_and). */
function roundList(nums, tr) {
  if (nums.length < 2) return nums.join("");
  return `${nums.slice(0, -1).join(tr("list_sep"))}${tr("list_and")}${nums[nums.length - 1]}`;
}

/**
 * A skip in the page's words: which positions were not dealt and why, e.g. "positions 37–40
 * skipped (round 12 was voided)". `tr(key, params)` gives the page's words for the keys
 * skip_one, skip_many, skip_voided_one, skip_voided_many, skip_unvoided, skip_too_many,
 * list_sep and list_and.
 */
export function skipWords(skip, tr) {
  const at = positions(skip.from, skip.to);
  let text = tr(skip.to > skip.from ? "skip_many" : "skip_one", { at });
  if (!skip.voided.length) return text + tr("skip_unvoided");
  text += tr(skip.voided.length > 1 ? "skip_voided_many" : "skip_voided_one", { r: roundList(skip.voided, tr) });
  return skip.ok ? text : text + tr("skip_too_many", { max: skip.voided.length * MAX_ROUND_CARDS });
}

/**
 * The positions no card was dealt from, counted, then each skip named (skipWords): "6 positions
 * were not dealt: positions 120–125 skipped (round 40 was voided)"; "" when none was skipped.
 * `tr` gives not_dealt_one and not_dealt_many besides skipWords's keys.
 */
export function skippedWords(result, tr) {
  if (!result.skips.length) return "";
  const k = result.positionsSkipped;
  return tr(k === 1 ? "not_dealt_one" : "not_dealt_many", { k })
    + result.skips.map((skip) => skipWords(skip, tr)).join(tr("clause_sep"));
}

/** What is wrong with a round's place in the page's words (keys misplaced, overlap), or "". */
export function problemWords(round, tr) {
  const p = round.problem;
  if (!p) return "";
  return p.code === "misplaced" ? tr("misplaced", { n: round.round_no, at: p.at + 1, found: p.found + 1 })
    : tr("overlap", { n: round.round_no, at: p.at + 1, last: p.last + 1 });
}

/**
 * The whole check of a shoe: the seed against the commitment, then every round's cards.
 * `shoe` is {seed, commitment, rounds: [{round_no, cards, first_card}]}.
 */
export async function verifyShoe(shoe) {
  const seedOk = await seedMatches(shoe.seed, shoe.commitment);
  const order = await shoeOrder(shoe.seed);
  const check = checkRounds(order, shoe.rounds ?? []);
  return { seedOk, order, ...check, ok: seedOk && check.ok };
}
