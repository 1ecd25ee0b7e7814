// Where the squeeze's card and its panel go: in the largest free part of the window below (or
// above) the hands, centred on the table, the panel beside or under the card and off the
// controller's seat; on a phone, off the dealer's bar; in a short, wide window, beside the
// squeezed hand at full height.

const MAX_CARD_H = 600;
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
  // Off the controller's seat, and off 離座: a tap meant for it must not land on the panel.
  const seat = [seatEl, host.querySelector(".controls .btn-stand")]
    .map((el) => el?.getBoundingClientRect()).filter((r) => r?.width);
  const free = regions(host, hands, bar, vh);
  const cx = hands.left + hands.width / 2;
  const size = panelSizes(panel);
  const options = free.flatMap((reg) => spotsIn(reg, size, { cx, vw, seat }));
  const own = host.querySelector(`.hand[data-hand="${hand}"]`)?.getBoundingClientRect();
  if (own && matchMedia(SHORT).matches) options.push(...besideHand(own, size.side, { under, vw, vh, seat }));
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
  const sideH = Math.min(rh, (vw - 2 * (sw + GAP) - 24) * 1.4, MAX_CARD_H);
  const belowH = Math.min(rh - bh - GAP, (vw - 24) * 1.4, MAX_CARD_H);
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

/** Beside the squeezed hand `own`, as tall as the window allows, the panel beyond the card. */
function besideHand(own, [sw, sh], { under, vw, vh, seat }) {
  const options = [];
  const top = under + 4;
  const rh = vh - 6 - top;
  for (const where of ["right", "left"]) {
    const room = where === "right" ? [own.right + GAP, vw - 8] : [8, own.left - GAP];
    const ch = Math.min(rh, (room[1] - room[0] - sw - GAP) * 1.4, MAX_CARD_H);
    if (ch < 150) continue;
    const cw = Math.round(ch / 1.4);
    const card = { left: Math.round(where === "right" ? room[0] : room[1] - cw), top: Math.round(top + (rh - ch) / 2), w: cw, h: Math.round(ch) };
    const px = where === "right" ? card.left + cw + GAP : card.left - GAP - sw;
    for (const py of [card.top + card.h - sh, card.top]) {
      const panel = { left: px, top: py, w: sw, h: sh };
      const clash = seat.some((r) => overlaps(panel, r));
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
