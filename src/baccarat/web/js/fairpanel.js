// The fairness panel (公平性): what the shoe's commitment means, the current shoe's commitment,
// and the last finished shoe's seed checked against its commitment with the browser's SHA-256.

import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { seedMatches, verifyCommand } from "./fair.js";

/** A long hex value, whole, that wraps (and is never translated). */
function hex(value, cls) {
  return h("code", { class: `hex ${cls}`, translate: "no" }, value || "—");
}

/** What the panel shows: it is drawn again only when this changes. */
function keyOf(st) {
  return [st.shoe.commitment, st.round_no, st.lastShoe?.seed, st.lastShoe?.commitment].join("|");
}

/** The panel as a dialog over the table; open() shows it for a table state, close() hides it. */
export class FairnessPanel {
  constructor() {
    this.body = h("div", { class: "fp-body" });
    this.el = h("div", { class: "fair-panel", role: "dialog", "aria-modal": "true", hidden: true,
      onclick: (ev) => { if (ev.target === this.el) this.close(); } },
    h("section", { class: "fp-card" }, this.body));
    this.open_ = false;
    document.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape" && this.open_) this.close();
    });
  }

  /** Show the panel for this table state. */
  open(st) {
    this.open_ = true;
    this.el.hidden = false;
    this.draw(st);
  }

  close() {
    this.open_ = false;
    this.el.hidden = true;
  }

  /** Redraw if open (a new shoe, a shoe that ended); a verification already shown stays. */
  update(st) {
    if (!this.open_) return;
    if (keyOf(st) !== this.key) this.draw(st);
  }

  draw(st) {
    this.key = keyOf(st);
    const last = st.lastShoe?.seed ? st.lastShoe : null;
    mount(this.body,
      h("header", { class: "fp-head" }, h("h3", null, t("fairness")),
        h("button", { class: "btn btn-ghost btn-small", "data-action": "fairness-close", onclick: () => this.close() },
          t("close"))),
      h("p", { class: "fp-explain" }, t("fairness_explain")),
      h("div", { class: "fp-shoe fp-current" },
        h("h4", null, t("this_shoe"), " ", h("span", { class: "fp-round" }, t("round_of", { n: st.round_no || 0 }))),
        h("div", { class: "fp-row" }, h("span", null, t("commitment")), hex(st.shoe.commitment, "fp-commit"))),
      last ? this.lastShoe(last) : h("p", { class: "fp-wait muted" }, t("seed_after_shoe")));
  }

  lastShoe(last) {
    const result = h("div", { class: "verify-result", "aria-live": "polite" });
    const cmd = verifyCommand(last.seed, last.commitment);
    const verify = async () => {
      let ok = false;
      try {
        ok = Boolean(last.commitment) && (await seedMatches(last.seed, last.commitment));
      } catch {
        ok = false;
      }
      result.textContent = ok ? `✔ ${t("verify_ok")}` : `✘ ${t("verify_bad")}`;
      result.className = `verify-result ${ok ? "ok" : "bad"}`;
    };
    return h("div", { class: "fp-shoe fp-last" },
      h("h4", null, t("last_shoe"), " · ", t("shoe_ended")),
      h("div", { class: "fp-row" }, h("span", null, t("commitment")), hex(last.commitment, "fp-last-commit")),
      h("div", { class: "fp-row" }, h("span", null, t("seed")), hex(last.seed, "fp-seed")),
      h("div", { class: "fp-actions" },
        h("button", { class: "btn btn-gold btn-small btn-verify", "data-action": "verify", onclick: verify }, t("verify")),
        h("button", { class: "btn btn-small", "data-action": "copy", onclick: async (ev) => {
          try {
            await navigator.clipboard.writeText(cmd);
            ev.target.textContent = t("copied");
          } catch {
            ev.target.textContent = "—";
          }
        } }, t("copy"))),
      result,
      h("div", { class: "fp-cmd" }, h("span", null, t("verify_cmd")), hex(cmd, "cmd")));
  }
}
