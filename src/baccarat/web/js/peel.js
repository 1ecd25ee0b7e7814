// The curl of a squeezed card, drawn on a canvas over the card's face.
//
// The card's back is peeled away from a corner or a side as if it rolled over a cylinder of
// radius R lying on the card along the fold line: a point of the back at distance s past the
// fold goes round the cylinder (seen from above at R sin(s/R)) and, once past its top (s > πR),
// lies flat again, mirrored, on the card's own back. Seen from above: the back up to the fold,
// the rolled part as a shaded band as wide as R, the flat flap beyond it, and the face where
// the back has left it. A side (看邊) bows up between corners held down by the thumbs, so its
// middle pips show before the corner indices; past two thirds of a peel the corners let go.
//
// Everything here is a pure function of (zone, progress) and the card's size: the controller
// and every onlooker draw the same picture from the same two numbers.

export const CORNERS = ["tl", "tr", "bl", "br"];
export const SIDES = ["l", "r", "t", "b"];
export const ZONES = [...CORNERS, ...SIDES];

// How far across the card (of its span along the pull) a full peel folds. The finger travels
// about twice the fold's depth, so at 0.48 a corner dragged 77% of the way to the opposite
// corner (a side 68% across) reaches OPEN_AT: a drag across the card opens it.
const REACH = 0.48;
const CURL = 0.075; // the curl's radius, of the card's width
const BANDS = 28; // slices of a bowed side peel
const STRIPS = 5; // slices of each quarter of the curl
const BIG = 1e4;

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

// The rolled part's shade: what the light from above leaves on a strip at angle θ round the
// cylinder (the rising quarter darkens toward the rim, the top quarter brightens again).
function shade(theta) {
  const up = Math.abs(Math.cos(theta));
  const dark = 0.42 * (1 - up);
  const gloss = 0.26 * Math.exp(-(((theta - 0.8 * Math.PI) / 0.16) ** 2));
  return { dark, gloss };
}

/** One drawing surface for a card's peel: the back and its curl over a transparent hole. */
export class PeelCanvas {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.layer = document.createElement("canvas");
    this.lctx = this.layer.getContext("2d");
    this.back = null;
    this.w = 0;
    this.h = 0;
  }

  /** Size the surface: a w x h card with a margin m round it (css px) at `dpr`. */
  resize(w, h, m, dpr) {
    this.w = w;
    this.h = h;
    this.m = m;
    this.dpr = dpr;
    const cw = Math.round((w + 2 * m) * dpr);
    const ch = Math.round((h + 2 * m) * dpr);
    for (const c of [this.canvas, this.layer]) {
      if (c.width !== cw) c.width = cw;
      if (c.height !== ch) c.height = ch;
    }
    this.canvas.style.width = `${w + 2 * m}px`;
    this.canvas.style.height = `${h + 2 * m}px`;
    this.canvas.style.left = `${-m}px`;
    this.canvas.style.top = `${-m}px`;
  }

  /** The card's back as an image the size of the card (drawn scaled). */
  setBack(image) {
    this.back = image;
  }

  base(ctx) {
    ctx.setTransform(this.dpr, 0, 0, this.dpr, this.m * this.dpr, this.m * this.dpr);
  }

  /** Draw the peel at `progress` from `zone`. */
  draw(zone, progress) {
    const { ctx, lctx, w, h } = this;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    if (!this.back || !w) return;
    this.base(ctx);
    if (!isZone(zone) || progress <= 0) {
      ctx.drawImage(this.back, 0, 0, w, h);
      return;
    }
    const f = frame(zone, w, h);
    const depth = depthFor(progress, f);
    const r = curlRadius(w);
    const slices = bands(f, depth, progress);
    const at = (sl, t) => [(sl + f.e) * f.n[0] + t * f.u[0], (sl + f.e) * f.n[1] + t * f.u[1]];

    // The back that still lies flat: everything on the near side of the (bowed) fold.
    ctx.save();
    ctx.beginPath();
    const path = [at(0, f.t0 - BIG)];
    for (const b of slices) path.push(at(-b.da, b.ta), at(-b.db, b.tb));
    path.push(at(0, f.t1 + BIG), at(-BIG, f.t1 + BIG), at(-BIG, f.t0 - BIG));
    path.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.closePath();
    ctx.clip();
    ctx.drawImage(this.back, 0, 0, w, h);
    ctx.restore();

    // The lifted part, on its own layer so that it casts one soft shadow.
    lctx.setTransform(1, 0, 0, 1, 0, 0);
    lctx.clearRect(0, 0, this.layer.width, this.layer.height);
    for (const b of slices) {
      if (Math.max(b.da, b.db) < 0.5) continue;
      this.band(f, b, r);
    }
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.shadowColor = "rgba(0, 0, 0, 0.55)";
    ctx.shadowBlur = 14 * this.dpr;
    ctx.shadowOffsetX = 3 * this.dpr;
    ctx.shadowOffsetY = 6 * this.dpr;
    ctx.drawImage(this.layer, 0, 0);
    ctx.restore();
  }

  // One slice of the fold: the rising quarter of the curl, its top quarter, then the flat flap,
  // each drawn from the back with the (affine) map that lays it where it is seen from above.
  band(f, b, r) {
    const d = Math.max(b.da, b.db);
    const quarter = (Math.PI * r) / 2;
    const parts = [];
    const rise = Math.min(d, quarter);
    for (let i = 0; i < STRIPS; i++) parts.push([(rise * i) / STRIPS, (rise * (i + 1)) / STRIPS, "curl"]);
    if (d > quarter) {
      const top = Math.min(d, 2 * quarter);
      for (let i = 0; i < STRIPS; i++) {
        parts.push([quarter + ((top - quarter) * i) / STRIPS, quarter + ((top - quarter) * (i + 1)) / STRIPS, "curl"]);
      }
    }
    if (d > 2 * quarter) parts.push([2 * quarter, d + 1, "flat"]);
    const { lctx: ctx, w, h } = this;
    const [nx, ny] = f.n;
    const [ux, uy] = f.u;
    // s, how far past the fold a point lies, is affine in p: s = α·p + β.
    const g = (b.db - b.da) / (b.tb - b.ta);
    const ax = nx + g * ux;
    const ay = ny + g * uy;
    const beta = -f.e + b.da - g * b.ta;
    const dAt = (t) => b.da + g * (t - b.ta);
    const seen = (s) => (s <= Math.PI * r ? r * Math.sin(s / r) : Math.PI * r - s);
    const pad = f.side ? 0.6 : 0;
    // The point at distance s past the fold, at t along it.
    const q = (s, t) => [(s - dAt(t) + f.e) * nx + t * ux, (s - dAt(t) + f.e) * ny + t * uy];
    for (const [s0, s1, kind] of parts) {
      if (s1 - s0 < 0.05) continue;
      const a = seen(s0);
      const k = kind === "flat" ? -1 : (seen(s1) - a) / (s1 - s0);
      // p -> p + ((k - 1) s(p) + a - k s0) n
      const m = k - 1;
      const off = m * beta + a - k * s0;
      ctx.save();
      this.base(ctx);
      ctx.transform(1 + m * nx * ax, m * ny * ax, m * nx * ay, 1 + m * ny * ay, off * nx, off * ny);
      ctx.beginPath();
      ctx.roundRect(0, 0, w, h, w * 0.08);
      ctx.clip();
      // The strip of the back between s0 and s1 (a hair wider, against seams).
      const lo = s0 - (kind === "flat" ? 0 : 0.3);
      const hi = s1 + 0.3;
      ctx.beginPath();
      [q(lo, b.ta - pad), q(hi, b.ta - pad), q(hi, b.tb + pad), q(lo, b.tb + pad)]
        .forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
      ctx.closePath();
      ctx.clip();
      ctx.drawImage(this.back, 0, 0, w, h);
      if (kind === "curl") {
        const { dark, gloss } = shade((s0 + s1) / 2 / r);
        if (dark > 0.01) {
          ctx.fillStyle = `rgba(20, 10, 0, ${dark.toFixed(3)})`;
          ctx.fillRect(-BIG, -BIG, 2 * BIG, 2 * BIG);
        }
        if (gloss > 0.01) {
          ctx.fillStyle = `rgba(255, 250, 235, ${gloss.toFixed(3)})`;
          ctx.fillRect(-BIG, -BIG, 2 * BIG, 2 * BIG);
        }
      } else {
        // The flap lies a little above the card, in the light: a sheen fading from the roll.
        const mid = (b.ta + b.tb) / 2;
        const grad = ctx.createLinearGradient(...q(2 * quarter, mid), ...q(Math.max(d, 2 * quarter + 1), mid));
        grad.addColorStop(0, "rgba(255, 250, 235, 0.16)");
        grad.addColorStop(1, "rgba(0, 0, 0, 0.12)");
        ctx.fillStyle = grad;
        ctx.fillRect(-BIG, -BIG, 2 * BIG, 2 * BIG);
      }
      ctx.restore();
    }
  }
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
