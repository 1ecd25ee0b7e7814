// The bar under the table, by who looks: a bettor's chip tray (tap or drag a chip onto an area),
// the slip's buttons, 自動開牌 and 離座; the dealer's exposure, floor, 催促 and 離座; a
// spectator's line. And the bet a tap on an area makes with the chosen chip.

import { h, mount, fmt, stableControls } from "./dom.js";
import { t } from "./i18n.js";
import { chipSVG } from "./chips.js";
import { AREAS, role, myBets, myStake, hasBets, lastBets, limitsLeft, waitingForNextRound } from "./selectors.js";
import { ring, exposureCells } from "./parts.js";
import { draggable, flyChip } from "./chipdrag.js";
import { play } from "./sound.js";
import { toast } from "./shell.js";
import { say } from "./spoken.js";

/** The controls of one table screen (`screen`: its view, its controller and its refusals). */
export class TableControls {
  constructor(screen) {
    this.screen = screen;
    this.table = screen.table;
    this.chip = Number(localStorage.getItem("baccarat.chip")) || 1;
    this.urgeRing = null; // the 催促 button's cooldown, on the dealer's bar
    // Chips sent and not yet answered, each with the stake its area shows meanwhile.
    this.pending = new Set();
    this.el = stableControls(h("div", { class: "controls", role: "region", "aria-label": say("controls") }));
  }

  draw(view) {
    const viewer = role(view);
    if (viewer === "dealer") {
      this.urgeRing = ring("urge-ring");
      const urgeBtn = h("button", { class: "btn btn-urge", "data-action": "urge", onclick: () => this.urge() },
        this.urgeRing.el, h("span", null, t("urge")));
      mount(this.el, h("div", { class: "dealer-bar" },
        exposureCells(view),
        h("div", { class: "db-info" }, h("b", null, t("dealer")),
          h("span", null, `${t("dealer_floor", { n: fmt(view.limits.dealer_floor ?? 0) })}`)),
        urgeBtn,
        h("button", { class: "btn btn-stand", "data-action": "stand", onclick: () => this.table.stand() }, t("stand"))));
      return;
    }
    this.urgeRing = null;
    if (viewer !== "bettor") {
      mount(this.el, h("div", { class: "spectator-bar" }, h("span", null, t("watching")),
        h("span", { class: "hint" }, t("tap_chip"))));
      return;
    }
    const unit = view.chip_unit;
    const chips = view.chips.map((c) => {
      const btn = h("button", {
        class: `tray-chip${c === this.chip ? " chosen" : ""}`, "data-chip": c, "aria-pressed": String(c === this.chip),
        onclick: () => {
          this.choose(c);
          play("chip");
        },
      }, chipSVG(c), h("span", { class: "chip-coins" }, fmt(c * unit)));
      // Dropping a chip on an area bets it (and makes it the chosen chip).
      draggable(btn, c, (area, x, y) => {
        this.choose(c);
        this.bet(area, { x, y });
      });
      return btn;
    });
    const left = limitsLeft(view) ?? {};
    mount(this.el, h("div", { class: "tray" },
      h("div", { class: "tray-chips" }, chips),
      h("div", { class: "tray-side" },
        // Sat down mid-round: said by the chips it is about, not over the felt's banner and ring.
        waitingForNextRound(view) ? h("div", { class: "tray-late" }, t("next_round")) : null,
        h("div", { class: "tray-stake" }, h("span", null, t("bet_total")), h("b", null, fmt(this.stake(view)))),
        h("div", { class: "tray-left" }, h("span", null, t("limits_left")),
          ...AREAS.map((a) => h("span", { class: `lim lim-${a}` }, `${t(a)} ${fmt((left[a] ?? 0) * unit)}`)))),
      h("div", { class: "tray-buttons" },
        this.autoOpenToggle(view),
        ...this.slipButtons(view),
        h("button", { class: "btn btn-stand", "data-action": "stand", onclick: () => this.table.stand() }, t("stand"))),
    ));
  }

  /**
   * 重複 / 加倍 / 撤銷 / 清除: each one command the server takes whole or refuses whole. A button
   * is greyed out when it could not do anything; any other refusal is said in words.
   */
  slipButtons(view) {
    const open = view.phase === "betting";
    const has = hasBets(view);
    const last = lastBets(view);
    const button = (action, enabled, title) => h("button", {
      class: `btn btn-${action}`, "data-action": action, disabled: !(open && enabled), title,
      onclick: () => this.slipAction(action),
    }, t(action));
    const unit = view.chip_unit;
    const lastText = last ? AREAS.filter((a) => last[a]).map((a) => `${t(a)} ${fmt(last[a] * unit)}`).join(" · ") : "";
    return [
      button("rebet", !has && last, lastText),
      button("double", has),
      button("undo", has),
      button("clear", has),
    ];
  }

  /** 自動開牌: the cards this user controls open at once; remembered for the account. The view's
   * `me` says whether it is on: the server sends it again once the table took the change. */
  autoOpenToggle(view) {
    const on = Boolean(view.me.auto_open);
    const box = h("input", { type: "checkbox", "data-action": "auto-open", checked: on,
      onchange: () => {
        const want = box.checked;
        this.table.send("prefs", { auto_open: want }).catch((err) => {
          box.checked = !want;
          this.screen.refuse(err);
        });
      } });
    return h("label", { class: `auto-open${on ? " on" : ""}`, title: t("auto_open_hint") }, box, t("auto_open"));
  }

  slipAction(action) {
    this.table.send(action).then(() => {
      if (action !== "undo" && action !== "clear") play("chip");
    }, (err) => this.screen.refuse(err));
  }

  /** Make `chip` the chip a tap on an area bets (remembered across visits). */
  choose(chip) {
    if (chip === this.chip) return;
    this.chip = chip;
    localStorage.setItem("baccarat.chip", String(chip));
    this.draw(this.screen.view);
  }

  /** The viewer's chips by area as shown: the view's, or more where a chip sent is unanswered. */
  slip(view) {
    const slip = { ...myBets(view) };
    for (const p of this.pending) slip[p.area] = Math.max(slip[p.area] ?? 0, p.shows);
    return slip;
  }

  /** The viewer's stake this round as shown (coins), the unanswered chips in it. */
  stake(view) {
    const mine = myBets(view);
    const slip = this.slip(view);
    return myStake(view) + AREAS.reduce((n, a) => n + ((slip[a] ?? 0) - (mine[a] ?? 0)) * view.chip_unit, 0);
  }

  /** Bet the chosen chip on `area`; `from` is where a dragged chip was let go. The area shows it
   * at once, before the server's answer: kept when it takes it, taken back when it refuses. */
  bet(area, from) {
    const screen = this.screen;
    const viewer = role(screen.view);
    if (viewer !== "bettor") {
      screen.refuse({ code: viewer === "dealer" ? "dealer_cannot_bet" : "not_seated", message: "" }, area);
      return;
    }
    const chip = this.chip;
    const sent = { area, chip, shows: (this.slip(screen.view)[area] ?? 0) + chip };
    this.pending.add(sent);
    screen.drawStake();
    const answered = () => {
      this.pending.delete(sent);
      // (a chip sent after it on the same area counted it)
      for (const p of this.pending) if (p.area === area && p.shows >= sent.shows) p.shows -= chip;
    };
    this.table.send("bet", { area, chip }).then(() => {
      this.pending.delete(sent);
      play("chip");
      screen.urgeEl.hidden = true;
      // The accepted chip flies to the area: from the drop point, or from the tray.
      let at = from;
      if (!at) {
        const r = this.el.querySelector(`.tray-chip[data-chip="${chip}"] svg`)?.getBoundingClientRect();
        at = r ? { x: r.left + r.width / 2, y: r.top + r.height / 2 } : null;
      }
      if (at) flyChip(chip, at.x, at.y, screen.areasRow.querySelector(`[data-area="${area}"]`));
    }, (err) => {
      answered();
      screen.drawStake();
      screen.refuse(err, area);
    });
  }

  urge() {
    this.table.send("urge").then(() => toast(t("urge_sent")), (err) => this.screen.refuse(err));
  }
}
