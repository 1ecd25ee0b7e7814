// A shoe's place in the commitment log, checked in the browser (docs/fairness.md, "The
// commitment log"): the log's proof for the shoe (GET /api/log/proof?shoe=ID) and the published
// keys (GET /.well-known/baccarat-log-key), and four checks:
//
//   (a) the entry's fields, as canonical JSON, hash (RFC 6962 leaf) to its leaf_hash;
//   (b) the logged commitment is the one this page remembered for the shoe (seen.js) and the
//       archive's;
//   (c) the audit path leads from that leaf to the signed head's root (RFC 9162);
//   (d) the head's Ed25519 signature holds with the published key (WebCrypto). A browser
//       without Ed25519 in WebCrypto cannot say: that is reported, not failed.
//
// checkProof() is pure (the proof, the keys, what to compare with); logInclusion() fetches.
// The verifier page (verify.html) carries its own copy of these checks inline, to work offline.

import { bytesToHex, leafHash, verifyInclusion } from "./merkle.js";
import { api } from "./net.js";

/** A JSON object as the log hashes and signs it: keys sorted, no spaces (UTF-8 once encoded). */
export function canonical(obj) {
  return `{${Object.keys(obj).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(obj[k])}`).join(",")}}`;
}

const utf8 = (text) => new TextEncoder().encode(text);

function base64Bytes(text) {
  const raw = atob(String(text ?? ""));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

/** The entry's leaf hash (hex) rebuilt from its own fields. */
export async function entryLeafHash(entry) {
  const { commitment, index, logged_at, shoe_id, table_id } = entry;
  return bytesToHex(await leafHash(utf8(canonical({ commitment, index, logged_at, shoe_id, table_id }))));
}

/**
 * The head's signature with the published keys: "ok", "bad" (it does not verify, or the key is
 * not an Ed25519 key), "unknown_key" (no published key has the head's key id, or the key's
 * bytes are not that id's) or "unsupported" (this browser's WebCrypto has no Ed25519).
 */
export async function headSignature(head, keys) {
  const key = (keys?.keys ?? []).find((k) => k.key_id === head.key_id);
  if (!key) return "unknown_key";
  let raw;
  let signature;
  try {
    raw = base64Bytes(key.public_key);
    signature = base64Bytes(head.signature);
  } catch {
    return raw ? "bad" : "unknown_key";
  }
  const id = bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", raw))).slice(0, 16);
  if (id !== head.key_id) return "unknown_key";
  let publicKey;
  try {
    publicKey = await crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
  } catch (err) {
    return err?.name === "NotSupportedError" ? "unsupported" : "bad";
  }
  const message = utf8(canonical({ root_hash: head.root_hash, timestamp: head.timestamp, tree_size: head.tree_size }));
  try {
    return (await crypto.subtle.verify("Ed25519", publicKey, signature, message)) ? "ok" : "bad";
  } catch (err) {
    return err?.name === "NotSupportedError" ? "unsupported" : "bad";
  }
}

function sameHex(a, b) {
  return typeof a === "string" && typeof b === "string" && a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * A proof (the answer of /api/log/proof) checked for `shoeId`: {ok, index, size, timestamp,
 * signature, failures}. `ok` is true when every check that could be made held (the signature
 * may be "unsupported"); `failures` name what failed, in order: "entry" (the proof is not this
 * shoe's, or not well formed), "leaf" (a), "memory" and "archive" (b), "path" (c), "signature"
 * and "unknown_key" (d). `remembered` is what this page saw (seen.js's record, or null),
 * `archived` the archive's commitment (or null when there is none to compare).
 */
export async function checkProof(proof, keys, { shoeId = null, remembered = null, archived = null } = {}) {
  const entry = proof?.entry ?? {};
  const head = proof?.head ?? {};
  const failures = [];
  const wellFormed = Number.isSafeInteger(entry.index) && entry.index === proof?.index
    && Number.isSafeInteger(head.tree_size) && head.tree_size === proof?.tree_size
    && Number.isSafeInteger(head.timestamp) && typeof entry.commitment === "string"
    && (shoeId === null || entry.shoe_id === shoeId);
  if (!wellFormed) failures.push("entry");
  let leaf = null;
  try {
    leaf = await entryLeafHash(entry);
  } catch {
    leaf = null;
  }
  if (!leaf || !sameHex(leaf, entry.leaf_hash)) failures.push("leaf");
  if (remembered && !sameHex(entry.commitment, remembered.commitment)) failures.push("memory");
  if (archived && !sameHex(entry.commitment, archived)) failures.push("archive");
  if (!leaf || !(await verifyInclusion(proof?.index, head.tree_size, leaf, proof?.audit_path, head.root_hash))) {
    failures.push("path");
  }
  let signature = "bad";
  try {
    signature = await headSignature(head, keys);
  } catch {
    signature = "bad";
  }
  if (signature === "bad") failures.push("signature");
  if (signature === "unknown_key") failures.push("unknown_key");
  return {
    ok: failures.length === 0,
    index: entry.index,
    size: head.tree_size,
    timestamp: head.timestamp,
    keyId: head.key_id,
    signature,
    failures,
    remembered,
  };
}

let published = null; // the log's public keys (a promise), fetched once a page

/** The log's published keys (GET /.well-known/baccarat-log-key), asked once. */
export function logKeys() {
  published ??= api("/.well-known/baccarat-log-key").catch((err) => {
    published = null; // asked again next time
    throw err;
  });
  return published;
}

/**
 * Fetch and check the shoe's inclusion in the log. The answer is checkProof's, or
 * {verdict: "before_log"} (a shoe dealt before the log existed: the archive gives it no
 * log_index), {verdict: "not_logged"} (the log says it never logged a shoe the page expected in
 * it: a failure), or {verdict: "unreachable"} (the proof or the keys could not be fetched).
 */
export async function logInclusion(shoeId, { logIndex, archived = null, remembered = null } = {}) {
  if (logIndex === null) return { verdict: "before_log", ok: null, failures: [] };
  let proof;
  let keys;
  try {
    [proof, keys] = await Promise.all([api(`/api/log/proof?shoe=${encodeURIComponent(shoeId)}`), logKeys()]);
  } catch (err) {
    if (err?.code === "not_logged") return { verdict: "not_logged", ok: false, failures: ["not_logged"] };
    return { verdict: "unreachable", ok: null, failures: [] };
  }
  const result = await checkProof(proof, keys, { shoeId, remembered, archived });
  // An index the archive gave that the log does not: the log's word is checked, the archive's
  // is wrong (or the log's).
  if (Number.isSafeInteger(logIndex) && logIndex !== result.index && !result.failures.includes("entry")) {
    result.failures.unshift("entry");
    result.ok = false;
  }
  return { verdict: result.ok ? "verified" : "failed", ...result };
}

