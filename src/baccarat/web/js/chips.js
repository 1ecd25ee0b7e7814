// Casino chips drawn as SVG, one colour per denomination.

import { s } from "./dom.js";

export const CHIPS = [1, 2, 3, 5, 10];

const COLORS = {
  1: ["#eceff1", "#1e88e5", "#263238"],
  2: ["#d32f2f", "#fff3e0", "#ffffff"],
  3: ["#2e7d32", "#fff8e1", "#ffffff"],
  5: ["#1565c0", "#ffe082", "#ffffff"],
  10: ["#212121", "#e2c06b", "#e2c06b"],
};

/** A chip of `value` chips as an SVG element (viewBox 60x60). */
export function chipSVG(value, label) {
  const [base, stripe, ink] = COLORS[value] || ["#6d4c41", "#ffe0b2", "#ffffff"];
  return s(
    "svg",
    { viewBox: "0 0 60 60", class: "chip-svg", "aria-hidden": "true" },
    s("circle", { cx: 30, cy: 30, r: 28, fill: base, stroke: "rgba(0,0,0,.35)", "stroke-width": 1.5 }),
    s("circle", { cx: 30, cy: 30, r: 24, fill: "none", stroke: stripe, "stroke-width": 7,
      "stroke-dasharray": "7.5 5.07" }),
    s("circle", { cx: 30, cy: 30, r: 17, fill: base, stroke: stripe, "stroke-width": 1.2,
      "stroke-dasharray": "2 2" }),
    s("text", { x: 30, y: 36.5, "text-anchor": "middle", "font-size": label && label.length > 2 ? 13 : 18,
      "font-weight": 800, fill: ink, "font-family": "system-ui, sans-serif" }, label ?? String(value)),
  );
}

/** Split a number of chips into denominations, largest first (for drawing stacks). */
export function breakChips(n) {
  const out = [];
  let left = n;
  for (const c of [...CHIPS].reverse()) {
    while (left >= c) {
      out.push(c);
      left -= c;
    }
  }
  return out;
}

/** A small stack of chips worth `n` chips; `label` is written on the top chip (none when ""). */
export function chipStack(n, label = String(n)) {
  const parts = breakChips(n).slice(0, 6);
  const g = s("svg", { viewBox: `0 0 60 ${60 + (parts.length - 1) * 6}`, class: "chip-stack" });
  parts.reverse().forEach((c, i) => {
    const y = (parts.length - 1 - i) * 6;
    const chip = chipSVG(c, i === parts.length - 1 ? label : "");
    chip.setAttribute("y", String(y));
    chip.setAttribute("width", "60");
    chip.setAttribute("height", "60");
    g.append(chip);
  });
  return g;
}
