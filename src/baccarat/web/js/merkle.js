// The commitment log's Merkle tree, checked in the browser with WebCrypto: Certificate
// Transparency's tree (RFC 6962 §2.1) and RFC 9162's checks of an inclusion path (§2.1.3.2)
// and of a consistency proof (§2.1.4.2). It mirrors baccarat/merkle.py, which builds the
// paths and proofs: a leaf is SHA-256(0x00 || leaf), a node SHA-256(0x01 || left || right).
//
// Sizes and indexes are whole numbers below 2^53, worked on as BigInt because JavaScript's
// bit operators cut numbers to 32 bits. A check answers false for anything that does not
// prove what it asks, malformed hex or sizes included: paths and proofs come from elsewhere.
//
// This file imports nothing, so a page can carry it inline as the verifier carries fair.js.

/** The bytes written as hex in `hex` (upper or lower case); throws on anything else. */
export function hexToBytes(hex) {
  const clean = String(hex ?? "").trim().toLowerCase();
  if (!/^([0-9a-f]{2})*$/.test(clean)) throw new Error("not hexadecimal bytes");
  return new Uint8Array((clean.match(/../g) ?? []).map((b) => parseInt(b, 16)));
}

/** Lowercase hex of the bytes. */
export function bytesToHex(bytes) {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(prefix, ...parts) {
  const length = parts.reduce((sum, part) => sum + part.length, 1);
  const message = new Uint8Array(length);
  message[0] = prefix;
  let at = 1;
  for (const part of parts) {
    message.set(part, at);
    at += part.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", message));
}

/** The hash of a leaf: SHA-256 of 0x00 and the leaf's bytes. */
export async function leafHash(bytes) {
  return sha256(0x00, new Uint8Array(bytes));
}

function nodeHash(left, right) {
  return sha256(0x01, left, right);
}

function sameBytes(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** A size or an index (a safe integer or a BigInt) as a BigInt, or null when it is not one. */
function count(value) {
  if (typeof value === "bigint") return value >= 0n ? value : null;
  return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : null;
}

/** Right-shift fn and sn together until fn's lowest bit is set or fn is 0. */
function climb(fn, sn) {
  while (fn !== 0n && (fn & 1n) === 0n) {
    fn >>= 1n;
    sn >>= 1n;
  }
  return [fn, sn];
}

/** Hex to bytes, or null when it is not hex. */
function bytesOrNull(hex) {
  try {
    return hexToBytes(hex);
  } catch {
    return null;
  }
}

/** Hex strings to bytes, or null when one is not hex. */
function allBytesOrNull(hexes) {
  if (!Array.isArray(hexes)) return null;
  const all = hexes.map(bytesOrNull);
  return all.includes(null) ? null : all;
}

/**
 * Whether the path proves the leaf hash at `index` in the tree of `size` leaves whose root is
 * `rootHex` (RFC 9162 §2.1.3.2). Every hash is in hex.
 */
export async function verifyInclusion(index, size, leafHashHex, pathHex, rootHex) {
  let fn = count(index);
  let sn = count(size);
  const leaf = bytesOrNull(leafHashHex);
  const path = allBytesOrNull(pathHex);
  const root = bytesOrNull(rootHex);
  if (fn === null || sn === null || fn >= sn || !leaf || !path || !root) return false;
  sn -= 1n;
  let r = leaf;
  for (const p of path) {
    if (sn === 0n) return false;
    if ((fn & 1n) === 1n || fn === sn) {
      r = await nodeHash(p, r);
      [fn, sn] = climb(fn, sn);
    } else {
      r = await nodeHash(r, p);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n && sameBytes(r, root);
}

/**
 * Whether the proof shows the tree of `firstSize` leaves with root `firstRootHex` to be a
 * prefix of the tree of `secondSize` leaves with root `secondRootHex` (RFC 9162 §2.1.4.2).
 * Equal sizes need an empty proof and equal roots; the empty tree (the SHA-256 of nothing) is
 * a prefix of every tree, with an empty proof.
 */
export async function verifyConsistency(firstSize, secondSize, firstRootHex, secondRootHex, proofHex) {
  const first = count(firstSize);
  const second = count(secondSize);
  const firstRoot = bytesOrNull(firstRootHex);
  const secondRoot = bytesOrNull(secondRootHex);
  const proof = allBytesOrNull(proofHex);
  if (first === null || second === null || first > second) return false;
  if (!firstRoot || !secondRoot || !proof) return false;
  if (first === second) return proof.length === 0 && sameBytes(firstRoot, secondRoot);
  if (first === 0n) {
    const empty = new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(0)));
    return proof.length === 0 && sameBytes(firstRoot, empty);
  }
  return verifyExtension(first, second, firstRoot, secondRoot, proof);
}

/** RFC 9162 §2.1.4.2's steps, for 0 < first < second (BigInts) and the proof as bytes. */
async function verifyExtension(first, second, firstRoot, secondRoot, proof) {
  if (proof.length === 0) return false;
  // A first tree that is a perfect subtree of the second starts the proof with its own root.
  const path = (first & (first - 1n)) === 0n ? [firstRoot, ...proof] : proof;
  let fn = first - 1n;
  let sn = second - 1n;
  while ((fn & 1n) === 1n) {
    fn >>= 1n;
    sn >>= 1n;
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0n) return false;
    if ((fn & 1n) === 1n || fn === sn) {
      fr = await nodeHash(c, fr);
      sr = await nodeHash(c, sr);
      [fn, sn] = climb(fn, sn);
    } else {
      sr = await nodeHash(sr, c);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n && sameBytes(fr, firstRoot) && sameBytes(sr, secondRoot);
}
