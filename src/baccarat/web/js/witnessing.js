// The witnesses' word on the log, as the table page asks it: the served cosigned checkpoint
// checked (cosigned.js) and judged against the one this page kept. The 公平性 panel asks each
// time it opens; the table asks in the background when it is entered and when a shoe starts
// (the log grew), and checks a note again only when it is not the one it checked last, so a
// round costs nothing and a new checkpoint one fetch and its check.

import { againstKept, checkNote } from "./cosigned.js";
import { logKeys } from "./logproof.js";

let last = null; // {text, result}: the note checked last, and what it gave

/**
 * Fetch the served checkpoint and the key document, check them and judge the checkpoint
 * against this page's memory: checkNote's answer with {memory, record}, or {verdict:
 * "unwitnessed"} (the log names no witnesses), {verdict: "none"} (none cosigned yet) or
 * {verdict: "unreachable"}. `again`: check a note that was checked last all the same.
 */
export async function witnessed({ again = true } = {}) {
  let document;
  let text;
  try {
    document = await logKeys();
    if (!(document?.witnesses ?? []).length) return { verdict: "unwitnessed" };
    const res = await fetch("/.well-known/baccarat-checkpoint", { credentials: "same-origin" });
    if (res.status === 404) return { verdict: "none" };
    if (!res.ok) return { verdict: "unreachable" };
    text = await res.text();
  } catch {
    return { verdict: "unreachable" };
  }
  if (!again && last?.text === text) return last.result;
  const checked = await checkNote(text, document);
  const result = ["vouched", "too_few"].includes(checked.verdict) ? { ...checked, ...(await againstKept(checked)) } : checked;
  last = { text, result };
  return result;
}
