// The console's one kind of table: a header row, then rows, or "(none)" when there are none.
// Each cell carries its column's head (data-label): on a phone a row reads as a card of
// label and value lines, and nothing runs past the screen's edge.

import { h } from "../js/dom.js";
import { t } from "./words.js";

/** Label each body cell of `table` with its column's head (again after rows are added). */
export function labelled(table) {
  const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent);
  for (const row of table.querySelectorAll("tbody tr")) {
    [...row.children].forEach((cell, i) => {
      if (heads[i] && !cell.hasAttribute("colspan")) cell.dataset.label = heads[i];
    });
  }
  return table;
}

/** A table of `rows` under `heads`; `attrs` go on the table (its data-list). */
export function grid(heads, rows, attrs = {}) {
  return labelled(h("table", { class: "cs-grid", ...attrs },
    h("thead", null, h("tr", null, heads.map((x) => h("th", null, x || h("span", { class: "sr-only" }, t("action")))))),
    h("tbody", null, rows.length ? rows : h("tr", null, h("td", { colspan: heads.length, class: "muted" }, t("empty"))))));
}
