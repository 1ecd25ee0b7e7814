// The fairness panel (公平性): what the shoe's commitment means, the current shoe's commitment,
// the last finished shoe's seed checked against its commitment with the browser's SHA-256, and
// the table's last shoes from the archive, each ended one checked card for card in the page.

import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { api } from "./net.js";
import { seedMatches, verifyCommand, verifyShoe } from "./fair.js";

const SHOES_LISTED = 5;

/** What the check of a whole shoe found: one sentence, then each round's cards and places. */
function checked(shoe, result) {
  const bad = result.rounds.filter((r) => !r.ok);
  const sentence = !result.seedOk ? t("verify_bad")
    : bad.length ? t("shoe_cards_bad", { n: bad.length })
      : t("shoe_cards_ok", { n: result.rounds.length, c: result.dealt });
  return h("div", { class: "fp-checked", "data-ok": String(result.ok) },
    h("p", { class: `verify-result ${result.ok ? "ok" : "bad"}` }, `${result.ok ? "✔" : "✘"} ${sentence}`),
    h("ol", { class: "fp-rounds" }, result.rounds.map((r) => h("li", { class: r.ok ? "ok" : "bad", "data-round": r.round_no },
      h("b", null, `${r.round_no}`),
      r.cards.map((c) => h("span", { class: `fp-card-pos${c.ok ? "" : " bad"}${/[HD]$/i.test(c.code) ? " red" : ""}`,
        translate: "no", "data-code": c.code, title: c.ok ? "" : `≠ ${shown(c.expected)}` },
      shown(c.code), h("small", null, `#${c.position + 1}`)))))));
}

/** "TH" as a player reads it: 10♥ (positions too are counted from 1, as verify-shoe prints). */
function shown(code) {
  if (!code) return "—";
  const rank = code.slice(0, -1).toUpperCase();
  return `${rank === "T" ? "10" : rank}${{ S: "♠", H: "♥", D: "♦", C: "♣" }[code.slice(-1).toUpperCase()] ?? "?"}`;
}

/** A long hex value, whole, that wraps (and is never translated). */
function hex(value, cls) {
  return h("code", { class: `hex ${cls}`, translate: "no" }, value || "—");
}

/** What the panel shows: it is drawn again only when this changes. */
function keyOf(view) {
  return [view.shoe?.commitment, view.round_no, view.last_shoe?.seed, view.last_shoe?.commitment].join("|");
}

/** The panel as a dialog over the table; open() shows it for a table's view, close() hides it. */
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

  /** Show the panel for this table's view. */
  open(view) {
    this.open_ = true;
    this.el.hidden = false;
    this.draw(view);
  }

  close() {
    this.open_ = false;
    this.el.hidden = true;
  }

  /** Redraw if open (a new shoe, a shoe that ended); a verification already shown stays. */
  update(view) {
    if (!this.open_) return;
    if (keyOf(view) !== this.key) this.draw(view);
  }

  draw(view) {
    this.key = keyOf(view);
    const last = view.last_shoe?.seed ? view.last_shoe : null;
    mount(this.body,
      h("header", { class: "fp-head" }, h("h3", null, t("fairness")),
        h("button", { class: "btn btn-ghost btn-small", "data-action": "fairness-close", onclick: () => this.close() },
          t("close"))),
      h("p", { class: "fp-explain" }, t("fairness_explain")),
      h("div", { class: "fp-shoe fp-current" },
        h("h4", null, t("this_shoe"), " ", h("span", { class: "fp-round" }, t("round_of", { n: view.round_no || 0 }))),
        h("div", { class: "fp-row" }, h("span", null, t("commitment")), hex(view.shoe?.commitment, "fp-commit"))),
      last ? this.lastShoe(last) : h("p", { class: "fp-wait muted" }, t("seed_after_shoe")),
      this.archive(view.table_id));
  }

  /** The table's last shoes (the archive); an ended one is checked card for card on demand. */
  archive(tableId) {
    const list = h("ol", { class: "fp-shoes" }, h("li", { class: "muted" }, "…"));
    api(`/api/shoes?table=${encodeURIComponent(tableId)}&limit=${SHOES_LISTED}`).then((data) => {
      mount(list, data.shoes.length ? data.shoes.map((shoe) => this.archived(shoe))
        : h("li", { class: "muted" }, t("no_last_shoe")));
    }, () => mount(list, h("li", { class: "muted" }, "—")));
    return h("div", { class: "fp-shoe fp-archive" }, h("h4", null, t("table_shoes")), list);
  }

  archived(shoe) {
    const result = h("div", { class: "fp-check", "aria-live": "polite" });
    const when = new Date(shoe.started_at * 1000).toLocaleString(document.documentElement.lang, {
      month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    const check = async (ev) => {
      ev.target.disabled = true;
      mount(result, h("span", { class: "muted" }, t("checking")));
      try {
        const full = await api(`/api/shoes/${encodeURIComponent(shoe.shoe_id)}`);
        mount(result, checked(full, await verifyShoe(full)));
      } catch {
        mount(result, h("span", { class: "verify-result bad" }, `✘ ${t("verify_bad")}`));
      } finally {
        ev.target.disabled = false;
      }
    };
    return h("li", { class: "fp-archived", "data-shoe": shoe.shoe_id },
      h("div", { class: "fp-archived-head" },
        h("span", null, when, " · ", t("rounds_n", { n: shoe.rounds })),
        shoe.seed ? h("span", { class: "fp-actions" },
          h("button", { class: "btn btn-gold btn-small", "data-action": "verify-shoe", onclick: check }, t("verify_shoe")),
          h("a", { class: "btn btn-small", href: `/verify?shoe=${encodeURIComponent(shoe.shoe_id)}`, target: "_blank",
            rel: "noopener" }, t("verify_page")))
          : h("span", { class: "muted" }, t("shoe_running"))),
      result);
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
