// The console's one kind of table: a header row, then rows, or "(none)" when there are none.

import { h } from "../js/dom.js";
import { t } from "./words.js";

/** A table of `rows` under `heads`; `attrs` go on the table (its data-list). */
export function grid(heads, rows, attrs = {}) {
  return h("table", { class: "cs-grid", ...attrs },
    h("thead", null, h("tr", null, heads.map((x) => h("th", null, x)))),
    h("tbody", null, rows.length ? rows : h("tr", null, h("td", { colspan: heads.length, class: "muted" }, t("empty")))));
}
