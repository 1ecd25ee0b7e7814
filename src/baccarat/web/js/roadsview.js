// Draws the roads as SVG grids: bead plate, Big Road and the three derived roads.

import { s } from "./dom.js";
import { ROWS, BEAD_COLS } from "./roads.js";

const COLOR = { banker: "#d32f2f", player: "#1e63d6", tie: "#1f9d55", red: "#d32f2f", blue: "#1e63d6" };
const C = 20; // one cell of the bead plate and the Big Road, in SVG units

function grid(cols, rows, size) {
  const g = s("g", { class: "road-grid" });
  g.append(s("rect", { x: 0, y: 0, width: cols * size, height: rows * size, fill: "#fbfaf5" }));
  for (let c = 1; c < cols; c++) {
    g.append(s("line", { x1: c * size, y1: 0, x2: c * size, y2: rows * size }));
  }
  for (let r = 1; r < rows; r++) {
    g.append(s("line", { x1: 0, y1: r * size, x2: cols * size, y2: r * size }));
  }
  return g;
}

function frame(cols, rows, size, cls) {
  return s("svg", {
    viewBox: `0 0 ${cols * size} ${rows * size}`,
    class: `road ${cls}`,
    preserveAspectRatio: "xMinYMin meet",
  });
}

/** The bead plate (6 x 13), latest rounds when more than 78 would not fit. */
export function drawBeadPlate(cells) {
  const svg = frame(BEAD_COLS, ROWS, C, "bead-plate");
  svg.append(grid(BEAD_COLS, ROWS, C));
  const shift = Math.max(0, (cells.at(-1)?.col ?? 0) - BEAD_COLS + 1);
  for (const cell of cells) {
    const col = cell.col - shift;
    if (col < 0) continue;
    const cx = col * C + C / 2;
    const cy = cell.row * C + C / 2;
    const g = s("g", { class: `bead bead-${cell.winner}`, "data-winner": cell.winner });
    g.append(s("circle", { cx, cy, r: C * 0.43, fill: COLOR[cell.winner] }));
    if (cell.points !== null && cell.points !== undefined) {
      g.append(s("text", { x: cx, y: cy + 4.2, "text-anchor": "middle", "font-size": 11.5,
        "font-weight": 700, fill: "#fff" }, String(cell.points)));
    }
    if (cell.banker_pair) {
      g.append(s("circle", { cx: cx - C * 0.3, cy: cy - C * 0.3, r: 2.8, fill: COLOR.banker,
        stroke: "#fff", "stroke-width": 1, class: "pair-dot banker-pair-dot" }));
    }
    if (cell.player_pair) {
      g.append(s("circle", { cx: cx + C * 0.3, cy: cy + C * 0.3, r: 2.8, fill: COLOR.player,
        stroke: "#fff", "stroke-width": 1, class: "pair-dot player-pair-dot" }));
    }
    svg.append(g);
  }
  return svg;
}

function visibleShift(cells, preview, cols) {
  const last = Math.max(cells.at(-1)?.col ?? 0, preview?.col ?? 0, ...cells.map((c) => c.col));
  return Math.max(0, last - cols + 2);
}

/** The Big Road: hollow circles, ties as a green slash (with a count past one). */
export function drawBigRoad(cells, cols, preview) {
  const svg = frame(cols, ROWS, C, "big-road");
  svg.append(grid(cols, ROWS, C));
  const shift = visibleShift(cells, preview, cols);
  const items = preview ? [...cells, { ...preview, preview: true }] : cells;
  for (const cell of items) {
    const col = cell.col - shift;
    if (col < 0) continue;
    const cx = col * C + C / 2;
    const cy = cell.row * C + C / 2;
    const g = s("g", { class: cell.preview ? "ask-flash" : "big-cell", "data-color": cell.color });
    if (cell.color) {
      g.append(s("circle", { cx, cy, r: C * 0.36, fill: "none", stroke: COLOR[cell.color],
        "stroke-width": 2.6 }));
    }
    if (cell.banker_pair) g.append(s("circle", { cx: cx - 6.5, cy: cy - 6.5, r: 2.3, fill: COLOR.banker }));
    if (cell.player_pair) g.append(s("circle", { cx: cx + 6.5, cy: cy + 6.5, r: 2.3, fill: COLOR.player }));
    if (cell.ties) {
      g.append(s("line", { x1: cx - 6, y1: cy + 6, x2: cx + 6, y2: cy - 6, stroke: COLOR.tie,
        "stroke-width": 2.4, "stroke-linecap": "round" }));
      if (cell.ties > 1) {
        g.append(s("text", { x: cx, y: cy + 3.6, "text-anchor": "middle", "font-size": 10,
          "font-weight": 800, fill: "#0d5c31" }, String(cell.ties)));
      }
    }
    svg.append(g);
  }
  return svg;
}

/** A derived road: Big Eye Boy (hollow), Small Road (filled) or Cockroach Pig (slashes). */
export function drawDerived(cells, kind, cols, preview) {
  const size = C / 2;
  const svg = frame(cols, ROWS, size, `derived ${kind}`);
  svg.append(grid(cols, ROWS, size));
  const shift = visibleShift(cells, preview, cols);
  const items = preview ? [...cells, { ...preview, preview: true }] : cells;
  for (const cell of items) {
    const col = cell.col - shift;
    if (col < 0) continue;
    const cx = col * size + size / 2;
    const cy = cell.row * size + size / 2;
    const color = COLOR[cell.color];
    let mark;
    if (kind === "big_eye_boy") {
      mark = s("circle", { cx, cy, r: size * 0.33, fill: "none", stroke: color, "stroke-width": 1.6 });
    } else if (kind === "small_road") {
      mark = s("circle", { cx, cy, r: size * 0.36, fill: color });
    } else {
      mark = s("line", { x1: cx - 3.4, y1: cy + 3.4, x2: cx + 3.4, y2: cy - 3.4, stroke: color,
        "stroke-width": 2, "stroke-linecap": "round" });
    }
    svg.append(s("g", { class: cell.preview ? "ask-flash" : "derived-cell", "data-color": cell.color }, mark));
  }
  return svg;
}

/** A small mark for a legend or an ask button (a derived road's next colour). */
export function miniMark(kind, color) {
  const svg = s("svg", { viewBox: "0 0 12 12", class: "mini-mark" });
  const c = COLOR[color] || "#999";
  if (!color) svg.append(s("circle", { cx: 6, cy: 6, r: 3.5, fill: "none", stroke: "#bbb", "stroke-width": 1 }));
  else if (kind === "big_eye_boy") svg.append(s("circle", { cx: 6, cy: 6, r: 4, fill: "none", stroke: c, "stroke-width": 1.8 }));
  else if (kind === "small_road") svg.append(s("circle", { cx: 6, cy: 6, r: 4.3, fill: c }));
  else svg.append(s("line", { x1: 2.5, y1: 9.5, x2: 9.5, y2: 2.5, stroke: c, "stroke-width": 2.2, "stroke-linecap": "round" }));
  return svg;
}
