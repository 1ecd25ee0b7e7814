// The console's rounds: a table's rounds found by time (paged), a round's full record (its
// users by name, its cards by hand), the audit run from the page and the voids by reason.

import { h, mount, fmt, signed } from "../js/dom.js";
import { api } from "../js/net.js";
import { t, refusal, when } from "./words.js";
import { grid, labelled } from "./grid.js";
import { tableName, tableSelect, userLink } from "./names.js";

const AREAS = ["player", "banker", "tie", "player_pair", "banker_pair"];

/** A round's cards by hand, each in dealing order: 閒 9H KD · 莊 2C 5S. */
export function handsOf(hands, outcome = null) {
  const one = (hand) => h("span", { class: `cs-hand cs-${hand}`, "data-hand": hand },
    h("b", null, t(`area_${hand}`)), " ", hands[hand].join(" ") || "—",
    outcome ? h("small", { class: "muted" }, ` (${outcome[hand].points})`) : null);
  return [one("player"), " ", one("banker")];
}

// "2024-05-01T13:05" in the operator's own time zone, as a datetime-local field holds it.
function localInput(seconds) {
  const d = new Date(seconds * 1000 - new Date(seconds * 1000).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}

/** Who won, in the hand's colour; a round not settled, its status. */
export function winnerOf(r) {
  if (r.status !== "settled" || !r.winner) return t(`status_${r.status}`);
  return h("span", { class: `cs-side cs-${r.winner}` }, t(`area_${r.winner}`));
}

/** The search of a table's rounds by time: a table, from and to (the last day by default). */
function roundSearch() {
  const table = tableSelect(sessionStorage.getItem("cs-table"));
  const now = Date.now() / 1000;
  const from = h("input", { name: "from", type: "datetime-local", value: localInput(now - 86_400) });
  const to = h("input", { name: "to", type: "datetime-local", value: localInput(now + 60) });
  const out = h("div");
  const more = h("div");
  const rows = h("tbody");
  const page = async (cursor) => {
    const q = new URLSearchParams({ table: table.value, from: new Date(from.value) / 1000, to: new Date(to.value) / 1000 });
    if (cursor) q.set("before", cursor);
    const got = await api(`/api/admin/rounds?${q}`);
    rows.append(...got.rounds.map((r) => foundRow(got.table_id, r)));
    if (!cursor && !got.rounds.length) rows.append(h("tr", null, h("td", { colspan: 8, class: "muted" }, t("empty"))));
    labelled(rows.parentElement);
    mount(more, got.next ? h("button", { class: "btn btn-ghost", "data-action": "more", onclick: () => page(got.next).catch(fail) }, t("more")) : null);
  };
  const fail = (err) => mount(more, h("p", { class: "cs-error", role: "alert", "data-code": err.code }, refusal(err)));
  const form = h("form", { class: "cs-search cs-round-search", "data-form": "round_search" },
    h("label", null, t("table"), table), h("label", null, t("from"), from), h("label", null, t("to"), to),
    h("button", { class: "btn btn-gold", type: "submit" }, t("find")));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    sessionStorage.setItem("cs-table", table.value);
    mount(rows);
    mount(out, h("table", { class: "cs-grid", "data-list": "found" },
      h("thead", null, h("tr", null, [t("time"), t("shoe"), t("round"), t("cards"), t("winner"), t("dealer"), t("bettors"), t("stakes")].map((x) => h("th", null, x)))), rows), more);
    page(null).catch(fail);
  });
  return [form, out];
}

function foundRow(tableId, r) {
  return h("tr", { "data-round": r.round_id, "data-status": r.status },
    h("td", null, when(r.time)),
    h("td", null, h("a", { href: `#/shoes/${encodeURIComponent(tableId)}/${encodeURIComponent(r.shoe_id)}`, title: r.shoe_id }, r.shoe_id.slice(0, 10))),
    h("td", null, h("a", { href: `#/records/${encodeURIComponent(r.round_id)}`, title: r.round_id }, t("round_no", { n: r.round_no }))),
    h("td", { class: "cs-cards" }, handsOf(r.hands)),
    h("td", null, winnerOf(r)),
    h("td", null, userLink(r.dealer_id, r.dealer)),
    h("td", { class: "num" }, fmt(r.bettors)),
    h("td", { class: "num" }, fmt(r.stakes)));
}

/** The rounds tab: search by table and time, a round by its id, the audit and the voids. */
export async function roundView(body, roundId) {
  const id = h("input", { name: "round", placeholder: t("round_id"), value: roundId });
  const out = h("div");
  const look = h("form", { class: "cs-search", "data-form": "round_id" }, id, h("button", { class: "btn btn-gold", type: "submit" }, t("open_round")));
  look.addEventListener("submit", (e) => { e.preventDefault(); location.hash = `#/records/${encodeURIComponent(id.value.trim())}`; });
  const report = h("div", { class: "cs-audit" });
  const run = h("button", { class: "btn btn-ghost", "data-action": "audit", onclick: async () => {
    run.disabled = true;
    try {
      const got = await api("/api/admin/audit", {});
      mount(report,
        h("p", { class: got.ok ? "cs-ok" : "cs-error", "data-ok": String(got.ok) },
          got.ok ? t("audit_ok", { rounds: fmt(got.rounds), in_play: fmt(got.in_play), voided: fmt(got.voided) }) : t("audit_bad", { n: got.problems.length })),
        got.problems.length ? h("ul", null, got.problems.map((p) => h("li", null, p))) : null);
    } catch (err) {
      mount(report, h("p", { class: "cs-error" }, refusal(err)));
    } finally {
      run.disabled = false;
    }
  } }, t("run_audit"));
  const days = h("select", { name: "days", "aria-label": t("days", { n: "…" }) }, [1, 7, 30, 365].map((n) => h("option", { value: n, selected: n === 7 }, t("days", { n }))));
  const voided = h("div");
  const count = async () => {
    const got = await api(`/api/admin/voids?days=${days.value}`);
    mount(voided, grid([t("void_reason"), t("count")], Object.entries(got.voids).map(([why, n]) =>
      h("tr", { "data-reason": why }, h("td", null, t(`void_${why}`)), h("td", { class: "num" }, fmt(n)))), { "data-list": "voids" }));
  };
  days.addEventListener("change", () => count().catch((err) => mount(voided, h("p", { class: "cs-error" }, refusal(err)))));
  const found = roundId ? [] : [h("h3", null, t("round_search")), ...roundSearch()];
  mount(body, ...found, h("h3", null, t("open_round")), look, out, h("h3", null, t("audit")), run, report, h("h3", null, t("voids")), days, voided);
  await count();
  if (!roundId) return;
  try {
    const got = await api(`/api/admin/rounds/${encodeURIComponent(roundId)}`);
    mount(out, roundRecord(got));
  } catch (err) {
    mount(out, h("p", { class: "cs-error", role: "alert" }, refusal(err)));
  }
}

function roundRecord({ round: r, shoe, names, hands }) {
  const byUser = {};
  for (const b of r.bets) {
    const slip = (byUser[b.user_id] ??= {});
    slip[b.area] = (slip[b.area] ?? 0) + b.coins;
  }
  const users = [...new Set([String(r.dealer_id), ...Object.keys(byUser), ...Object.keys(r.deltas ?? {})])];
  const shoeLink = `#/shoes/${encodeURIComponent(r.table_id)}/${encodeURIComponent(r.shoe_id)}`;
  return h("section", { class: "cs-round panel", "data-round": r.round_id },
    h("h2", null, `${tableName(r.table_id)} · ${t("round_no", { n: r.round_no })}`, " ", h("small", { class: "muted" }, r.round_id)),
    h("dl", { class: "cs-facts" },
      h("dt", null, t("status")), h("dd", { "data-field": "status" }, t(`status_${r.status}`)),
      r.void_reason ? [h("dt", null, t("void_reason")), h("dd", { "data-field": "void_reason" }, t(`void_${r.void_reason}`))] : null,
      h("dt", null, t("time")), h("dd", null, when(r.escrowed_at)),
      h("dt", null, t("cards")), h("dd", { "data-field": "cards", class: "cs-cards" }, handsOf(hands, r.outcome)),
      h("dt", null, t("winner")), h("dd", { "data-field": "winner" }, winnerOf({ status: r.status, winner: r.outcome?.winner })),
      h("dt", null, t("house")), h("dd", null, r.house === null ? "—" : signed(r.house)),
      h("dt", null, t("shoe")), h("dd", null, h("a", { href: shoeLink, "data-action": "shoe" }, t("open_shoe"))),
      h("dt", null, t("commitment")), h("dd", null, h("code", null, shoe.commitment)),
      h("dt", null, t("seed")), h("dd", null, shoe.seed ? h("code", null, shoe.seed) : h("span", { class: "muted" }, t("not_revealed")))),
    grid([t("name"), ...AREAS.map((a) => t(`area_${a}`)), t("net"), t("commission")],
      users.map((uid) => h("tr", { "data-user-id": uid },
        h("td", null, userLink(uid, names[uid], uid === String(r.dealer_id) ? ` (${t("dealer")})` : "")),
        AREAS.map((a) => h("td", { class: "num" }, byUser[uid]?.[a] ? fmt(byUser[uid][a]) : "")),
        h("td", { class: "num" }, r.deltas?.[uid] === undefined ? "—" : signed(r.deltas[uid])),
        h("td", { class: "num" }, r.commission?.[uid] ? fmt(r.commission[uid]) : ""))), { "data-list": "bets" }));
}
