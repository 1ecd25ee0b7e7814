// My bets (投注紀錄): the logged-in user's rounds, newest first, a page at a time, and the
// day's and this session's totals. Reads GET /api/my/rounds and GET /api/my/net.

import { h, add, fmt, mount, signed } from "./dom.js";
import { t, getLang, named } from "./i18n.js";
import { api } from "./net.js";
import { cardFace } from "./cards.js";
import { AREAS } from "./selectors.js";
import { seedMatches } from "./fair.js";
import { alarming, witness } from "./seen.js";
import { memoryLine } from "./shoecheck.js";
import { toast, toolbar } from "./shell.js";

const PAGE = 20;
const SESSION_KEY = "baccarat.session_start";

/** When this browser tab's session began (seconds): kept across reloads of the tab. */
export function sessionStart() {
  let at = Number(sessionStorage.getItem(SESSION_KEY));
  if (!Number.isFinite(at) || at <= 0) {
    at = Date.now() / 1000;
    sessionStorage.setItem(SESSION_KEY, String(at));
  }
  return at;
}

/** The local midnight that began today (seconds). */
export function dayStart() {
  const d = new Date();
  d.setHours(0, 0, 0, 0);
  return d.getTime() / 1000;
}

/** The day's and the session's totals: {day: {net, commission, rounds}, session: {...}}. */
export async function fetchTotals() {
  const [day, session] = await Promise.all([
    api(`/api/my/net?since=${dayStart()}`),
    api(`/api/my/net?since=${sessionStart()}`),
  ]);
  return { day, session };
}

/** The totals as a small line: 今日 +1,200 · 本次 −300. */
export function totalsLine(totals) {
  if (!totals) return null;
  const part = (key, v) => h("span", { class: `tot tot-${key} ${v.net > 0 ? "up" : v.net < 0 ? "down" : ""}`,
    "data-net": v.net, title: t("rounds_n", { n: v.rounds }) }, `${t(`total_${key}`)} ${signed(v.net)}`);
  return h("span", { class: "my-totals" }, part("day", totals.day), part("session", totals.session));
}

// A round's time, month first in both languages (English names the month, so that 03/12 is
// never read two ways), on a 24-hour clock.
const WHEN = {
  en: new Intl.DateTimeFormat("en-US", { month: "short", day: "2-digit", hour: "2-digit", minute: "2-digit",
    second: "2-digit", hourCycle: "h23" }),
  zh: new Intl.DateTimeFormat("zh-TW", { month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit",
    second: "2-digit", hourCycle: "h23" }),
};

function when(seconds) {
  return WHEN[getLang() === "en" ? "en" : "zh"].format(new Date(seconds * 1000));
}

function miniHand(name, hand) {
  return h("span", { class: `hh hh-${name}` }, h("b", null, `${t(name)} ${hand?.points ?? ""}`),
    h("span", { class: "hh-cards" }, (hand?.cards ?? []).map((c) => cardFace(c))));
}

function seedBox(shoe, round) {
  if (!shoe) return null;
  if (!shoe.seed) return h("div", { class: "hr-shoe pending" }, t("seed_after_shoe"));
  const result = h("span", { class: "verify-result" });
  const memory = h("div", { class: "hr-memory" });
  return h("div", { class: "hr-shoe" },
    h("span", null, `${t("seed")} `), h("code", { class: "seed", translate: "no", title: shoe.seed }, `${shoe.seed.slice(0, 16)}…`),
    h("button", { class: "btn btn-small btn-verify", onclick: async () => {
      // The seed against the archive's commitment, and against the one this page saw itself
      // when the shoe started (seen.js): a seed that is not that one is said first, in red.
      let ok = false;
      try {
        ok = await seedMatches(shoe.seed, shoe.commitment);
      } catch {
        ok = false;
      }
      const seen = await witness(round.shoe_id, shoe.seed);
      const alarm = alarming(seen);
      result.textContent = ok ? `✔ ${t("verify_ok")}` : `✘ ${t("verify_bad")}`;
      result.className = `verify-result ${!ok ? "bad" : alarm ? "plain" : "ok"}`;
      result.dataset.memory = seen.verdict;
      mount(memory, memoryLine(seen));
    } }, t("verify")),
    h("button", { class: "btn btn-small", onclick: async (ev) => {
      try {
        await navigator.clipboard.writeText(shoe.verify);
        ev.target.textContent = t("copied");
      } catch {
        ev.target.textContent = "—";
      }
    } }, t("copy")),
    // The whole shoe rebuilt and checked in the verifier page, this round's cards marked there.
    h("a", { class: "btn btn-small btn-verify-shoe", target: "_blank", rel: "noopener",
      href: `/verify?shoe=${encodeURIComponent(round.shoe_id)}&round=${round.round_no}` }, t("verify_page")),
    result, memory,
    h("details", { class: "fair-cmd" }, h("summary", null, t("verify_cmd")), h("code", { class: "cmd", translate: "no" }, shoe.verify)));
}

function roundRow(r, tableName) {
  const o = r.outcome ?? {};
  const net = r.net;
  const status = r.status === "settled" ? null : t(`status_${r.status}`);
  return h("article", { class: "hist-round", "data-round": r.round_id, "data-winner": r.winner ?? "" },
    h("header", null,
      h("b", { class: "hr-table" }, tableName(r.table_id)),
      h("span", { class: "hr-no" }, t("round_no", { n: r.round_no })),
      h("span", { class: "hr-role" }, r.role === "dealer" ? t("dealer") : t("bettor")),
      h("time", { class: "hr-time" }, when(r.time))),
    h("div", { class: "hr-body" },
      h("div", { class: "hr-hands" }, miniHand("player", o.player), miniHand("banker", o.banker),
        r.winner ? h("span", { class: `pill pill-${r.winner === "tie" ? "tie" : r.winner} hr-winner` },
          r.winner === "tie" ? t("result_tie") : t("result_win", { hand: t(r.winner) })) : null),
      h("div", { class: "hr-bets" }, AREAS.filter((a) => r.bets[a]).map((a) =>
        h("span", { class: `pill pill-${a}`, "data-area": a }, `${t(a)} ${fmt(r.bets[a])}`)),
      r.role === "bettor" && !r.stake ? h("span", { class: "muted" }, "—") : null),
      h("div", { class: `hr-net ${net > 0 ? "up" : net < 0 ? "down" : ""}`, "data-net": net ?? "" },
        status ?? signed(net ?? 0),
        r.commission ? h("small", null, ` (${t("commission", { n: fmt(r.commission) })})`) : null)),
    seedBox(r.shoe, r));
}

/** The My bets screen: `lobby` names the tables (`known`, `fetchNames`), `back()` leaves it. */
export function historyScreen(lobby, back) {
  const list = h("div", { class: "hist-list" });
  const more = h("button", { class: "btn btn-more", "data-action": "more", hidden: true }, t("load_more"));
  const totals = h("div", { class: "hist-totals" });
  const empty = h("p", { class: "muted hist-empty", hidden: true }, t("no_rounds_yet"));
  const tableName = (id) => named((lobby.known()?.tables ?? []).find((tb) => tb.table_id === id), id);
  let next = null;
  const load = async () => {
    more.disabled = true;
    try {
      const q = `limit=${PAGE}${next ? `&before=${encodeURIComponent(next)}` : ""}`;
      const page = await api(`/api/my/rounds?${q}`);
      if (page.rounds.some((r) => tableName(r.table_id) === r.table_id)) {
        // Opened without the lobby (a reload): the tables' names in every language.
        await lobby.fetchNames().catch(() => {});
      }
      add(list, page.rounds.map((r) => roundRow(r, tableName)));
      next = page.next;
      empty.hidden = list.childElementCount > 0;
    } catch (err) {
      toast(err?.message || t("offline"), "error");
    }
    more.hidden = !next;
    more.disabled = false;
  };
  more.addEventListener("click", load);
  fetchTotals().then((tt) => add(totals, totalsLine(tt)), () => {});
  load();
  return h("div", { class: "screen history-screen" },
    h("header", { class: "topbar" },
      h("button", { class: "btn btn-ghost btn-back", "data-action": "back", onclick: () => back() }, `‹ ${t("back")}`),
      h("h1", { class: "hist-title", tabindex: "-1" }, t("my_bets")), toolbar()),
    h("main", { class: "hist-main" }, totals, list, empty, more));
}
