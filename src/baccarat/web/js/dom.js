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

/** Replace all children of el. A control inside it that had the focus has it again (keepFocus). */
export function mount(el, ...children) {
  const had = document.activeElement;
  const key = had && had !== el && el.contains(had) ? focusKey(had, el) : null;
  el.replaceChildren();
  append(el, children);
  if (key) keepFocus(el, had, key);
  return el;
}

// What names a control across redraws: its own data-* key and those of its keyed ancestors.
const KEYS = ["data-action", "data-area", "data-chip", "data-sit", "data-seat", "data-table",
  "data-emote", "data-filter", "data-page", "data-room-tab", "data-tab"];

function focusKey(el, root) {
  const key = (n) => KEYS.find((k) => n.hasAttribute(k));
  const own = key(el);
  if (!own) return null;
  const parts = [`${el.localName}[${own}="${CSS.escape(el.getAttribute(own))}"]`];
  for (let n = el.parentElement; n && n !== root; n = n.parentElement) {
    const k = key(n);
    if (k) parts.unshift(`[${k}="${CSS.escape(n.getAttribute(k))}"]`);
  }
  return parts.join(" ");
}

const STABLE = new WeakSet();

/** Mark `el` as a container whose controls' handlers read nothing of the view they were drawn
 * from (they name their area, chip or action and ask the screen): a redraw may keep the very
 * node that has the focus there (keepFocus). Returns `el`. */
export function stableControls(el) {
  STABLE.add(el);
  return el;
}

// A redraw replaces every control, so the focused one would be lost: focus would fall to the
// page's top. Its twin in the new children gets it. In a container of stable controls the
// focused element itself takes its twin's place, attributes and children instead: the same
// node keeps the focus, so a screen reader does not read it again at each redraw (another
// seat's chip redraws the areas many times a betting).
function keepFocus(root, had, key) {
  const twin = root.querySelector(key);
  if (!twin) return;
  if (!STABLE.has(root)) {
    twin.focus({ preventScroll: true });
    return;
  }
  for (const a of [...had.attributes]) if (!twin.hasAttribute(a.name)) had.removeAttribute(a.name);
  for (const a of [...twin.attributes]) had.setAttribute(a.name, a.value);
  had.replaceChildren(...twin.childNodes);
  twin.replaceWith(had);
  had.focus({ preventScroll: true });
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
