// The log's cosigned checkpoint, checked in the browser (docs/fairness.md, "Witnesses"): the
// note served at /.well-known/baccarat-checkpoint (c2sp.org/tlog-checkpoint, signed-note), its
// log signature against the log's verifier keys and each witness's cosignature (cosignature/v1)
// against the witnesses' keys, both from /.well-known/baccarat-log-key, with WebCrypto's Ed25519.
//
// The page keeps the newest checkpoint it saw cosigned, per log, in IndexedDB (database
// "baccarat-checkpoint": {origin, size, root, seen_at}) and judges each one it is shown against
// it: the same, one that extends it (the log's consistency proof holds), or a red flag: another
// root at the same size or a log that does not extend it (a split view), or a smaller one (a
// log rolled back). A red flag keeps the older record: it is the one to show.
//
// checkNote() is pure; againstKept() judges and remembers; witnessing.js fetches. Inline in
// /verify (server/http/verifier.py) with merkle.js and idb.js, as fair.js is.

import { bytesToHex, verifyConsistency } from "./merkle.js";
import { keptStore } from "./idb.js";

const DASH = "\u2014";
const LOG_KEY = 0x01;
const COSIGNATURE = 0x04;
const utf8 = (text) => new TextEncoder().encode(text);

function base64(text) {
  return Uint8Array.from(atob(String(text ?? "")), (c) => c.charCodeAt(0));
}

async function sha256Of(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/** A verifier key ("name+id+base64(type || key)") read: {name, kind, key, id}, or null when its
 * id is not its key's (c2sp.org/signed-note). */
export async function readVkey(text) {
  // (the base64 key may hold "+" itself: only the first two split)
  const [name, hexId, ...rest] = String(text ?? "").split("+");
  const raw = rest.join("+");
  let blob;
  try {
    blob = base64(raw);
  } catch {
    return null;
  }
  if (!name || blob.length !== 33 || ![LOG_KEY, COSIGNATURE].includes(blob[0])) return null;
  const id = (await sha256Of(new Uint8Array([...utf8(`${name}\n`), ...blob]))).slice(0, 4);
  return bytesToHex(id) === String(hexId).toLowerCase() ? { name, kind: blob[0], key: blob.slice(1), id } : null;
}

/** A signed note read: {text, lines, origin, size, root (hex)}, or null when it is not a
 * checkpoint. */
export function readNote(note) {
  const at = String(note ?? "").lastIndexOf("\n\n");
  if (at < 0 || !note.endsWith("\n")) return null;
  const text = note.slice(0, at + 1);
  const [origin, size, root, ...rest] = text.split("\n");
  let hash;
  try {
    hash = base64(root);
  } catch {
    return null;
  }
  if (!origin || !/^(0|[1-9][0-9]{0,15})$/.test(size) || hash.length !== 32 || rest.join("") !== "") return null;
  return { text, lines: note.slice(at + 2, -1).split("\n"), origin, size: Number(size), root: bytesToHex(hash) };
}

/** Whether `line` is the good signature of `vkey` over `text`: true, false, or "unsupported"
 * (this browser's WebCrypto has no Ed25519). */
async function signedBy(text, line, vkey) {
  const [dash, name, sig] = line.split(" ");
  let raw;
  try {
    raw = base64(sig);
  } catch {
    return false;
  }
  if (dash !== DASH || name !== vkey.name || bytesToHex(raw.slice(0, 4)) !== bytesToHex(vkey.id)) return false;
  let message = utf8(text);
  let signature = raw.slice(4);
  if (vkey.kind === COSIGNATURE) {
    if (raw.length !== 4 + 8 + 64) return false;
    const time = new DataView(raw.buffer, 4, 8).getBigUint64(0);
    message = utf8(`cosignature/v1\ntime ${time}\n${text}`);
    signature = raw.slice(12);
  }
  try {
    const key = await crypto.subtle.importKey("raw", vkey.key, { name: "Ed25519" }, false, ["verify"]);
    return await crypto.subtle.verify({ name: "Ed25519" }, key, signature, message);
  } catch (err) {
    return err?.name === "NotSupportedError" ? "unsupported" : false;
  }
}

/** The names among `vkeys` whose signature over the note holds ("unsupported" if no check can
 * be made here). */
async function vouching(note, vkeys) {
  const names = new Set();
  for (const vkey of vkeys) {
    for (const line of note.lines) {
      const ok = await signedBy(note.text, line, vkey);
      if (ok === "unsupported") return "unsupported";
      if (ok) names.add(vkey.name);
    }
  }
  return [...names];
}

/**
 * A checkpoint note checked with the key document: {verdict, size, root, origin, vouching, of,
 * quorum}. The verdict is "vouched" (the log signed it and at least `quorum` witnesses cosigned
 * it), "too_few" (fewer did), "unsigned" (no key of the log signed it, or it is no checkpoint)
 * or "unsupported" (no Ed25519 here).
 */
export async function checkNote(text, document) {
  const note = readNote(text);
  const witnesses = (await Promise.all((document?.witnesses ?? []).map((w) => readVkey(w.vkey)))).filter(Boolean);
  const quorum = Number(document?.quorum ?? witnesses.length);
  const base = { vouching: [], of: witnesses.length, quorum, size: note?.size, root: note?.root, origin: note?.origin };
  if (!note) return { ...base, verdict: "unsigned" };
  const logVkeys = (await Promise.all((document?.vkeys ?? []).map(readVkey)))
    .filter((v) => v && v.kind === LOG_KEY && v.name === note.origin);
  const signed = await vouching(note, logVkeys);
  if (signed === "unsupported") return { ...base, verdict: "unsupported" };
  if (!signed.length) return { ...base, verdict: "unsigned" };
  const names = await vouching(note, witnesses.filter((w) => w.kind === COSIGNATURE));
  if (names === "unsupported") return { ...base, verdict: "unsupported" };
  return { ...base, vouching: names, verdict: names.length >= quorum ? "vouched" : "too_few" };
}

const checkpoints = keptStore("baccarat-checkpoint", "newest", "origin");

/**
 * A cosigned checkpoint against the one this page kept: "new" (none kept), "same", "extends"
 * (the log's consistency proof from the kept one holds), or the red flags "split" (another
 * root at the kept size), "smaller" and "inconsistent" (the proof does not hold); "no_memory"
 * where the browser keeps nothing.
 */
export async function judge(checked, record, proofOf = consistencyProof) {
  if (record === undefined) return "no_memory";
  if (record === null) return "new";
  if (checked.size < record.size) return "smaller";
  if (checked.size === record.size) return checked.root === record.root ? "same" : "split";
  let proof = null;
  try {
    proof = await proofOf(record.size, checked.size);
  } catch {
    return "unproven";
  }
  return (await verifyConsistency(record.size, checked.size, record.root, checked.root, proof)) ? "extends" : "inconsistent";
}

/** The log's consistency proof from `first` entries to `second`, asked of the site. */
async function consistencyProof(first, second) {
  const res = await fetch(`/api/log/consistency?first=${first}&second=${second}`, { credentials: "same-origin" });
  if (!res.ok) throw new Error(`consistency proof: ${res.status}`);
  return (await res.json()).proof;
}

/** Whether a memory verdict is a red flag. */
export function splitView(memory) {
  return ["split", "smaller", "inconsistent"].includes(memory);
}

/**
 * A checked checkpoint (checkNote's answer) judged against the one this page kept for its log:
 * {memory, record} (judge's verdict, and the record it was judged against). One that is new or
 * extends the kept one, with a cosignature, is kept as the newest.
 */
export async function againstKept(checked, proofOf = consistencyProof) {
  const record = await checkpoints.get(checked.origin);
  const memory = await judge(checked, record, proofOf);
  if (["new", "extends"].includes(memory) && checked.vouching.length) {
    const { origin, size, root } = checked;
    // (a larger one kept meanwhile, by another check of this page, stays)
    await checkpoints.change(origin, (now) => (now && now.size >= size ? null : { origin, size, root, seen_at: Date.now() }));
  }
  return { memory, record };
}
