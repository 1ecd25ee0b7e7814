// Tiny DOM helpers: build elements and SVG from plain calls, no framework.

const SVG_NS = "http://www.w3.org/2000/svg";

function apply(el, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.setAttribute("class", v);
    else if (k === "style" && typeof v === "object") Object.assign(el.style, v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else if (k === "html") el.innerHTML = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** An HTML element: h("div", {class: "x"}, child, "text"). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** An SVG element, same call shape as h(). */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** Append children (skipping null, false and undefined) to el. */
export function add(el, ...children) {
  append(el, children);
  return el;
}

const REDUCE = matchMedia("(prefers-reduced-motion: reduce)");

/** Whether the player asked for reduced motion: what would move or roll is shown at its end,
 * and a countdown ring steps once a second instead of sweeping. */
export function reducedMotion() {
  return REDUCE.matches;
}

/** Replace all children of el. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Query one element. */
export const $ = (sel, root = document) => root.querySelector(sel);

/** Group digits: 35000 -> "35,000". */
export function fmt(n) {
  return Number(n ?? 0).toLocaleString("en-US");
}

/** A signed amount: +99, −200 (true minus sign reads better than a hyphen). */
export function signed(n) {
  if (n > 0) return "+" + fmt(n);
  if (n < 0) return "\u2212" + fmt(-n);
  return "0";
}

/** Restart a CSS animation class on an element. */
export function pulse(el, cls) {
  if (!el) return;
  el.classList.remove(cls);
  void el.offsetWidth; // force a reflow so the animation starts again
  el.classList.add(cls);
}
