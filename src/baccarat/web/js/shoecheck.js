// A shoe's check as the player reads it: what this page saw of its commitment against the
// revealed seed, one sentence on the cards (with the positions no round was dealt), then every
// round's cards and positions, each skip and misplaced round said where it happens.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { positions, problemWords, skippedWords, skipWords } from "./fair.js";
import { alarming } from "./seen.js";
import { splitView } from "./cosigned.js";

/** A moment as the page's language writes it, to the second: "12月6日 14:05:09". */
export function when(ms) {
  return new Date(ms).toLocaleString(document.documentElement.lang, {
    month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
}

/** A long hex value, whole, that wraps (and is never translated). */
export function hex(value, cls) {
  return h("code", { class: `hex ${cls}`, translate: "no" }, value || "—");
}

const MEMORY = { matches: ["ok", "✔"], mismatch: ["alarm", "✘"], never: ["muted", "ⓘ"], no_memory: ["muted", "ⓘ"] };

/** What this page saw of the shoe against its revealed seed (a witness of seen.js), in words:
 * a red flag first (another commitment shown for the shoe, or a seed that is not the one seen). */
export function memoryLine(seen) {
  const [cls, mark] = MEMORY[seen.verdict];
  const time = seen.record ? when(seen.record.seen_at) : "";
  const alarm = alarming(seen);
  const verdict = h("p", { class: alarm && seen.verdict === "matches" ? "fp-first" : null },
    `${mark} ${t(`memory_${seen.verdict}`, { time })}`);
  return h("div", { class: `fp-memory ${alarm ? "alarm" : cls}`, "data-memory": seen.verdict,
    "data-alarm": String(alarm), role: alarm ? "alert" : null },
  seen.others.map((other) => h("div", { class: "fp-row fp-other" },
    h("p", null, `✘ ${t("memory_conflict", { time: when(other.seen_at) })}`), hex(other.commitment, "fp-saw"))),
  verdict,
  seen.verdict === "mismatch" ? h("div", { class: "fp-row" }, h("span", null, t("memory_saw")),
    hex(seen.record.commitment, "fp-saw")) : null);
}

/** The one sentence on the cards: whether they match (the cards dealt counted), then the
 * positions skipped, counted apart and named. */
export function cardsSentence(result) {
  const dealt = result.rounds.filter((r) => r.cards.length);
  const bad = result.rounds.filter((r) => !r.ok).length;
  const head = !result.seedOk ? t("verify_bad")
    : bad ? t("shoe_cards_bad", { n: bad }) : t("shoe_cards_ok", { n: dealt.length, c: result.cardsDealt });
  return [head, skippedWords(result, t)].filter(Boolean).join(t("clause_sep"));
}

/** "TH" as a player reads it: 10♥ (positions too are counted from 1, as verify-shoe prints). */
function shown(code) {
  if (!code) return "—";
  const rank = code.slice(0, -1).toUpperCase();
  return `${rank === "T" ? "10" : rank}${{ S: "♠", H: "♥", D: "♦", C: "♣" }[code.slice(-1).toUpperCase()] ?? "?"}`;
}

function roundLine(r) {
  const note = (cls, text) => h("span", { class: cls }, text);
  const skip = r.skip;
  return h("li", { class: r.ok ? "ok" : "bad", "data-round": r.round_no },
    skip ? note(`fp-skip${skip.ok ? "" : " bad"}`, skipWords(skip, t)) : null,
    h("b", null, `${r.round_no}`),
    !r.cards.length && r.status === "voided" ? note("fp-voided muted", t("voided_short")) : null,
    r.cards.map((c) => h("span", { class: `fp-card-pos${c.ok ? "" : " bad"}${/[HD]$/i.test(c.code) ? " red" : ""}`,
      translate: "no", "data-code": c.code, title: c.ok ? "" : `≠ ${shown(c.expected)}` },
    shown(c.code), h("small", null, `#${positions(c.position)}`))),
    r.problem ? note("fp-problem bad", problemWords(r, t)) : null);
}

/**
 * A whole shoe's check (fair.js's verifyShoe) with this page's memory of its commitment
 * (seen.js's witness), drawn until `onClose` (its ✕ button) takes it away.
 */
export function checkedBox(result, seen, onClose) {
  const alarm = alarming(seen);
  // A seed that is not the one this page saw committed to comes first, and nothing beside it
  // is green: the archive agreeing with itself is then no comfort.
  const sentence = h("p", { class: `verify-result ${!result.ok ? "bad" : alarm ? "plain" : "ok"}`,
    "data-archive": result.ok ? "ok" : "bad" }, `${result.ok ? "✔" : "✘"} ${cardsSentence(result)}`);
  return h("div", { class: "fp-checked", "data-ok": String(result.ok && !alarm) },
    alarm ? memoryLine(seen) : null,
    h("div", { class: "fp-checked-head" }, sentence,
      h("button", { class: "btn btn-ghost btn-small fp-dismiss", "data-action": "dismiss-check", onclick: onClose },
        `✕ ${t("close")}`)),
    alarm ? null : memoryLine(seen),
    h("ol", { class: "fp-rounds" }, result.rounds.map(roundLine)));
}

/** The command that checks the whole log, signature included, where this page cannot. */
export function verifyLogCommand() {
  return `baccarat verify-log --url ${location.origin}`;
}

const LOG_MARK = { verified: ["ok", "✔"], failed: ["alarm", "✘"], not_logged: ["alarm", "✘"],
  before_log: ["muted", "ⓘ"], unreachable: ["muted", "ⓘ"], checking: ["muted", "…"] };

/** Why a log check failed, every failure named, in one sentence. */
function logFailure(result) {
  const params = { n: result.index ?? "?", key: result.keyId ?? "?",
    time: result.remembered ? when(result.remembered.seen_at) : "" };
  const reasons = result.failures.map((code) => t(`log_fail_${code}`, params));
  return `${t("log_failed")}${reasons.join(t("clause_sep"))}${t("log_failed_end")}`;
}

/**
 * A shoe's place in the commitment log (logproof.js's logInclusion), in one line: where it is
 * and that it was checked, or in red what failed. A browser that cannot check Ed25519 says so
 * and gives the command that can. `result` undefined: the check is under way.
 */
export function logLine(result) {
  const verdict = result?.verdict ?? "checking";
  const [cls, mark] = LOG_MARK[verdict];
  let text;
  let cmd = null;
  if (verdict === "checking") text = t("log_checking");
  else if (verdict === "before_log") text = t("log_before");
  else if (verdict === "unreachable") text = t("log_unreachable");
  else if (verdict !== "verified") text = logFailure(result);
  else if (result.signature === "unsupported") {
    text = t("log_unsigned", { n: result.index, m: result.size });
    cmd = hex(verifyLogCommand(), "cmd");
  } else text = t("log_verified", { n: result.index, m: result.size, time: when(result.timestamp) });
  return h("div", { class: `fp-log ${cls}`, "data-log": verdict, "data-signature": result?.signature ?? "",
    "data-failures": (result?.failures ?? []).join(" "), role: cls === "alarm" ? "alert" : null },
  h("p", null, `${mark} ${text}`), cmd);
}

const WITNESS_MARK = { vouched: ["ok", "✔"], too_few: ["alarm", "✘"], unsigned: ["alarm", "✘"],
  unsupported: ["muted", "ⓘ"], unwitnessed: ["muted", "ⓘ"], none: ["muted", "ⓘ"], unreachable: ["muted", "ⓘ"],
  checking: ["muted", "…"] };

/**
 * How many witnesses vouch for the log's head (cosigned.js's witnessed), in words, and how it
 * stands against the checkpoint this page kept: a split view or a log rolled back first, in red.
 * `result` undefined: the check is under way.
 */
export function witnessLine(result) {
  const verdict = result?.verdict ?? "checking";
  const [cls, mark] = WITNESS_MARK[verdict];
  const memory = result?.memory ?? "";
  const red = splitView(memory);
  const said = h("p", null, `${mark} ${t(`witness_${verdict}`, { n: result?.vouching?.length ?? 0,
    k: result?.of ?? 0, q: result?.quorum ?? 0, size: result?.size ?? "?" })}`);
  const record = result?.record;
  const kept = record && !["new", "no_memory"].includes(memory)
    ? h("p", { class: red ? "fp-first" : null }, `${red ? "✘" : "ⓘ"} ${t(`witness_memory_${memory}`,
      { kept: record.size, size: result.size, time: when(record.seen_at) })}`) : null;
  const alarm = red || cls === "alarm";
  return h("div", { class: `fp-log fp-witness ${red ? "alarm" : cls}`, "data-witness": verdict, "data-memory": memory,
    "data-vouching": (result?.vouching ?? []).join(" "), role: alarm ? "alert" : null },
  red ? kept : null, said, red ? null : kept,
  verdict === "unsupported" ? hex(verifyLogCommand(), "cmd") : null);
}
