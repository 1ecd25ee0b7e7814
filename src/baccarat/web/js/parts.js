// Pieces of the table drawn from its view: seats, areas, hands, the book, the countdown ring.

import { h, s, add, fmt, signed, reducedMotion } from "./dom.js";
import { t } from "./i18n.js";
import { say } from "./spoken.js";
import { cardFace, cardBack } from "./cards.js";
import { chipSVG, chipStack } from "./chips.js";
import { AREAS, PAYOUT, occupant, cards, points, exposure, bookedCoins, bookRows } from "./selectors.js";

const SEAT_HUE = [42, 0, 28, 55, 150, 190, 260, 320];

function avatar(name, seat) {
  const hue = SEAT_HUE[seat % SEAT_HUE.length];
  return h("div", { class: "avatar", translate: "no", "aria-hidden": "true", style: { "--hue": hue } }, (name || "?").slice(0, 1).toUpperCase());
}

/** One seat box (bettor seats 1-7 and the dealer seat 0). */
export function seatBox(view, seat, { onSit, canSit }) {
  const occ = occupant(view, seat);
  const unit = view.chip_unit;
  const mine = view.me.seat === seat && occ;
  const cls = ["seat", seat === 0 ? "seat-dealer" : "seat-bettor", occ ? "taken" : "free",
    mine ? "me" : "", occ && !occ.connected ? "away" : ""].join(" ");
  const box = h("div", { class: cls, "data-seat": seat });
  if (!occ) {
    add(box,
      h("div", { class: "seat-no" }, seat === 0 ? t("dealer") : String(seat)),
      h("div", { class: "seat-empty" }, seat === 0 ? t("empty_dealer") : t("empty_seat")),
      canSit ? h("button", { class: "btn btn-sit", "data-sit": seat, onclick: () => onSit(seat),
        "aria-label": seat === 0 ? t("sit_dealer") : `${t("sit")} · ${t("seat_n", { n: seat })}` },
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
        h("span", { class: "pill-area" }, t(a)), ` ${fmt(bets[a] * unit)}`))),
    occ.waiting_next_round ? h("div", { class: "seat-wait" }, t("waiting_next")) : null,
    occ.leaving ? h("div", { class: "seat-leaving" }, t("leaving_after_round")) : null,
  );
  return box;
}

/** One bet area with its payout, every seat's chips on it and the viewer's own stack. */
export function areaBox(view, area, { onTap, mySlip, left }) {
  const unit = view.chip_unit;
  let total = 0;
  const markers = [];
  for (let seat = 1; seat <= 7; seat++) {
    const n = occupant(view, seat)?.bets?.[area] ?? 0;
    if (!n) continue;
    total += n;
    if (seat !== view.me.seat) {
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
    // Its name says the viewer's own stake too, so that a bet placed by keyboard is heard.
    "aria-label": `${t(area)} 1:${PAYOUT[area]}${mine ? say("sep") + say("your_bet", { area: t(area), coins: fmt(mine * unit) }) : ""}`,
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
export function handBox(view, name, { winner, newCards, flipped }) {
  const pts = points(view, name);
  const shown = cards(view, name).map((c, i) => {
    const show = c.card && !c.face_down;
    const el = h("div", { class: `card${show ? "" : " down"}${i === 2 ? " third" : ""}`, "data-i": i },
      show ? cardFace(c.card) : cardBack());
    if (newCards?.has(i)) el.classList.add("deal-in");
    if (flipped?.has(i)) el.classList.add("flip-in");
    return el;
  });
  return h("div", { class: `hand hand-${name}${winner === name ? " win" : ""}`, "data-hand": name },
    h("div", { class: "hand-head" },
      h("span", { class: "hand-name" }, t(name)),
      h("span", { class: "hand-points", "data-points": pts ?? "" }, pts === null ? "" : String(pts))),
    h("div", { class: "hand-cards" }, shown.length ? shown : h("div", { class: "card slot" })),
  );
}

/** The countdown ring: an SVG circle whose stroke shrinks with the time left. */
export function ring(cls) {
  const r = 26;
  const c = 2 * Math.PI * r;
  const arc = s("circle", { cx: 32, cy: 32, r, class: "ring-arc", "stroke-dasharray": c, "stroke-dashoffset": 0 });
  const txt = s("text", { x: 32, y: 39, "text-anchor": "middle", class: "ring-text" }, "");
  // A picture of the time: its seconds would be read out as they change (aria-hidden).
  const svg = s("svg", { viewBox: "0 0 64 64", class: `ring ${cls || ""}`, "aria-hidden": "true" },
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
      // Without motion the arc steps with the number: a page then draws once a second, not ten times.
      const shown = reducedMotion() ? Math.ceil(left) : left;
      const frac = total > 0 ? Math.max(0, Math.min(1, shown / total)) : 0;
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

/** The exposure as three short cells (the dealer's bar on a phone, where the book is below). */
export function exposureCells(view) {
  const ex = exposure(view);
  const cell = (label, v, cls) => h("div", { class: `dx dx-${cls} ${v > 0 ? "up" : v < 0 ? "down" : ""}` },
    h("span", null, label), h("b", { "data-exposure": cls }, signed(v)));
  return h("div", { class: "db-exposure", "aria-label": t("exposure") },
    cell(t("if_player"), ex.if_player_wins, "player"),
    cell(t("if_banker"), ex.if_banker_wins, "banker"),
    cell(t("if_tie"), ex.if_tie, "tie"));
}

/** The dealer's book: bets by seat, totals, exposure and the dealer's coins vs the floor. */
export function bookPanel(view) {
  const unit = view.chip_unit;
  const { rows, totals } = bookRows(view);
  const booked = bookedCoins(view);
  const ex = exposure(view);
  const dealer = occupant(view, 0);
  const floor = view.limits.dealer_floor ?? 0;
  const pct = dealer && floor ? Math.min(100, (dealer.coins / (floor * 2)) * 100) : 0;
  const exRow = (label, v, cls) => h("div", { class: `ex ${cls} ${v > 0 ? "up" : v < 0 ? "down" : ""}` },
    h("span", null, label), h("b", { "data-exposure": cls }, signed(v)));
  return h("aside", { class: "book", "aria-label": t("book") },
    h("h2", null, t("book")),
    h("table", { class: "book-table" },
      h("thead", null, h("tr", null, h("th", null, "#"), h("th", null, h("span", { class: "sr-only" }, say("name"))),
        ...AREAS.map((a) => h("th", { class: `bk-${a}` }, t(a))))),
      h("tbody", null, rows.length ? rows.map(({ seat, name, bets }) => h("tr", { class: name === null ? "gone" : "" },
        h("td", { class: "bk-seat" }, String(seat)),
        h("td", { class: "bk-name", translate: "no" }, name ?? "—"),
        ...AREAS.map((a) => h("td", { class: `bk-${a}` }, bets[a] ? fmt(bets[a] * unit) : "·")),
      )) : h("tr", null, h("td", { colspan: 7, class: "bk-empty" }, "—"))),
      h("tfoot", null, h("tr", null, h("td", null, ""), h("td", null, t("total")),
        ...AREAS.map((a) => h("td", { class: `bk-${a}` }, totals[a] ? fmt(totals[a] * unit) : "·")))),
    ),
    h("div", { class: "book-totals" },
      h("div", { class: "bt bt-player" }, h("span", null, t("player")), h("b", null, fmt(booked.player))),
      h("div", { class: "bt bt-banker" }, h("span", null, t("banker")), h("b", null, fmt(booked.banker)))),
    h("div", { class: "exposure" }, h("h3", null, t("exposure")),
      exRow(t("if_player"), ex.if_player_wins, "player"),
      exRow(t("if_banker"), ex.if_banker_wins, "banker"),
      exRow(t("if_tie"), ex.if_tie, "tie")),
    h("div", { class: "dealer-floor" },
      h("div", { class: "df-line" }, h("span", null, t("dealer_coins")), h("b", null, fmt(dealer?.coins ?? 0))),
      h("div", { class: "df-bar" }, h("i", { style: { width: `${pct}%` } }), h("em", { style: { left: "50%" } })),
      h("div", { class: "df-line small" }, h("span", null, `${t("floor")} ${fmt(floor)}`))),
  );
}
