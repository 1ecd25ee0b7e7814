// Where a chat line floats: by the speaker's seat on the felt, off every seat's name, coins
// and bets and the tabs (the top bar's and the roads'), at every size, and where it can off
// the result's badges, the other bubbles and the hands.

const GAP = 4;

/** The parts a bubble must leave readable (`must`: every seat's name, coins and bets, the
 * tabs) and would rather leave clear (`rather`: the badges, the other bubbles, the hands and
 * the result's banner), as boxes of the felt (its padding box). */
function kept(felt, own) {
  const f = felt.getBoundingClientRect();
  const root = felt.closest(".table-screen") ?? document;
  const boxes = (sel) => [...root.querySelectorAll(sel)].filter((e) => e !== own)
    .map((e) => e.getBoundingClientRect()).filter((r) => r.width && r.height)
    .map((r) => {
      const left = r.left - f.left - felt.clientLeft;
      const top = r.top - f.top - felt.clientTop;
      return { left, top, right: left + r.width, bottom: top + r.height };
    });
  return {
    must: boxes(".seat .seat-name, .seat .seat-meta, .seat .seat-bets .pill, .topbar button, .road-tools button"),
    rather: boxes(".float-net, .chat-bubble, .hands-row .hand, .result-banner:not([hidden])"),
  };
}

/** How much of `avoid` a box of size `b` at (x, y) covers (px²). */
function covered(x, y, b, avoid) {
  return avoid.reduce((sum, a) => sum +
    Math.max(0, Math.min(x + b.width, a.right) - Math.max(x, a.left)) *
    Math.max(0, Math.min(y + b.height, a.bottom) - Math.max(y, a.top)), 0);
}

/** Where a bubble of size `b` leaves the seat `s` upward ("above", dir -1) or downward:
 * beside it, then past each of the seat's neighbours' words in its way (a taller seat's bets). */
function slide(side, x, s, b, must) {
  const dir = side === "above" ? -1 : 1;
  const spots = [];
  let y = dir < 0 ? s.top - b.height - GAP : s.bottom + GAP;
  for (let k = 0; k < 4; k++) {
    spots.push([side, x, y]);
    const hit = must.filter((a) => x < a.right && a.left < x + b.width && y < a.bottom && a.top < y + b.height);
    if (!hit.length) break;
    y = dir < 0 ? Math.min(...hit.map((a) => a.top)) - b.height - GAP : Math.max(...hit.map((a) => a.bottom)) + GAP;
  }
  return spots;
}

/**
 * Place the bubble `el` (already on the felt) by the seat `seatEl`: above it, below it (each
 * centred on it or along either of its edges, past a neighbour's words if need be), to its
 * right or its left, the first of these that stays on the felt and covers nothing of `kept`;
 * else the one on the felt that covers least of it, a seat's words and the tabs first. Sets
 * its `data-side` for its entrance.
 */
export function placeBubble(felt, el, seatEl) {
  const f = felt.getBoundingClientRect();
  const r = seatEl.getBoundingClientRect();
  const s = { left: r.left - f.left - felt.clientLeft, top: r.top - f.top - felt.clientTop };
  s.right = s.left + r.width;
  s.bottom = s.top + r.height;
  const b = { width: el.offsetWidth, height: el.offsetHeight };
  const [w, h] = [felt.clientWidth, felt.clientHeight];
  const { must, rather } = kept(felt, el);
  const inX = (x) => Math.max(GAP, Math.min(w - b.width - GAP, x));
  const xs = [...new Set([(s.left + s.right) / 2 - b.width / 2, s.left, s.right - b.width].map(inX))];
  const cy = (s.top + s.bottom) / 2 - b.height / 2;
  const spots = [
    ...["above", "below"].flatMap((side) => xs.flatMap((x) => slide(side, x, s, b, must))),
    ["right", s.right + 8, cy], ["left", s.left - 8 - b.width, cy],
  ].filter(([, x, y]) => x >= GAP && x + b.width <= w - GAP && y >= GAP && y + b.height <= h - GAP);
  let best = null;
  for (const spot of spots) {
    // (over another bubble or a badge sooner than over a seat's words or a tab)
    const cost = covered(spot[1], spot[2], b, must) * 1000 + covered(spot[1], spot[2], b, rather);
    if (best === null || cost < best.cost) best = { spot, cost };
    if (cost === 0) break;
  }
  const [side, x, y] = best?.spot ?? ["above", xs[0], Math.max(GAP, s.top - b.height - GAP)];
  el.dataset.side = side;
  el.style.left = `${Math.round(x)}px`;
  el.style.top = `${Math.round(y)}px`;
}
