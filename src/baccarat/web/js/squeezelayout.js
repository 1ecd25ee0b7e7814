// Where the squeeze's card and its panel go: in the largest free part of the window below (or
// above) the hands, centred on the table, the panel beside or under the card and off the
// controller's seat; on a phone, off the dealer's bar; in a short, wide window, beside the
// squeezed hand at full height.

/** The card's most height: 600 px, or half a taller window's (a large desktop's card is as
 * large a part of its screen as a laptop's). */
const maxCardH = () => Math.max(600, Math.round(innerHeight / 2));
/** Narrower than this, a window is a phone's. */
const PHONE_W = 600;
const GAP = 14;
/** A short, wide window (a phone on its side): the card stands beside its hand, full height. */
const SHORT = "(orientation: landscape) and (max-height: 500px)";

/**
 * The best place for the card and the panel, {mode, card, panel} (boxes of css px), or null:
 * nowhere fits, or `scrollBy(dy)` moved the page first (the scroll lays the squeeze out again).
 * `seat` is the controller's seat, `hand` the squeezed hand; the panel's classes are left as
 * they were for the last size measured.
 */
export function squeezeSpot(host, panel, { seat: seatNo, hand, scrollBy }) {
  const vw = innerWidth;
  const vh = innerHeight;
  const hands = host.querySelector(".hands-row")?.getBoundingClientRect();
  if (!hands) return null;
  const bar = host.querySelector(".topbar")?.getBoundingClientRect();
  const under = (bar?.bottom ?? 0) + 4;
  if (hands.top < under - 4 || hands.bottom > vh) {
    // The page was scrolled away from the hands (a phone): bring them back into view, under
    // the top bar (the scroll lays the squeeze out again, if the page could scroll).
    if (scrollBy(hands.top - under)) return null;
  }
  const seatEl = seatNo > 0 ? host.querySelector(`.seat[data-seat="${seatNo}"]`) : null;
  // Off the controller's seat, 離座 and 催促: a tap meant for one must not land on the panel.
  const seat = [seatEl, host.querySelector(".controls .btn-stand"), host.querySelector(".controls .btn-urge")]
    .map((el) => el?.getBoundingClientRect()).filter((r) => r?.width);
  const free = regions(host, hands, bar, vh);
  const cx = hands.left + hands.width / 2;
  const size = panelSizes(panel);
  const options = free.flatMap((reg) => spotsIn(reg, size, { cx, vw, seat }));
  const own = host.querySelector(`.hand[data-hand="${hand}"]`)?.getBoundingClientRect();
  const other = host.querySelector(`.hand[data-hand="${hand === "player" ? "banker" : "player"}"]`)?.getBoundingClientRect();
  if (own && matchMedia(SHORT).matches) options.push(...besideHand(own, other, size.side, { under, vw, vh, seat }));
  else if (own && other && vw >= PHONE_W) {
    const felt = host.querySelector(".felt")?.getBoundingClientRect();
    options.push(...betweenHands(own, other, hands, size.side, { under, vw, vh: Math.min(vh, felt?.bottom ?? vh), seat }));
  }
  if (!options.some((o) => !o.covers) && hands.top - under > 1 && scrollBy(hands.top - under)) {
    // No room but over the dealer's bar, or a short window (a phone on its side): the hands
    // go up under the top bar, for room below (the scroll lays the squeeze out again).
    return null;
  }
  if (!options.length) return null;
  options.sort((a, b) => b.score - a.score);
  return options[0];
}

/** The parts of the window the card may take, each at least 120 px tall. */
function regions(host, hands, bar, vh) {
  // On a phone the dealer's bar (the exposure and 催促, under the felt) stays in sight: the
  // card goes above or below it, never over it. (On a desktop the exposure is in the book.)
  // So does a bettor's 離座 on a phone (on a wider screen the scores of spotsIn keep the
  // panel off it, and the card keeps the room below the hands whole).
  const shows = host.querySelector(".db-exposure")?.getBoundingClientRect().height;
  const stand = innerWidth < PHONE_W ? ".tray .btn-stand" : null;
  const keep = (shows ? host.querySelector(".dealer-bar") : stand && host.querySelector(stand))
    ?.getBoundingClientRect();
  const below = { top: hands.bottom + 6, bottom: vh - 8 };
  const split = keep?.height && keep.bottom > below.top && keep.top < below.bottom
    ? [{ top: below.top, bottom: keep.top - 6 }, { top: keep.bottom + 6, bottom: below.bottom }]
    : [below];
  // (Over the bar only as a last resort, when no scroll makes room elsewhere.)
  return [
    ...split,
    { top: (bar?.bottom ?? 0) + 8, bottom: hands.top - 6 },
    ...(split.length > 1 ? [{ ...below, covers: true }] : []),
  ].filter((r) => r.bottom - r.top > 120);
}

/** The panel's [width, height] beside the card ("side") and under it ("below"). */
function panelSizes(panel) {
  panel.classList.remove("side", "below");
  const size = {};
  for (const mode of ["side", "below"]) {
    panel.classList.toggle("side", mode === "side");
    panel.classList.toggle("below", mode === "below");
    size[mode] = [panel.offsetWidth, panel.offsetHeight];
  }
  return size;
}

/** The card centred on the table in the region `reg`, the panel to its right, left or under it. */
function spotsIn(reg, size, { cx, vw, seat }) {
  const options = [];
  const rh = reg.bottom - reg.top;
  const [sw, sh] = size.side;
  const [bw, bh] = size.below;
  const sideH = Math.min(rh, (vw - 2 * (sw + GAP) - 24) * 1.4, maxCardH());
  const belowH = Math.min(rh - bh - GAP, (vw - 24) * 1.4, maxCardH());
  for (const [mode, ch, where] of [["side", sideH, "right"], ["side", sideH, "left"], ["below", belowH, "under"]]) {
    if (ch < 150) continue;
    const cw = Math.round(ch / 1.4);
    const card = { left: Math.round(cx - cw / 2), top: Math.round(reg.top + (rh - (mode === "below" ? ch + bh + GAP : ch)) / 2), w: cw, h: Math.round(ch) };
    card.left = Math.max(12, Math.min(vw - 12 - cw, card.left));
    let panel;
    if (mode === "side") {
      const px = where === "right" ? card.left + cw + GAP : card.left - GAP - sw;
      panel = { left: px, top: card.top + card.h - sh, w: sw, h: sh };
    } else {
      panel = { left: Math.round(cx - bw / 2), top: card.top + card.h + GAP, w: bw, h: bh };
    }
    const clash = seat.some((r) => overlaps(panel, r));
    options.push({ mode, card, panel, covers: reg.covers, score: card.h - (clash ? 10000 : 0) - (reg.covers ? 20000 : 0) });
  }
  return options;
}

/**
 * Beside the squeezed hand `own`, toward the other hand and short of it (or toward the
 * window's edge), as tall as the window allows: the panel beyond the card, or under the
 * squeezed hand when it keeps off the controller's seat (the card then takes all the room).
 */
function besideHand(own, other, [sw, sh], { under, vw, vh, seat }) {
  const options = [];
  const top = under + 4;
  const rh = vh - 6 - top;
  for (const where of ["right", "left"]) {
    const room = where === "right"
      ? [own.right + GAP, other && other.left >= own.right ? other.left - GAP : vw - 8]
      : [other && other.right <= own.left ? other.right + GAP : 8, own.left - GAP];
    // The panel beyond the card, at its foot or its head; or under the hand, at its side.
    const under = { left: Math.round(Math.max(8, Math.min(vw - 8 - sw, own.left + (own.width - sw) / 2))), top: Math.round(own.bottom + GAP), w: sw, h: sh };
    const fits = under.top + sh <= vh - 6;
    for (const panelBeside of [true, false]) {
      if (!panelBeside && !fits) continue;
      // (a panel under the hand and wider than it leaves the card the room beyond it)
      if (!panelBeside && where === "right") room[0] = Math.max(room[0], under.left + sw + GAP);
      if (!panelBeside && where === "left") room[1] = Math.min(room[1], under.left - GAP);
      const width = room[1] - room[0];
      const ch = Math.min(rh, (width - (panelBeside ? sw + GAP : 0)) * 1.4, maxCardH());
      if (ch < 150) continue;
      const cw = Math.round(ch / 1.4);
      const left = where === "right" ? room[0] : room[1] - cw;
      const card = { left: Math.round(left), top: Math.round(top + (rh - ch) / 2), w: cw, h: Math.round(ch) };
      const px = where === "right" ? card.left + cw + GAP : card.left - GAP - sw;
      const panels = panelBeside
        ? [card.top + card.h - sh, card.top].map((py) => ({ left: px, top: py, w: sw, h: sh }))
        : [under];
      for (const panel of panels) {
        const clash = seat.some((r) => overlaps(panel, r));
        options.push({ mode: "side", card, panel, score: card.h - (clash ? 10000 : 0) });
      }
    }
  }
  return options;
}

/**
 * Between the two hands, as tall as the gap's width allows, centred on their row where the
 * felt lets it (`vh` is the felt's foot: the bar under it, 催促 and 離座, stays clear): the
 * panel beside the card above or below the hands, on neither of them.
 */
function betweenHands(own, other, hands, [sw, sh], { under, vw, vh, seat }) {
  const [l, r] = own.left < other.left ? [own, other] : [other, own];
  const room = [l.right + GAP, r.left - GAP];
  const [top, bottom] = [under + 4, vh - 8];
  const ch = Math.min((room[1] - room[0]) * 1.4, bottom - top, maxCardH());
  if (ch < 150) return [];
  const cw = Math.round(ch / 1.4);
  const middle = hands.top + hands.height / 2;
  const card = { left: Math.round((room[0] + room[1] - cw) / 2), top: Math.round(Math.max(top, Math.min(bottom - ch, middle - ch / 2))), w: cw, h: Math.round(ch) };
  const options = [];
  for (const px of [card.left + cw + GAP, card.left - GAP - sw]) {
    for (const py of [card.top + card.h - sh, card.top]) {
      const panel = { left: px, top: py, w: sw, h: sh };
      if (px < 8 || px + sw > vw - 8 || overlaps(panel, l) || overlaps(panel, r)) continue;
      const clash = seat.some((s) => overlaps(panel, s));
      options.push({ mode: "side", card, panel, score: card.h - (clash ? 10000 : 0) });
    }
  }
  return options;
}

function overlaps(a, b) {
  return a.left < b.right && a.left + a.w > b.left && a.top < b.bottom && a.top + a.h > b.top;
}

/** Put `el` at `box` (the card takes its size too). */
export function place(el, box) {
  el.style.left = `${box.left}px`;
  el.style.top = `${box.top}px`;
  if (el.classList.contains("sq-card")) {
    el.style.width = `${box.w}px`;
    el.style.height = `${box.h}px`;
  }
}
