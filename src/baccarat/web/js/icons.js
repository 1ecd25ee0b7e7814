// Small line icons drawn as SVG (no icon fonts or emoji, which not every system has).

import { s } from "./dom.js";

function icon(...children) {
  return s("svg", { viewBox: "0 0 24 24", class: "icon", fill: "none", stroke: "currentColor",
    "stroke-width": 2, "stroke-linecap": "round", "stroke-linejoin": "round", "aria-hidden": "true" }, ...children);
}

/** A speaker, with waves when on and a cross when muted. */
export function soundIcon(muted) {
  const speaker = s("path", { d: "M4 9h4l5-4v14l-5-4H4z", fill: "currentColor" });
  return muted
    ? icon(speaker, s("path", { d: "M17 9l5 6M22 9l-5 6" }))
    : icon(speaker, s("path", { d: "M16.5 8.5a5 5 0 0 1 0 7M19 6a8.5 8.5 0 0 1 0 12" }));
}

/** An eye (watchers). */
export function eyeIcon() {
  return icon(s("path", { d: "M2 12s3.6-6 10-6 10 6 10 6-3.6 6-10 6S2 12 2 12z" }),
    s("circle", { cx: 12, cy: 12, r: 2.6, fill: "currentColor" }));
}
