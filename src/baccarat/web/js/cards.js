// Playing cards drawn as SVG: faces with pips, and the table's own back.

import { s } from "./dom.js";
import { cardName } from "./spoken.js";

const SUIT = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const RED = new Set(["H", "D"]);
const RANK_TEXT = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };

// Pip centres on a 100x140 card, per rank (x, y, upside-down?).
const COL = [30, 50, 70];
const PIPS = {
  2: [[1, 28], [1, 112]],
  3: [[1, 28], [1, 70], [1, 112]],
  4: [[0, 28], [2, 28], [0, 112], [2, 112]],
  5: [[0, 28], [2, 28], [1, 70], [0, 112], [2, 112]],
  6: [[0, 28], [2, 28], [0, 70], [2, 70], [0, 112], [2, 112]],
  7: [[0, 28], [2, 28], [1, 49], [0, 70], [2, 70], [0, 112], [2, 112]],
  8: [[0, 28], [2, 28], [1, 49], [0, 70], [2, 70], [1, 91], [0, 112], [2, 112]],
  9: [[0, 28], [2, 28], [0, 56], [2, 56], [1, 70], [0, 84], [2, 84], [0, 112], [2, 112]],
  10: [[0, 28], [2, 28], [1, 42], [0, 56], [2, 56], [0, 84], [2, 84], [1, 98], [0, 112], [2, 112]],
};

/** Split "TH" into {rank: "T", suit: "H"}; null for a face-down card. */
export function parseCode(code) {
  if (!code || typeof code !== "string" || code.length < 2) return null;
  const suit = code.slice(-1).toUpperCase();
  let rank = code.slice(0, -1).toUpperCase();
  if (rank === "10") rank = "T";
  return SUIT[suit] ? { rank, suit } : null;
}

/** A card's baccarat value (A 1, 2-9, ten and faces 0). */
export function cardValue(code) {
  const c = parseCode(code);
  if (!c) return 0;
  if (c.rank === "A") return 1;
  const n = Number(c.rank);
  return Number.isFinite(n) ? n : 0;
}

/** A hand's points: the last digit of its cards' sum. */
export function handPoints(codes) {
  return codes.reduce((sum, c) => sum + cardValue(c), 0) % 10;
}

function corner(label, sym, color, rotate) {
  return s(
    "g",
    { transform: rotate ? "rotate(180 50 70)" : null, fill: color },
    s("text", { x: 11, y: 21, "font-size": label.length > 1 ? 17 : 20, "text-anchor": "middle",
      "font-weight": 700, "font-family": "Georgia, 'Times New Roman', serif" }, label),
    s("text", { x: 11, y: 36, "font-size": 15, "text-anchor": "middle" }, sym),
  );
}

function pips(rank, sym, color) {
  const g = s("g", { fill: color });
  if (rank === "A") {
    g.append(s("text", { x: 50, y: 86, "font-size": 54, "text-anchor": "middle" }, sym));
    return g;
  }
  if (rank === "J" || rank === "Q" || rank === "K") {
    g.append(
      s("rect", { x: 22, y: 24, width: 56, height: 92, rx: 4, fill: "none", stroke: color,
        "stroke-width": 1.5, opacity: 0.7 }),
      s("rect", { x: 25, y: 27, width: 50, height: 86, rx: 3, fill: color, opacity: 0.08 }),
      s("text", { x: 50, y: 78, "font-size": 40, "text-anchor": "middle", "font-weight": 700,
        "font-family": "Georgia, 'Times New Roman', serif" }, rank),
      s("text", { x: 50, y: 104, "font-size": 22, "text-anchor": "middle" }, sym),
      s("text", { x: 50, y: 48, "font-size": 16, "text-anchor": "middle", opacity: 0.6 }, "\u265B"),
    );
    return g;
  }
  const n = rank === "T" ? 10 : Number(rank);
  for (const [col, y] of PIPS[n] || []) {
    const flip = y > 70;
    g.append(
      s("text", { x: COL[col], y: y + 7, "font-size": 21, "text-anchor": "middle",
        transform: flip ? `rotate(180 ${COL[col]} ${y})` : null }, sym),
    );
  }
  return g;
}

/** The face of a card as an SVG element (viewBox 100x140). */
export function cardFace(code) {
  const c = parseCode(code);
  // Named in words in the page's language; data-card keeps the code for anyone comparing faces.
  const svg = s("svg", { viewBox: "0 0 100 140", class: "card-svg", role: "img",
    "aria-label": cardName(code), "data-card": code || "" });
  svg.append(s("rect", { x: 1, y: 1, width: 98, height: 138, rx: 8, fill: "#fffdf7",
    stroke: "#c9c2b0", "stroke-width": 1.2 }));
  if (!c) return svg;
  const color = RED.has(c.suit) ? "#c62828" : "#1b1b1b";
  const label = RANK_TEXT[c.rank] || c.rank;
  svg.append(corner(label, SUIT[c.suit], color, false), corner(label, SUIT[c.suit], color, true),
    pips(c.rank, SUIT[c.suit], color));
  return svg;
}

let backId = 0;
/** The back of a card: deep red with a gold lattice (viewBox 100x140). */
export function cardBack() {
  const id = `cb${backId++}`;
  return s(
    "svg",
    { viewBox: "0 0 100 140", class: "card-svg", role: "img", "aria-label": cardName(null) },
    s("defs", null,
      s("pattern", { id, width: 10, height: 10, patternUnits: "userSpaceOnUse",
        patternTransform: "rotate(45)" },
        s("rect", { width: 10, height: 10, fill: "#8e1b2b" }),
        s("path", { d: "M0 5H10M5 0V10", stroke: "#c9a14a", "stroke-width": 0.8, opacity: 0.55 }))),
    s("rect", { x: 1, y: 1, width: 98, height: 138, rx: 8, fill: "#fffdf7", stroke: "#c9c2b0" }),
    s("rect", { x: 7, y: 7, width: 86, height: 126, rx: 5, fill: `url(#${id})`, stroke: "#c9a14a",
      "stroke-width": 1.5 }),
    s("circle", { cx: 50, cy: 70, r: 15, fill: "#8e1b2b", stroke: "#e2c06b", "stroke-width": 2 }),
    s("text", { x: 50, y: 77, "text-anchor": "middle", "font-size": 19, fill: "#e2c06b",
      "font-weight": 700 }, "\u2666"),
  );
}

/** A blank card face (what a viewer sees under a peel before the card opens). */
export function cardBlank() {
  const svg = cardFace(null);
  svg.append(
    s("text", { x: 50, y: 82, "text-anchor": "middle", "font-size": 34, fill: "#d8d0bc" }, "?"),
  );
  return svg;
}
