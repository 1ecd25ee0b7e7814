// Pieces of the table drawn from state: seats, areas, hands, the book, the countdown ring.

import { h, s, add, fmt, signed } from "./dom.js";
import { t } from "./i18n.js";
import { cardFace, cardBack, handPoints } from "./cards.js";
import { chipSVG, chipStack } from "./chips.js";
import { AREAS, PAYOUT } from "./state.js";

const SEAT_HUE = [42, 0, 28, 55, 150, 190, 260, 320];

/** Chips per area for one seat ({} when none). */
export function seatBets(st, seat) {
  return st.seats[seat]?.bets ?? {};
}

/** Remaining chips allowed on each area for a slip, Player/Banker exclusive. */
export function remaining(slip, limits) {
  const out = {};
  for (const a of AREAS) out[a] = Math.max(0, (limits[a] ?? 0) - (slip[a] ?? 0));
  if ((slip.player ?? 0) > 0) out.banker = 0;
  if ((slip.banker ?? 0) > 0) out.player = 0;
  return out;
}

function avatar(name, seat) {
  const hue = SEAT_HUE[seat % SEAT_HUE.length];
  return h("div", { class: "avatar", translate: "no", style: { "--hue": hue } }, (name || "?").slice(0, 1).toUpperCase());
}

/** One seat box (bettor seats 1-7 and the dealer seat 0). */
export function seatBox(st, seat, { onSit, canSit }) {
  const occ = st.seats[seat];
  const unit = st.room.chip_unit;
  const mine = st.me.seat === seat && occ;
  const cls = ["seat", seat === 0 ? "seat-dealer" : "seat-bettor", occ ? "taken" : "free",
    mine ? "me" : "", occ && !occ.connected ? "away" : ""].join(" ");
  const box = h("div", { class: cls, "data-seat": seat });
  if (!occ) {
    add(box,
      h("div", { class: "seat-no" }, seat === 0 ? t("dealer") : String(seat)),
      h("div", { class: "seat-empty" }, seat === 0 ? t("empty_dealer") : t("empty_seat")),
      canSit ? h("button", { class: "btn btn-sit", "data-sit": seat, onclick: () => onSit(seat) },
        seat === 0 ? t("sit_dealer") : t("sit")) : null,
    );
    return box;
  }
  const bets = occ.bets || {};
  add(box,
    h("div", { class: "seat-no" }, seat === 0 ? t("dealer") : String(seat)),
    avatar(occ.name, seat),
    h("div", { class: "seat-info" },
      // The name is the user's own (never translated); the "me" tag is a word of the page.
      h("div", { class: "seat-name", translate: "no", title: occ.name },
        mine ? h("span", { class: "me-tag", translate: "yes" }, t("me")) : null, occ.name),
      h("div", { class: "seat-meta" },
        h("span", { class: "lv" }, t("lv", { n: occ.level })),
        h("span", { class: "coins", "data-coins": occ.coins }, fmt(occ.coins))),
    ),
    seat === 0 ? null : h("div", { class: "seat-bets" },
      AREAS.filter((a) => bets[a]).map((a) => h("span", { class: `pill pill-${a}`, "data-coins": bets[a] * unit },
        `${t(a)} ${fmt(bets[a] * unit)}`))),
    occ.waiting ? h("div", { class: "seat-wait" }, t("waiting_next")) : null,
    occ.leaving ? h("div", { class: "seat-leaving" }, t("leaving_after_round")) : null,
  );
  return box;
}

/** One bet area with its payout, every seat's chips on it and the viewer's own stack. */
export function areaBox(st, area, { onTap, chosen, mySlip, left }) {
  const unit = st.room.chip_unit;
  let total = 0;
  const markers = [];
  for (let seat = 1; seat <= 7; seat++) {
    const n = st.seats[seat]?.bets?.[area] ?? 0;
    if (!n) continue;
    total += n;
    if (seat !== st.me.seat) {
      // A picture of the seat's chips; the amount, in coins, is its title.
      markers.push(h("span", { class: "seat-chip", title: `${t("seat_n", { n: seat })}: ${t("coins_n", { n: fmt(n * unit) })}` },
        chipSVG(n >= 10 ? 10 : n >= 5 ? 5 : n >= 3 ? 3 : n >= 2 ? 2 : 1),
        h("small", null, String(seat))));
    }
  }
  const mine = mySlip?.[area] ?? 0;
  return h("button", {
    class: `area area-${area}${mine ? " has-mine" : ""}`,
    "data-area": area,
    onclick: () => onTap(area),
    "aria-label": `${t(area)} 1:${PAYOUT[area]}`,
  },
    h("span", { class: "area-name" }, t(area)),
    h("span", { class: "area-pay" }, `1:${PAYOUT[area]}`),
    h("span", { class: "area-markers" }, markers),
    mine ? h("span", { class: "my-stack", "data-chips": mine }, chipStack(mine, ""),
      h("b", { class: "my-coins" }, fmt(mine * unit))) : null,
    h("span", { class: "area-total" }, total ? `${fmt(total * unit)}` : ""),
    left !== undefined ? h("span", { class: "area-left" }, `${t("limit")} ${fmt(left * unit)}`) : null,
  );
}

/** A hand: its label, points and cards (face-down ones show their back). */
export function handBox(st, name, { winner, newCards, flipped }) {
  const hand = st.hands[name];
  const open = hand.cards.filter((c) => c.code && !c.faceDown).map((c) => c.code);
  const pts = hand.points ?? (hand.cards.length ? handPoints(open) : null);
  const cards = hand.cards.map((c, i) => {
    const show = c.code && !c.faceDown;
    const el = h("div", { class: `card${show ? "" : " down"}${i === 2 ? " third" : ""}`, "data-i": i },
      show ? cardFace(c.code) : cardBack());
    if (newCards?.has(i)) el.classList.add("deal-in");
    if (flipped?.has(i)) el.classList.add("flip-in");
    return el;
  });
  return h("div", { class: `hand hand-${name}${winner === name ? " win" : ""}`, "data-hand": name },
    h("div", { class: "hand-head" },
      h("span", { class: "hand-name" }, t(name)),
      h("span", { class: "hand-points", "data-points": pts ?? "" }, pts === null ? "" : String(pts))),
    h("div", { class: "hand-cards" }, cards.length ? cards : h("div", { class: "card slot" })),
  );
}

/** The countdown ring: an SVG circle whose stroke shrinks with the time left. */
export function ring(cls) {
  const r = 26;
  const c = 2 * Math.PI * r;
  const arc = s("circle", { cx: 32, cy: 32, r, class: "ring-arc", "stroke-dasharray": c, "stroke-dashoffset": 0 });
  const txt = s("text", { x: 32, y: 39, "text-anchor": "middle", class: "ring-text" }, "");
  const svg = s("svg", { viewBox: "0 0 64 64", class: `ring ${cls || ""}` },
    s("circle", { cx: 32, cy: 32, r, class: "ring-bg" }), arc, txt);
  return {
    el: svg,
    set(left, total) {
      if (left === null) {
        svg.classList.add("idle");
        txt.textContent = "";
        return;
      }
      svg.classList.remove("idle");
      const frac = total > 0 ? Math.max(0, Math.min(1, left / total)) : 0;
      const offset = (c * (1 - frac)).toFixed(1);
      // Touch the DOM only when something visible changed.
      if (arc.getAttribute("stroke-dashoffset") !== offset) arc.setAttribute("stroke-dashoffset", offset);
      // No "0": when the time is up the phase text says what happens next.
      const secs = left > 0 ? String(Math.ceil(left)) : "";
      if (txt.textContent !== secs) txt.textContent = secs;
      svg.classList.toggle("hurry", left <= 3);
    },
  };
}

/** What the dealer wins (+) or pays (−) if Player wins, if Banker wins, on a tie, in coins. */
export function exposureOf(st) {
  const unit = st.room.chip_unit;
  const book = st.book || {};
  let player = 0;
  let banker = 0;
  for (let seat = 1; seat <= 7; seat++) {
    const bets = book.per_seat?.[String(seat)] ?? st.seats[seat]?.bets ?? {};
    player += bets.player ?? 0;
    banker += bets.banker ?? 0;
  }
  const pc = book.totals?.player?.coins ?? player * unit;
  const bc = book.totals?.banker?.coins ?? banker * unit;
  return { pc, bc, ex: book.exposure ?? { if_player_wins: bc - pc, if_banker_wins: pc - bc, if_tie: 0 } };
}

/** The exposure as three short cells (the dealer's bar on a phone, where the book is below). */
export function exposureCells(st) {
  const { ex } = exposureOf(st);
  const cell = (label, v, cls) => h("div", { class: `dx dx-${cls} ${v > 0 ? "up" : v < 0 ? "down" : ""}` },
    h("span", null, label), h("b", { "data-exposure": cls }, signed(v)));
  return h("div", { class: "db-exposure", "aria-label": t("exposure") },
    cell(t("if_player"), ex.if_player_wins, "player"),
    cell(t("if_banker"), ex.if_banker_wins, "banker"),
    cell(t("if_tie"), ex.if_tie, "tie"));
}

/** The dealer's book: bets by seat, totals, exposure and the dealer's coins vs the floor. */
export function bookPanel(st) {
  const unit = st.room.chip_unit;
  const book = st.book || {};
  const rows = [];
  const totals = { player: 0, banker: 0, tie: 0, player_pair: 0, banker_pair: 0 };
  for (let seat = 1; seat <= 7; seat++) {
    const occ = st.seats[seat];
    const bets = book.per_seat?.[String(seat)] ?? occ?.bets ?? {};
    for (const a of AREAS) totals[a] += bets[a] ?? 0;
    if (!occ && !Object.keys(bets).length) continue;
    rows.push(h("tr", { class: occ ? "" : "gone" },
      h("td", { class: "bk-seat" }, String(seat)),
      h("td", { class: "bk-name", translate: "no" }, occ?.name ?? "—"),
      ...AREAS.map((a) => h("td", { class: `bk-${a}` }, bets[a] ? fmt(bets[a] * unit) : "·")),
    ));
  }
  const { pc, bc, ex } = exposureOf(st);
  const dealer = st.seats[0];
  const floor = st.room.dealer_floor ?? 0;
  const pct = dealer && floor ? Math.min(100, (dealer.coins / (floor * 2)) * 100) : 0;
  const exRow = (label, v, cls) => h("div", { class: `ex ${cls} ${v > 0 ? "up" : v < 0 ? "down" : ""}` },
    h("span", null, label), h("b", { "data-exposure": cls }, signed(v)));
  return h("aside", { class: "book" },
    h("h3", null, t("book")),
    h("table", { class: "book-table" },
      h("thead", null, h("tr", null, h("th", null, "#"), h("th", null, ""),
        ...AREAS.map((a) => h("th", { class: `bk-${a}` }, t(a))))),
      h("tbody", null, rows.length ? rows : h("tr", null, h("td", { colspan: 7, class: "bk-empty" }, "—"))),
      h("tfoot", null, h("tr", null, h("td", null, ""), h("td", null, t("total")),
        ...AREAS.map((a) => h("td", { class: `bk-${a}` }, totals[a] ? fmt(totals[a] * unit) : "·")))),
    ),
    h("div", { class: "book-totals" },
      h("div", { class: "bt bt-player" }, h("span", null, t("player")), h("b", null, fmt(pc))),
      h("div", { class: "bt bt-banker" }, h("span", null, t("banker")), h("b", null, fmt(bc)))),
    h("div", { class: "exposure" }, h("h4", null, t("exposure")),
      exRow(t("if_player"), ex.if_player_wins, "player"),
      exRow(t("if_banker"), ex.if_banker_wins, "banker"),
      exRow(t("if_tie"), ex.if_tie, "tie")),
    h("div", { class: "dealer-floor" },
      h("div", { class: "df-line" }, h("span", null, t("dealer_coins")), h("b", null, fmt(dealer?.coins ?? 0))),
      h("div", { class: "df-bar" }, h("i", { style: { width: `${pct}%` } }), h("em", { style: { left: "50%" } })),
      h("div", { class: "df-line small" }, h("span", null, `${t("floor")} ${fmt(floor)}`))),
  );
}
