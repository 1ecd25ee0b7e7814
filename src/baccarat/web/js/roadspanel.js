// The roads panel: bead plate, Big Road, derived roads, counts and ask buttons.

import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { say } from "./spoken.js";
import { roads, ask } from "./roads.js";
import { drawBeadPlate, drawBigRoad, drawDerived, miniMark } from "./roadsview.js";
import { goodRoads, shoeStats } from "./patterns.js";

const DERIVED = ["big_eye_boy", "small_road", "cockroach_pig"];
const STRIP_CELL = 10; // px: one cell of the phone's Big Road strip
const SIDEWAYS = "(orientation: landscape) and (max-height: 500px)"; // a phone on its side

function columnsFor(width) {
  // As many columns as fit the panel's width at the CSS heights (big road 108 px, derived 56 px).
  if (width <= 900) {
    const main = width - 28;
    return { bigCols: Math.max(12, Math.floor(main / 18)), derivedCols: Math.max(8, Math.floor((main - 8) / 3 / 8)) };
  }
  const main = width - 364 - 240 - 64;
  return { bigCols: Math.max(16, Math.floor(main / (108 / 6))), derivedCols: Math.max(10, Math.floor((main - 8) / 3 / (56 / 6))) };
}

/** The roads under the table; update() redraws from the shoe's history marks. */
export class RoadsPanel {
  constructor() {
    this.el = h("section", { class: "roads-panel", "aria-label": say("roads") });
    // The Big Road again, as a strip a phone keeps on its first screen beside the chips (a
    // picture the panel already gives a screen reader).
    this.strip = h("div", { class: "road-box road-strip", "aria-hidden": "true" });
    this.history = [];
    this.shoe = {};
    this.lastShoe = null;
    this.preview = null;
    this.which = "current";
    this.showStats = false;
    let timer = null;
    window.addEventListener("resize", () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.el.isConnected && this.draw(), 150);
    });
  }

  /** Redraw for a history and the current shoe ({commitment}); lastShoe: {commitment, seed}. */
  update(history, shoe, lastShoe) {
    this.history = history || [];
    this.shoe = shoe || {};
    this.lastShoe = lastShoe || null;
    this.draw();
  }

  askFor(winner) {
    this.preview = { winner, result: ask(this.history, winner) };
    this.draw();
    clearTimeout(this.previewTimer);
    this.previewTimer = setTimeout(() => {
      this.preview = null;
      this.draw();
    }, 2600);
  }

  /** Show the previous shoe's roads (上一靴) or the current shoe's again. */
  showShoe(which) {
    this.which = which;
    this.preview = null;
    this.draw();
  }

  /** The good roads (好路) that hold now, as badges. */
  goodRoadsLine(history) {
    const found = goodRoads(history);
    return h("div", { class: "good-roads", "data-count": found.length },
      found.length ? h("span", { class: "gr-title" }, t("good_roads")) : null,
      found.map((g) => h("span", { class: `gr gr-${g.pattern}`, "data-pattern": g.pattern, title: t(`gr_def_${g.pattern}`) },
        `${t(`gr_${g.pattern}`)} ${g.length}`)));
  }

  /** The shoe's statistics (統計): shares of each result, pairs, naturals, longest runs. */
  statsBox(history) {
    const st = shoeStats(history);
    const pct = (n) => (st.rounds ? `${Math.round((n / st.rounds) * 1000) / 10}%` : "—");
    const row = (key, label, value) => h("div", { class: `stat stat-${key}`, "data-stat": key },
      h("span", null, label), h("b", null, value));
    return h("div", { class: "stats-box" },
      row("banker", t("banker"), `${st.banker} · ${pct(st.banker)}`),
      row("player", t("player"), `${st.player} · ${pct(st.player)}`),
      row("tie", t("tie"), `${st.tie} · ${pct(st.tie)}`),
      row("pairs", `${t("banker_pair")} / ${t("player_pair")}`, `${st.banker_pair} / ${st.player_pair}`),
      row("natural", t("naturals"), `${st.natural} · ${pct(st.natural)}`),
      row("longest", t("longest_runs"), `${t("banker")} ${st.longest_banker} / ${t("player")} ${st.longest_player}`));
  }

  /** The phone's strip, drawn only on a phone and only when its road changed: the panel is
   * drawn again on every event of the table. */
  drawStrip(bigRoad, preview, history) {
    // Upright as wide as the window; on its side in the column beside the felt (sizes.css).
    const upright = matchMedia("(max-width: 600px)").matches;
    const width = upright ? window.innerWidth - 16 : this.strip.clientWidth - 4;
    const cols = Math.max(12, Math.floor(width / STRIP_CELL));
    const key = (upright || matchMedia(SIDEWAYS).matches) &&
      [this.which, this.shoe?.commitment, history.length, this.preview?.winner, cols, t("big_road")].join("|");
    if (key === this.stripKey) return;
    this.stripKey = key;
    mount(this.strip, key ? [h("div", { class: "road-title" }, t("big_road")), drawBigRoad(bigRoad, cols, preview)] : null);
  }

  draw() {
    const last = this.which === "last" && this.lastShoe?.history ? this.lastShoe : null;
    const history = last ? last.history : this.history;
    const r = roads(history);
    const pv = this.preview?.result ?? {};
    const { bigCols, derivedCols } = columnsFor(window.innerWidth);
    const c = r.counts;
    const askBtn = (winner) => {
      const next = ask(this.history, winner);
      return h("button", { class: `btn ask ask-${winner}${this.preview?.winner === winner ? " on" : ""}`,
        "data-ask": winner, onclick: () => this.askFor(winner) },
        h("span", null, t(winner === "banker" ? "ask_banker" : "ask_player")),
        h("span", { class: "ask-marks" }, DERIVED.map((k) => miniMark(k, next[k]?.color))));
    };
    this.el.dataset.shoe = last ? "last" : "current";
    const hasLast = Boolean(this.lastShoe?.history?.length);
    const tools = h("div", { class: "road-tools" },
      h("button", { class: `btn btn-small${this.showStats ? " on" : ""}`, "data-action": "stats",
        onclick: () => { this.showStats = !this.showStats; this.draw(); } }, t("stats")),
      last ? h("button", { class: "btn btn-small on", "data-action": "this-shoe", onclick: () => this.showShoe("current") },
        t("this_shoe"))
        : h("button", { class: "btn btn-small", "data-action": "last-shoe", disabled: !hasLast,
          title: hasLast ? "" : t("no_last_shoe"), onclick: () => this.showShoe("last") }, t("last_shoe")));
    this.drawStrip(r.big_road, pv.big_road, history);
    mount(this.el,
      h("div", { class: "road-box bead-box" }, h("div", { class: "road-title" }, last ? `${t("last_shoe")} · ${t("bead_plate")}` : t("bead_plate")),
        drawBeadPlate(r.bead_plate)),
      h("div", { class: "road-main" },
        h("div", { class: "road-box big-box" }, h("div", { class: "road-title" }, t("big_road")),
          drawBigRoad(r.big_road, bigCols, pv.big_road)),
        h("div", { class: "derived-row" },
          DERIVED.map((k) => h("div", { class: `road-box d-box d-${k}` },
            h("div", { class: "road-title" }, t(k)),
            drawDerived(r[k], k, derivedCols, pv[k]))))),
      h("div", { class: "road-side" },
        tools,
        this.goodRoadsLine(history),
        this.showStats ? this.statsBox(history) : null,
        h("div", { class: "counts" },
          h("span", { class: "cnt cnt-banker" }, `${t("banker")} ${c.banker}`),
          h("span", { class: "cnt cnt-player" }, `${t("player")} ${c.player}`),
          h("span", { class: "cnt cnt-tie" }, `${t("tie")} ${c.tie}`),
          h("span", { class: "cnt cnt-bp" }, `${t("banker_pair")} ${c.banker_pair}`),
          h("span", { class: "cnt cnt-pp" }, `${t("player_pair")} ${c.player_pair}`),
          h("span", { class: "cnt cnt-all", "data-rounds": c.rounds }, `${t("rounds")} ${c.rounds}`)),
        last ? null : h("div", { class: "asks" }, askBtn("banker"), askBtn("player"))),
    );
  }
}
