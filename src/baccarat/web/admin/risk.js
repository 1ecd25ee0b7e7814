// The console's risk view: pairs of accounts scored for 對打 (hedged opposite betting) and chip
// dumping over a window of days, by score, each with its shared rounds as evidence.

import { h, mount, fmt, signed } from "../js/dom.js";
import { api } from "../js/net.js";
import { t, refusal, when } from "./words.js";
import { grid } from "./grid.js";
import { roundName, userLink } from "./names.js";

const DAYS = [1, 7, 30, 90];

// A position as the side and the coins on it: 閒 500, 莊 300.
function position(coins, pattern) {
  // In a dump between a dealer and a bettor, the one without a position dealt the round.
  if (!coins) return pattern === "dumping" ? h("span", { class: "muted" }, t("dealer")) : "—";
  const side = coins > 0 ? "player" : "banker";
  return h("span", { class: `cs-side cs-${side}` }, `${t(`area_${side}`)} ${fmt(Math.abs(coins))}`);
}

// What the pair did, in one cell: the hedged share, or the coins that flowed and which way.
function measure(p) {
  if (p.pattern === "hedge") return t("risk_hedged_of", { k: fmt(p.hits), n: fmt(p.rounds), pct: Math.round((100 * p.hits) / p.rounds) });
  return p.flow >= 0 ? t("risk_flow_to", { coins: fmt(p.flow), name: p.b_name }) : t("risk_flow_to", { coins: fmt(-p.flow), name: p.a_name });
}

function pairRow(p, open) {
  const arrow = p.pattern === "dumping" ? (p.flow >= 0 ? "→" : "←") : "⇄";
  return h("tr", { "data-pair": `${p.pattern}:${p.a}:${p.b}`, "data-flagged": String(p.flagged), class: p.flagged ? "cs-flagged" : null },
    h("td", null, p.flagged ? h("span", { class: "pill cs-banned" }, t("risk_flagged")) : h("span", { class: "muted" }, t("risk_watch"))),
    h("td", null, t(`risk_${p.pattern}`)),
    h("td", null, userLink(p.a, p.a_name), ` ${arrow} `, userLink(p.b, p.b_name)),
    h("td", { class: "num" }, p.score.toFixed(2)),
    h("td", null, measure(p)),
    h("td", null, p.addresses.length ? h("span", { class: "pill cs-muted", title: p.addresses.join(", ") }, t("risk_same_address")) : "—"),
    h("td", null, h("button", { class: "btn-link", "data-action": "evidence", onclick: () => open(p) }, t("risk_rounds"))));
}

// Why the pair scores what it does, in the view's words.
function why(p) {
  if (p.pattern === "hedge") return t("risk_why_hedge", { z: p.z.toFixed(2), n: fmt(p.rounds) });
  // The one the coins left, and the one they reached, each with their own results' z.
  const [from, to, fz, tz] = p.flow >= 0 ? [p.a_name, p.b_name, p.a_z, p.b_z] : [p.b_name, p.a_name, p.b_z, p.a_z];
  return t("risk_why_dumping", { z: Math.abs(p.z).toFixed(2), n: fmt(p.rounds), from, to, fz: fz.toFixed(2), tz: tz.toFixed(2) });
}

function evidence(p) {
  const heads = [t("time"), t("round"), p.a_name, p.b_name];
  if (p.pattern === "dumping") heads.push(t("risk_flow", { name: p.b_name }));
  return h("section", { class: "cs-evidence panel", "data-evidence": `${p.pattern}:${p.a}:${p.b}` },
    h("h3", null, `${t(`risk_${p.pattern}`)} · ${p.a_name} · ${p.b_name}`),
    h("p", { class: "muted", "data-field": "why" }, why(p)),
    grid(heads, p.evidence.map((e) => h("tr", { "data-round": e.round_id },
      h("td", null, when(e.at)),
      h("td", null, h("a", { href: `#/records/${encodeURIComponent(e.round_id)}`, title: e.round_id }, roundName(e.table_id, e.round_no))),
      h("td", { class: "num" }, position(e.a_position, p.pattern)),
      h("td", { class: "num" }, position(e.b_position, p.pattern)),
      p.pattern === "dumping" ? h("td", { class: "num" }, signed(e.flow)) : null)), { "data-list": "evidence" }));
}

/** Pairs by score over the chosen days; a pair's rounds open below the list. */
export async function riskView(body) {
  const days = h("select", { name: "days", "aria-label": t("days", { n: "…" }) }, DAYS.map((n) => h("option", { value: n, selected: n === 7 }, t("days", { n }))));
  const out = h("div");
  const shown = h("div");
  const load = async () => {
    const got = await api(`/api/admin/risk?days=${days.value}`);
    const th = got.thresholds;
    mount(shown);
    mount(out,
      h("p", { class: "cs-risk-counts", "data-field": "flagged" },
        t("risk_counts", { hedge: t("risk_hedge_pairs", { n: got.flagged.hedge }), dumping: t("risk_dumping_pairs", { n: got.flagged.dumping }) })),
      grid([t("status"), t("risk_pattern"), t("risk_pair"), t("risk_score"), t("risk_what"), t("risk_address"), ""],
        got.pairs.map((p) => pairRow(p, (pair) => { mount(shown, evidence(pair)); shown.scrollIntoView({ block: "nearest" }); })),
        { "data-list": "pairs" }),
      h("details", { class: "cs-rules" },
        h("summary", null, t("risk_rules")),
        h("ul", null,
          h("li", null, t("risk_rule_hedge", { match: Math.round(th.hedge_match * 100), n: th.hedge_min_rounds, share: Math.round(th.hedge_min_share * 100), flag: th.hedge_flag, weight: th.address_weight })),
          h("li", null, t("risk_rule_dumping", { n: th.dump_min_rounds, flag: th.dump_flag })))));
  };
  days.addEventListener("change", () => load().catch((err) => mount(out, h("p", { class: "cs-error" }, refusal(err)))));
  mount(body, h("form", { class: "cs-search" }, days), out, shown);
  await load();
}
