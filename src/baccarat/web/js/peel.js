// The curl of a squeezed card, drawn on a canvas over the card's face.
//
// Seen from above: the back up to the fold, the rolled part as a shaded band as wide as the
// curl's radius, the flat flap beyond it, and the face where the back has left it. Where the
// fold lies comes from fold.js; this is a pure function of (zone, progress) and the card's
// size too, so the controller and every onlooker draw the same picture from the same two
// numbers.

import { isZone, frame, curlRadius, depthFor, bands } from "./fold.js";

const STRIPS = 3; // slices of each quarter of the curl
const BIG = 1e4;
// The lifted part's shadow: [dx, dy (css px), alpha] of each fill, the nearest first.
const SHADOW = [[1, 2, 0.16], [2.5, 5, 0.12], [4, 8, 0.09], [6, 11, 0.06]];

// The rolled part's shade: what the light from above leaves on a strip at angle θ round the
// cylinder (the rising quarter darkens toward the rim, the top quarter brightens again).
function shade(theta) {
  const up = Math.abs(Math.cos(theta));
  const dark = 0.42 * (1 - up);
  const gloss = 0.26 * Math.exp(-(((theta - 0.8 * Math.PI) / 0.16) ** 2));
  return { dark, gloss };
}

/**
 * The card's outline (a w x h rectangle with corners rounded at 8% of w, as the back is drawn)
 * as a convex polygon, and the sign that says which side of its edges is inside.
 */
function outline(w, h) {
  const r = w * 0.08;
  const pts = [];
  const steps = 5;
  for (const [cx, cy, a0] of [[w - r, h - r, 0], [r, h - r, 0.5], [r, r, 1], [w - r, r, 1.5]]) {
    for (let i = 0; i <= steps; i++) {
      const a = (a0 + i / (2 * steps)) * Math.PI;
      pts.push([cx + r * Math.cos(a), cy + r * Math.sin(a)]);
    }
  }
  return pts;
}

/** Twice the signed area of a polygon: its orientation. */
function area2(poly) {
  let sum = 0;
  for (let i = 0; i < poly.length; i++) {
    const [x0, y0] = poly[i];
    const [x1, y1] = poly[(i + 1) % poly.length];
    sum += x0 * y1 - x1 * y0;
  }
  return sum;
}

/** The part of `poly` inside the convex polygon `clip` (Sutherland-Hodgman). */
export function clipPolygon(poly, clip) {
  const sign = Math.sign(area2(clip));
  let out = poly;
  for (let i = 0; i < clip.length && out.length; i++) {
    const [ax, ay] = clip[i];
    const [bx, by] = clip[(i + 1) % clip.length];
    const side = (p) => sign * ((bx - ax) * (p[1] - ay) - (by - ay) * (p[0] - ax));
    const input = out;
    out = [];
    for (let j = 0; j < input.length; j++) {
      const p = input[j];
      const q = input[(j + 1) % input.length];
      const sp = side(p);
      const sq = side(q);
      if (sp >= 0) out.push(p);
      if ((sp >= 0) !== (sq >= 0)) {
        const k = sp / (sp - sq);
        out.push([p[0] + (q[0] - p[0]) * k, p[1] + (q[1] - p[1]) * k]);
      }
    }
  }
  return out;
}

/** The box [x0, y0, x1, y1] round a polygon (an empty one for none). */
function boxOf(poly) {
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of poly) {
    box[0] = Math.min(box[0], x);
    box[1] = Math.min(box[1], y);
    box[2] = Math.max(box[2], x);
    box[3] = Math.max(box[3], y);
  }
  return box;
}

function union(a, b) {
  return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])];
}

function grow(box, by) {
  return [box[0] - by, box[1] - by, box[2] + by, box[3] + by];
}

// A box in card px widened to whole device pixels of a canvas whose card sits `m` px in, and
// kept within `limit`.
function snap(box, dpr, m, limit) {
  const out = (v, round) => round((v + m) * dpr) / dpr - m;
  return [Math.max(limit[0], out(box[0], Math.floor)), Math.max(limit[1], out(box[1], Math.floor)),
    Math.min(limit[2], out(box[2], Math.ceil)), Math.min(limit[3], out(box[3], Math.ceil))];
}

function clear(ctx, [x0, y0, x1, y1]) {
  if (x1 > x0 && y1 > y0) ctx.clearRect(x0, y0, x1 - x0, y1 - y0);
}

function trace(ctx, poly) {
  ctx.moveTo(poly[0][0], poly[0][1]);
  for (let i = 1; i < poly.length; i++) ctx.lineTo(poly[i][0], poly[i][1]);
  ctx.closePath();
}

/**
 * One drawing surface for a card's peel: the back and its curl over a transparent hole.
 *
 * A frame is a handful of polygon fills, no clips and no offscreen layer: each piece of the
 * lifted back is a polygon (cut to the card's outline in the card's own coordinates) filled
 * with the back as a pattern under the affine map that lays it where it is seen, then shaded
 * with a plain fill; the lifted part's shadow is a few fills of its silhouette.
 */
export class PeelCanvas {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.back = null;
    this.pattern = null;
    this.w = 0;
    this.h = 0;
  }

  /** Size the surface: a w x h card with a margin m round it (css px) at `dpr`. */
  resize(w, h, m, dpr) {
    this.w = w;
    this.h = h;
    this.m = m;
    this.dpr = dpr;
    this.outline = outline(w, h);
    this.dirty = null; // what the last frame drew, in card px (null: all of it)
    const cw = Math.round((w + 2 * m) * dpr);
    const ch = Math.round((h + 2 * m) * dpr);
    if (this.canvas.width !== cw) this.canvas.width = cw;
    if (this.canvas.height !== ch) this.canvas.height = ch;
    this.canvas.style.width = `${w + 2 * m}px`;
    this.canvas.style.height = `${h + 2 * m}px`;
    this.canvas.style.left = `${-m}px`;
    this.canvas.style.top = `${-m}px`;
    this.setBack(this.back);
  }

  /** The card's back as an image the size of the card (drawn scaled). */
  setBack(image) {
    this.back = image;
    this.pattern = null;
    if (!image || !this.w) return;
    this.pattern = this.ctx.createPattern(image, "no-repeat");
    this.pattern.setTransform(new DOMMatrix([this.w / image.width, 0, 0, this.h / image.height, 0, 0]));
  }

  base(ctx) {
    ctx.setTransform(this.dpr, 0, 0, this.dpr, this.m * this.dpr, this.m * this.dpr);
  }

  /**
   * Draw the peel at `progress` from `zone`. Only the box where this frame or the last one
   * drew the peel is drawn again: the back is copied there as it is, the part lifted off it
   * is cut out, and the curl and its shadow are laid on top (on a phone without a GPU every
   * pixel touched costs, and the canvas's margin and most of the card stay as they were).
   */
  draw(zone, progress) {
    const { ctx, w, h, dpr } = this;
    this.base(ctx);
    const full = [-this.m, -this.m, w + this.m, h + this.m];
    if (!this.pattern || !w || !isZone(zone) || progress <= 0) {
      clear(ctx, this.dirty ?? full);
      if (this.back && w) ctx.drawImage(this.back, 0, 0, w, h);
      this.dirty = [-1, -1, w + 1, h + 1];
      return;
    }
    const f = frame(zone, w, h);
    const depth = depthFor(progress, f);
    const r = curlRadius(w);
    const slices = bands(f, depth, progress);
    const at = (sl, t) => [(sl + f.e) * f.n[0] + t * f.u[0], (sl + f.e) * f.n[1] + t * f.u[1]];

    // The part of the card the back has left: everything on the far side of the (bowed) fold.
    const fold = [at(0, f.t0 - BIG)];
    for (const b of slices) fold.push(at(-b.da, b.ta), at(-b.db, b.tb));
    fold.push(at(0, f.t1 + BIG), at(BIG, f.t1 + BIG), at(BIG, f.t0 - BIG));
    const lifted = clipPolygon(fold, this.outline);

    const pieces = [];
    for (const b of slices) {
      if (Math.max(b.da, b.db) >= 0.5) this.pieces(f, b, r, pieces);
    }
    const silhouette = this.silhouette(pieces);
    const now = grow(union(boxOf(lifted), silhouette.box), 2);
    // What to draw again: this frame's box and the last one's, on whole device pixels.
    const redo = snap(union(now, this.dirty ?? full), dpr, this.m, full);
    clear(ctx, redo);
    const [x0, y0, x1, y1] = [Math.max(0, redo[0]), Math.max(0, redo[1]), Math.min(w, redo[2]), Math.min(h, redo[3])];
    if (x1 > x0 && y1 > y0) {
      const k = this.back.width / w;
      ctx.drawImage(this.back, x0 * k, y0 * k, (x1 - x0) * k, (y1 - y0) * k, x0, y0, x1 - x0, y1 - y0);
    }
    if (lifted.length > 2) {
      ctx.globalCompositeOperation = "destination-out";
      ctx.beginPath();
      trace(ctx, lifted);
      ctx.fillStyle = "#000";
      ctx.fill();
      ctx.globalCompositeOperation = "source-over";
    }
    this.dirty = now;
    if (!pieces.length) return;
    this.shadow(silhouette.path);
    for (const piece of pieces) this.fill(piece);
  }

  // The lifted part as seen from above (one path of all its pieces) and its box, the shadow's
  // reach included.
  silhouette(pieces) {
    const path = new Path2D();
    const box = [Infinity, Infinity, -Infinity, -Infinity];
    const [dx, dy] = SHADOW.at(-1);
    for (const { map: [a, b, c, d, e, g], poly } of pieces) {
      let seen = poly.map(([x, y]) => [a * x + c * y + e, b * x + d * y + g]);
      if (area2(seen) < 0) seen = seen.reverse(); // one orientation: the union has no holes
      seen.forEach(([x, y], i) => {
        if (i) path.lineTo(x, y);
        else path.moveTo(x, y);
        box[0] = Math.min(box[0], x);
        box[1] = Math.min(box[1], y);
        box[2] = Math.max(box[2], x + dx);
        box[3] = Math.max(box[3], y + dy);
      });
      path.closePath();
    }
    return { path, box };
  }

  // The lifted part's shadow: its silhouette filled a few times, each further off and fainter,
  // a soft edge for a few fills (a blurred one costs more than all of the rest of a frame).
  shadow(silhouette) {
    const ctx = this.ctx;
    for (const [dx, dy, alpha] of SHADOW) {
      ctx.setTransform(this.dpr, 0, 0, this.dpr, (this.m + dx) * this.dpr, (this.m + dy) * this.dpr);
      ctx.fillStyle = `rgba(0, 0, 0, ${alpha})`;
      ctx.fill(silhouette);
    }
  }

  // One slice of the fold as pieces: the rising quarter of the curl, its top quarter, then the
  // flat flap, each with the (affine) map that lays it where it is seen from above and the
  // polygon of the back (card coordinates, cut to the card's outline) it shows.
  pieces(f, b, r, out) {
    const d = Math.max(b.da, b.db);
    const quarter = (Math.PI * r) / 2;
    const parts = [];
    const rise = Math.min(d, quarter);
    // Once the roll has turned over (d ≥ πr) its top quarter hides the rising one from above.
    if (d < 2 * quarter) {
      for (let i = 0; i < STRIPS; i++) parts.push([(rise * i) / STRIPS, (rise * (i + 1)) / STRIPS, "curl"]);
    }
    if (d > quarter) {
      const top = Math.min(d, 2 * quarter);
      for (let i = 0; i < STRIPS; i++) {
        parts.push([quarter + ((top - quarter) * i) / STRIPS, quarter + ((top - quarter) * (i + 1)) / STRIPS, "curl"]);
      }
    }
    if (d > 2 * quarter) parts.push([2 * quarter, d + 1, "flat"]);
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
      // The strip of the back between s0 and s1 (a hair wider, against seams).
      const lo = s0 - (kind === "flat" ? 0 : 0.3);
      const hi = s1 + 0.3;
      const poly = clipPolygon([q(lo, b.ta - pad), q(hi, b.ta - pad), q(hi, b.tb + pad), q(lo, b.tb + pad)],
        this.outline);
      if (poly.length < 3) continue;
      const map = [1 + m * nx * ax, m * ny * ax, m * nx * ay, 1 + m * ny * ay, off * nx, off * ny];
      let tint = null;
      if (kind === "curl") {
        const { dark, gloss } = shade((s0 + s1) / 2 / r);
        tint = [];
        if (dark > 0.01) tint.push(`rgba(20, 10, 0, ${dark.toFixed(3)})`);
        if (gloss > 0.01) tint.push(`rgba(255, 250, 235, ${gloss.toFixed(3)})`);
      } else {
        // The flap lies a little above the card, in the light: a sheen fading from the roll.
        const mid = (b.ta + b.tb) / 2;
        tint = [[...q(2 * quarter, mid), ...q(Math.max(d, 2 * quarter + 1), mid)]];
      }
      out.push({ map, poly, tint });
    }
  }

  fill({ map, poly, tint }) {
    const ctx = this.ctx;
    this.base(ctx);
    ctx.transform(...map);
    ctx.beginPath();
    trace(ctx, poly);
    ctx.fillStyle = this.pattern;
    ctx.fill();
    for (const style of tint) {
      if (typeof style === "string") {
        ctx.fillStyle = style;
      } else {
        const grad = ctx.createLinearGradient(...style);
        grad.addColorStop(0, "rgba(255, 250, 235, 0.16)");
        grad.addColorStop(1, "rgba(0, 0, 0, 0.12)");
        ctx.fillStyle = grad;
      }
      ctx.fill();
    }
  }
}
