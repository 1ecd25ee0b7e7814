// The console's shoes: a table's shoes newest first (the public archive's pages), each with
// its commitment, its seed once ended, why it ended and its rounds; a shoe's rounds with
// their cards by hand, each opening the round's record.

import { h, mount, fmt } from "../js/dom.js";
import { api } from "../js/net.js";
import { t, refusal, when } from "./words.js";
import { grid, labelled } from "./grid.js";
import { rooms, tableName, tableSelect } from "./names.js";
import { handsOf, winnerOf } from "./rounds.js";

const PAGE = 20;

// A long hex value in a cell: its start, the whole of it in the title (and in the panel).
const short = (hex) => (hex ? h("code", { title: hex }, `${hex.slice(0, 12)}…`) : h("span", { class: "muted" }, "—"));

function ended(shoe) {
  if (!shoe.ended_at) return h("span", { class: "pill cs-muted" }, t("shoe_running"));
  return t(`end_${shoe.end_reason ?? "unknown"}`);
}

function shoeRow(tableId, shoe) {
  return h("tr", { "data-shoe": shoe.shoe_id },
    h("td", null, h("a", { href: `#/shoes/${encodeURIComponent(tableId)}/${encodeURIComponent(shoe.shoe_id)}`, "data-action": "open_shoe" }, when(shoe.started_at))),
    h("td", null, when(shoe.ended_at)),
    h("td", null, ended(shoe)),
    h("td", { class: "num" }, fmt(shoe.rounds)),
    h("td", null, short(shoe.commitment)),
    h("td", null, short(shoe.seed)));
}

/** The shoes tab: a table's shoes, and the chosen shoe's rounds below them. */
export async function shoesView(body, tableId, shoeId) {
  const first = tableId || sessionStorage.getItem("cs-table") || rooms()[0]?.tables[0]?.table_id || "";
  const table = tableSelect(first);
  table.addEventListener("change", () => { location.hash = `#/shoes/${encodeURIComponent(table.value)}`; });
  const rows = h("tbody");
  const list = h("table", { class: "cs-grid", "data-list": "shoes" },
    h("thead", null, h("tr", null, [t("started"), t("ended"), t("end_reason"), t("rounds_settled"), t("commitment"), t("seed")].map((x) => h("th", null, x)))), rows);
  const more = h("div");
  const shown = h("div");
  const page = async (cursor) => {
    const q = new URLSearchParams({ table: first, limit: PAGE });
    if (cursor) q.set("before", cursor);
    const got = await api(`/api/shoes?${q}`);
    rows.append(...got.shoes.map((shoe) => shoeRow(first, shoe)));
    if (!cursor && !got.shoes.length) rows.append(h("tr", null, h("td", { colspan: 6, class: "muted" }, t("empty"))));
    labelled(list);
    mount(more, got.next ? h("button", { class: "btn btn-ghost", "data-action": "more", onclick: () => page(got.next).catch(fail) }, t("more")) : null);
  };
  const fail = (err) => mount(more, h("p", { class: "cs-error", role: "alert" }, refusal(err)));
  sessionStorage.setItem("cs-table", first);
  mount(body,
    h("form", { class: "cs-search" }, h("label", null, t("table"), table)),
    shown,
    h("h3", null, t("shoes_of", { table: tableName(first) })),
    list,
    more);
  await page(null).catch(fail);
  if (shoeId) mount(shown, await shoePanel(shoeId));
}

async function shoePanel(shoeId) {
  const shoe = await api(`/api/admin/shoes/${encodeURIComponent(shoeId)}`);
  return h("section", { class: "cs-shoe panel", "data-shoe": shoe.shoe_id },
    h("h2", null, `${tableName(shoe.table_id)} · ${t("shoe")} `, h("small", { class: "muted" }, shoe.shoe_id)),
    h("dl", { class: "cs-facts" },
      h("dt", null, t("started")), h("dd", null, when(shoe.started_at)),
      h("dt", null, t("ended")), h("dd", { "data-field": "ended" }, shoe.ended_at ? `${when(shoe.ended_at)} · ${ended(shoe)}` : ended(shoe)),
      h("dt", null, t("commitment")), h("dd", null, h("code", null, shoe.commitment)),
      h("dt", null, t("seed")), h("dd", { "data-field": "seed" }, shoe.seed ? h("code", null, shoe.seed) : h("span", { class: "muted" }, t("not_revealed")))),
    grid([t("round"), t("time"), t("cards"), t("winner")], shoe.rounds.map((r) => h("tr", { "data-round": r.round_id, "data-status": r.status },
      h("td", null, h("a", { href: `#/records/${encodeURIComponent(r.round_id)}`, title: r.round_id }, t("round_no", { n: r.round_no }))),
      h("td", null, when(r.time)),
      h("td", { class: "cs-cards" }, handsOf(r.hands)),
      h("td", null, winnerOf(r)))), { "data-list": "shoe_rounds" }));
}
