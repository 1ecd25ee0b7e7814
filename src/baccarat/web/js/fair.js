// Checks a revealed shoe seed against its commitment in the browser (SHA-256).

/** Lowercase hex SHA-256 of the bytes written as hex in `seedHex`. */
export async function sha256Hex(seedHex) {
  const clean = seedHex.trim().toLowerCase();
  if (!/^([0-9a-f]{2})+$/.test(clean)) throw new Error("not hex");
  const bytes = new Uint8Array(clean.match(/../g).map((b) => parseInt(b, 16)));
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether the seed hashes to the commitment. */
export async function seedMatches(seedHex, commitmentHex) {
  return (await sha256Hex(seedHex)) === commitmentHex.trim().toLowerCase();
}

/** The command line that recomputes the shoe's card order. */
export function verifyCommand(seedHex, commitmentHex) {
  return `baccarat verify-shoe --seed ${seedHex}` + (commitmentHex ? ` --commitment ${commitmentHex}` : "");
}
