// The fold of a squeezed card: where a peel of (zone, progress) folds a w x h card.
//
// The card's back is peeled away from a corner or a side as if it rolled over a cylinder of
// radius R lying on the card along the fold line: a point of the back at distance s past the
// fold goes round the cylinder (seen from above at R sin(s/R)) and, once past its top (s > πR),
// lies flat again, mirrored, on the card's own back. A side (看邊) bows up between corners held
// down by the thumbs, so its middle pips show before the corner indices; past two thirds of a
// peel the corners let go. A finger's pull maps to the fold and back (squeezedrag.js), and the
// canvas draws it (peel.js).
//
// Everything here is a pure function of (zone, progress) and the card's size: the controller
// and every onlooker fold the card the same way from the same two numbers.

export const CORNERS = ["tl", "tr", "bl", "br"];
export const SIDES = ["l", "r", "t", "b"];
export const ZONES = [...CORNERS, ...SIDES];

// How far across the card (of its span along the pull) a full peel folds. The finger travels
// about twice the fold's depth, so at 0.48 a corner dragged 77% of the way to the opposite
// corner (a side 68% across) reaches OPEN_AT (squeezedrag.js): a drag across the card opens it.
const REACH = 0.48;
const CURL = 0.075; // the curl's radius, of the card's width
const BANDS = 18; // slices of a bowed side peel

/** Is `zone` a corner or a side one can peel from? */
export function isZone(zone) {
  return ZONES.includes(zone);
}

/**
 * The pull's frame on a w x h card: `n` points out of the card toward the grabbed corner or
 * side, `u` along the fold; `e` is the furthest the card reaches along n, `span` its depth
 * along n, [t0, t1] its extent along u.
 */
export function frame(zone, w, h) {
  const vert = zone.length === 2 ? zone[0] : zone === "t" || zone === "b" ? zone : "";
  const horz = zone.length === 2 ? zone[1] : zone === "l" || zone === "r" ? zone : "";
  let nx = horz === "l" ? -1 : horz === "r" ? 1 : 0;
  let ny = vert === "t" ? -1 : vert === "b" ? 1 : 0;
  const len = Math.hypot(nx, ny) || 1;
  nx /= len;
  ny /= len;
  const pts = [[0, 0], [w, 0], [w, h], [0, h]];
  const along = pts.map(([x, y]) => x * nx + y * ny);
  const across = pts.map(([x, y]) => -x * ny + y * nx);
  const e = Math.max(...along);
  return { n: [nx, ny], u: [-ny, nx], e, span: e - Math.min(...along),
    t0: Math.min(...across), t1: Math.max(...across), side: zone.length === 1 };
}

/** The curl's radius on a card `w` wide. */
export function curlRadius(w) {
  return CURL * w;
}

/** How deep the fold lies (px, at its deepest) for `progress` 0..1. */
export function depthFor(progress, f) {
  return Math.max(0, Math.min(1, progress)) * REACH * f.span;
}

/** The progress for a fold `depth` px deep. */
export function progressFor(depth, f) {
  return Math.max(0, Math.min(1, depth / (REACH * f.span)));
}

/** How far the grabbed edge has moved toward the card's middle when the fold is `d` deep. */
export function tipTravel(d, r) {
  if (d <= Math.PI * r) return d - r * Math.sin(d / r);
  return 2 * d - Math.PI * r;
}

/** The fold's depth that puts the grabbed edge `travel` px in from where it lay. */
export function depthForTravel(travel, r) {
  if (travel <= 0) return 0;
  if (travel >= Math.PI * r) return (travel + Math.PI * r) / 2;
  let lo = 0;
  let hi = Math.PI * r;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (tipTravel(mid, r) < travel) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

function smooth(a, b, x) {
  const k = Math.max(0, Math.min(1, (x - a) / (b - a)));
  return k * k * (3 - 2 * k);
}

/** How much of the side's depth a point `ratio` (0 middle .. 1 corner) along it gets. */
export function bow(ratio, progress) {
  const held = smooth(0.88, 0.3, ratio); // the thumbs hold the corners down
  const letGo = smooth(0.6, 1, progress);
  return held + (1 - held) * letGo;
}

/**
 * The fold along its length, as slices [{ta, tb, da, db}]: between ta and tb (along u) its
 * depth runs straight from da to db. A corner's fold is one straight slice.
 */
export function bands(f, depth, progress) {
  if (!f.side) return [{ ta: f.t0 - 1, tb: f.t1 + 1, da: depth, db: depth }];
  const mid = (f.t0 + f.t1) / 2;
  const half = (f.t1 - f.t0) / 2;
  const step = (f.t1 - f.t0) / BANDS;
  const at = (t) => depth * bow(Math.abs(t - mid) / half, progress);
  const out = [];
  for (let i = 0; i < BANDS; i++) {
    const ta = f.t0 + i * step;
    out.push({ ta, tb: ta + step, da: at(ta), db: at(ta + step) });
  }
  return out;
}

/** The zone a press at (x, y) in a w x h card grabs: a corner, else the nearest side. */
export function zoneAt(x, y, w, h) {
  const u = x / w;
  const v = y / h;
  const horz = u < 0.3 ? "l" : u > 0.7 ? "r" : "";
  const vert = v < 0.22 ? "t" : v > 0.78 ? "b" : "";
  if (horz && vert) return vert + horz;
  if (horz) return horz;
  if (vert) return vert;
  return u < 0.5 ? "l" : "r"; // the middle: the nearer long side
}
