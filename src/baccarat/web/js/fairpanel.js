// The fairness panel (公平性): what the shoe's commitment means, the current shoe's commitment
// (which this page remembers, seen.js), the last finished shoe's seed checked against its
// commitment and against what this page saw, and the table's last shoes from the archive, each
// ended one checked card for card in the page. A check stays on screen, through rounds and
// redraws, until the player closes it. Each shoe's place in the commitment log is checked as
// the panel shows it (logproof.js), and an ended shoe whose seed was never revealed says why.

import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { api } from "./net.js";
import { seedMatches, verifyCommand, verifyShoe } from "./fair.js";
import { alarming, recall, remember, witness } from "./seen.js";
import { checkedBox, hex, logLine, memoryLine, when, witnessLine } from "./shoecheck.js";
import { logInclusion } from "./logproof.js";
import { splitView } from "./cosigned.js";
import { witnessed } from "./witnessing.js";
import { toast } from "./shell.js";

const SHOES_LISTED = 5;

/** What the current shoe's part shows: it is drawn again only when this changes. */
function currentKey(view) {
  return [view.shoe?.id, view.shoe?.commitment, view.round_no].join("|");
}

function lastKey(view) {
  return [view.last_shoe?.shoe_id, view.last_shoe?.seed, view.last_shoe?.commitment].join("|");
}

/** Why an ended shoe's seed is not revealed (or, for a closed table's, that it is), in words. */
function endReason(shoe) {
  if (!shoe.ended_at) return null;
  const reason = shoe.end_reason;
  if (shoe.seed && reason !== "closed") return null;
  const known = ["key_missing", "seal_broken", "unsealed", "closed"].includes(reason);
  const words = t(`end_${known ? reason : "unknown"}`);
  return h("span", { class: `fp-ended${shoe.seed ? " muted" : ""}`, "data-reason": reason ?? "" },
    shoe.seed ? words : `${t("ended_unrevealed")}${words}`);
}

/** The panel as a dialog over the table; open() shows it for a table's view, close() hides it. */
export class FairnessPanel {
  constructor() {
    this.body = h("div", { class: "fp-body" });
    this.el = h("div", { class: "fair-panel", role: "dialog", "aria-modal": "true", hidden: true,
      "aria-label": t("fairness"), onclick: (ev) => { if (ev.target === this.el) this.close(); } },
    h("section", { class: "fp-card", tabindex: "-1" }, this.body));
    this.open_ = false;
    this.view = null;
    this.kept = new Map(); // shoe id -> {result, seen}: the whole-shoe checks on screen
    this.checking = new Set(); // shoe ids being checked
    this.rows = new Map(); // shoe id -> {li, head, result}: the archive's rows
    this.alarms = new Set(); // shoe ids whose seed is not what this page saw committed
    this.logs = new Map(); // "shoe|commitment|log index" -> the log check's promise, while open
    document.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape" && this.open_) this.close();
    });
  }

  /** Whether a revealed seed differed from what this page saw (the 公平性 button turns red). */
  get alarmed() {
    return this.alarms.size > 0;
  }

  /** Show the panel for this table's view. */
  open(view) {
    this.open_ = true;
    this.logs.clear(); // each opening asks the log afresh
    this.witnessing = null; // ... and the witnesses
    this.el.hidden = false;
    this.el.setAttribute("aria-label", t("fairness"));
    this.draw(view);
    // The keyboard goes into the dialog, and back to the button that opened it on closing.
    this.el.firstElementChild.focus({ preventScroll: true });
  }

  close() {
    this.open_ = false;
    this.el.hidden = true;
    document.querySelector("[data-action='fairness']")?.focus({ preventScroll: true });
  }

  /** Draw the panel again (a language switch); the checks on screen stay. */
  redraw() {
    if (this.open_ && this.view) this.draw(this.view);
  }

  /** Follow the table (a round, a new shoe, a shoe that ended): the parts that changed are
   * drawn again, the archive's rows updated in place, and every check on screen stays. */
  update(view) {
    if (!this.open_) return;
    const current = currentKey(view) !== this.currentKey;
    const last = lastKey(view) !== this.lastKey;
    this.view = view;
    if (current) this.drawCurrent(view);
    if (last) this.drawLast(view);
    if (current || last) this.fetchArchive(view.table_id);
  }

  /** A shoe ended at the table: its seed is checked against what this page saw at once, and a
   * seed that is not the one it saw committed to is said aloud. */
  async shoeEnded(data) {
    const seen = await witness(data.shoe_id, data.seed);
    if (alarming(seen)) this.alarm(data.shoe_id);
  }

  /** Check the served checkpoint in the background (the table entered, a shoe started): a split
   * view or a log rolled back is said at once, and turns the 公平性 button red. */
  watch() {
    this.watching ??= witnessed({ again: false }).catch(() => ({ verdict: "unreachable" })).then((result) => {
      this.watching = null;
      if (splitView(result.memory)) this.alarm("checkpoint", "witness_alarm_toast");
    });
  }

  alarm(shoeId, words = "memory_alarm_toast") {
    if (this.alarms.has(shoeId)) return;
    this.alarms.add(shoeId);
    // (an open panel says it in red where the player is looking)
    if (!this.open_) toast(t(words), "error", 12000);
    this.onAlarm?.();
  }

  draw(view) {
    this.view = view;
    this.currentEl = h("div", { class: "fp-shoe fp-current" });
    this.witnessEl = h("div", { class: "fp-witness-slot" });
    this.lastEl = h("div", { class: "fp-last-slot" });
    this.list = h("ol", { class: "fp-shoes" }, h("li", { class: "muted" }, "…"));
    this.rows.clear();
    mount(this.body,
      h("header", { class: "fp-head" }, h("h2", null, t("fairness")),
        h("button", { class: "btn btn-ghost btn-small", "data-action": "fairness-close", onclick: () => this.close() },
          t("close"))),
      h("p", { class: "fp-explain" }, t("fairness_explain")),
      this.witnessEl, this.currentEl, this.lastEl,
      h("div", { class: "fp-shoe fp-archive" }, h("h3", null, t("table_shoes")), this.list));
    this.drawWitness();
    this.drawCurrent(view);
    this.drawLast(view);
    this.fetchArchive(view.table_id);
  }

  /** How many witnesses vouch for the log's head, asked once an opening; a split view (the
   * checkpoint kept in this browser contradicted) turns the 公平性 button red. */
  drawWitness() {
    const slot = this.witnessEl;
    this.witnessing ??= witnessed().catch(() => ({ verdict: "unreachable" })).then((result) => {
      if (splitView(result.memory)) this.alarm("checkpoint", "witness_alarm_toast");
      return result;
    });
    mount(slot, witnessLine(undefined));
    this.witnessing.then((result) => mount(slot, witnessLine(result)));
  }

  /** The shoe in play: its commitment, and whether this page has it noted for the shoe's end. */
  drawCurrent(view) {
    this.currentKey = currentKey(view);
    // (noted before anything reads the page's memory of it)
    this.noting = view.shoe?.commitment ? remember(view.shoe.id, view.table_id, view.shoe.commitment) : Promise.resolve();
    const noted = h("p", { class: "fp-noted muted" });
    mount(this.currentEl,
      h("h3", null, t("this_shoe"), " ", h("span", { class: "fp-round" }, t("round_of", { n: view.round_no || 0 }))),
      h("div", { class: "fp-row" }, h("span", null, t("commitment")), hex(view.shoe?.commitment, "fp-commit")),
      view.shoe?.commitment ? noted : null,
      view.shoe?.commitment ? this.logSlot(view.shoe.id, view.shoe.commitment) : null);
    if (!view.shoe?.commitment) return;
    const { id, commitment } = view.shoe;
    this.noting.then(() => recall(id)).then((record) => {
      if (record === null) return; // (not written: it is tried again at the next sighting)
      noted.dataset.memory = record ? "noted" : "none";
      noted.textContent = record ? t("memory_noted", { time: when(record.seen_at) }) : t("memory_none");
    });
  }

  /** A slot that shows the shoe's place in the commitment log once checked. `logIndex` is the
   * archive's (null: dealt before the log; undefined: not known here, the log is asked). */
  logSlot(shoeId, commitment, logIndex) {
    const key = [shoeId, commitment, logIndex].join("|");
    let check = this.logs.get(key);
    if (!check) {
      // What this page saw of the shoe (never learnt from the archive), then the proof.
      check = { result: undefined };
      check.promise = (this.noting ?? Promise.resolve()).then(() => recall(shoeId))
        .then((record) => logInclusion(shoeId, { logIndex, archived: commitment, remembered: record || null }))
        .catch(() => ({ verdict: "unreachable", failures: [] }))
        .then((result) => {
          check.result = result;
          if (result.ok === false) this.alarm(shoeId);
          return result;
        });
      this.logs.set(key, check);
    }
    const slot = h("div", { class: "fp-log-slot", "data-shoe": shoeId }, logLine(check.result));
    if (!check.result) check.promise.then((result) => mount(slot, logLine(result)));
    return slot;
  }

  drawLast(view) {
    this.lastKey = lastKey(view);
    const last = view.last_shoe?.seed ? view.last_shoe : null;
    mount(this.lastEl, last ? this.lastShoe(last) : h("p", { class: "fp-wait muted" }, t("seed_after_shoe")));
  }

  /** The table's last shoes (the archive): rows kept by shoe, each ended one checked on demand. */
  fetchArchive(tableId) {
    const list = this.list;
    api(`/api/shoes?table=${encodeURIComponent(tableId)}&limit=${SHOES_LISTED}`).then((data) => {
      if (list !== this.list) return; // drawn again meanwhile
      mount(list, data.shoes.length ? data.shoes.map((shoe) => this.row(shoe).li)
        : h("li", { class: "muted" }, t("no_last_shoe")));
    }, () => {
      if (list === this.list && !this.rows.size) mount(list, h("li", { class: "muted" }, "—"));
    });
  }

  /** The archive's row for a shoe: its head drawn again, its check (if any) kept. */
  row(shoe) {
    let row = this.rows.get(shoe.shoe_id);
    if (!row) {
      row = { head: h("div", { class: "fp-archived-head" }), result: h("div", { class: "fp-check", "aria-live": "polite" }) };
      row.li = h("li", { class: "fp-archived", "data-shoe": shoe.shoe_id }, row.head, row.result);
      this.rows.set(shoe.shoe_id, row);
      this.showCheck(shoe.shoe_id);
    }
    const started = when(shoe.started_at * 1000);
    mount(row.head,
      h("span", null, started, " · ", t("rounds_n", { n: shoe.rounds })),
      shoe.seed ? h("span", { class: "fp-actions" },
        h("button", { class: "btn btn-gold btn-small", "data-action": "verify-shoe", disabled: this.checking.has(shoe.shoe_id),
          onclick: () => this.check(shoe.shoe_id) }, t("verify_shoe")),
        h("a", { class: "btn btn-small", href: `/verify?shoe=${encodeURIComponent(shoe.shoe_id)}`, target: "_blank",
          rel: "noopener" }, t("verify_page")))
        : shoe.ended_at ? null : h("span", { class: "muted" }, t("shoe_running")),
      endReason(shoe));
    // (the log's line is drawn again only when the shoe's commitment or log index changes)
    const logKey = [shoe.commitment, shoe.log_index].join("|");
    if (row.logKey !== logKey) {
      row.logKey = logKey;
      const slot = this.logSlot(shoe.shoe_id, shoe.commitment, shoe.log_index ?? null);
      if (row.log) row.log.replaceWith(slot);
      else row.head.after(slot);
      row.log = slot;
    }
    return row;
  }

  /** Check an ended shoe of the archive card for card, and against what this page saw. */
  async check(shoeId) {
    this.checking.add(shoeId);
    this.kept.delete(shoeId);
    this.showCheck(shoeId);
    try {
      const full = await api(`/api/shoes/${encodeURIComponent(shoeId)}`);
      const [result, seen] = await Promise.all([verifyShoe(full), witness(shoeId, full.seed)]);
      this.kept.set(shoeId, { result, seen });
      if (alarming(seen)) this.alarm(shoeId);
    } catch {
      this.kept.set(shoeId, { failed: true });
    } finally {
      this.checking.delete(shoeId);
      this.showCheck(shoeId);
    }
  }

  /** Draw a shoe's check (or its progress) in its row, wherever the row is now. */
  showCheck(shoeId) {
    const row = this.rows.get(shoeId);
    if (!row) return;
    const button = row.head.querySelector("[data-action='verify-shoe']");
    if (button) button.disabled = this.checking.has(shoeId);
    const kept = this.kept.get(shoeId);
    if (this.checking.has(shoeId)) mount(row.result, h("span", { class: "muted" }, t("checking")));
    else if (kept?.failed) mount(row.result, h("span", { class: "verify-result bad" }, `✘ ${t("verify_bad")}`));
    else if (kept) {
      mount(row.result, checkedBox(kept.result, kept.seen, () => {
        this.kept.delete(shoeId);
        this.showCheck(shoeId);
      }));
    } else mount(row.result);
  }

  lastShoe(last) {
    const result = h("div", { class: "verify-result", "aria-live": "polite" });
    const memory = h("div", { class: "fp-memory-slot" });
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
    // What this page saw when the shoe started, against the seed: said at once.
    witness(last.shoe_id, last.seed).then((seen) => {
      mount(memory, memoryLine(seen));
      if (alarming(seen)) this.alarm(last.shoe_id);
    });
    return h("div", { class: "fp-shoe fp-last", "data-shoe": last.shoe_id },
      h("h3", null, t("last_shoe"), " · ", t("shoe_ended")),
      h("div", { class: "fp-row" }, h("span", null, t("commitment")), hex(last.commitment, "fp-last-commit")),
      h("div", { class: "fp-row" }, h("span", null, t("seed")), hex(last.seed, "fp-seed")),
      memory,
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
