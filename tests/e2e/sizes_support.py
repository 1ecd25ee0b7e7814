"""The table at the common sizes: what is read from a page, and what must not overlap.

``PARTS`` reads the boxes of a table page's parts in one go; ``problems`` lists, in words and
pixels, every part that is off the first screen or cut by its box, and every pair of parts that
must never overlap and do (docs/testing.md, "The table at every size").
"""

from __future__ import annotations

from typing import Any

SIZES = [
    (1280, 720), (1280, 800), (1366, 768), (1440, 900), (1536, 864), (1920, 1080), (2560, 1440),
    (768, 1024), (1024, 768), (360, 640), (375, 667), (390, 844), (412, 915), (844, 390),
]  # fmt: skip
"""Laptops and desktops, tablets both ways, the phones upright, short and tall, and a phone on
its side: the table holds whole at each of these."""

PARTS = """async (phase) => {
  const frames = (n) => new Promise((done) => {
    const step = (k) => (k ? requestAnimationFrame(() => step(k - 1)) : done());
    step(n);
  });
  if (phase === 'result') {
    // The badges of a held result stay while it is read (on their own they leave after 4.2 s).
    const result = window.baccaratApp.table.screen?.result;
    if (result?.badges) result.badges.until = performance.now() + 600000;
    if (!document.querySelector('.float-net')) window.baccaratApp.table.draw();
  }
  // Laid out for the new size: read once nothing has moved for two frames and the roads,
  // which the page draws again 150 ms after a resize, have been drawn (WATCH_RESIZE).
  const sig = () => [...document.querySelectorAll(
    '.felt, .controls, .roads-panel, .road-strip, .sq-card, .sq-panel, .float-net')]
    .map((e) => { const r = e.getBoundingClientRect(); return `${r.top},${r.left},${r.height},${r.width}`; })
    .join('|') + `|${scrollY}`;
  let last = '', still = 0;
  for (let i = 0; i < 120 && (still < 2 || performance.now() - (window.resizedAt ?? 0) < 200); i++) {
    await frames(1);
    const now = sig();
    still = now === last ? still + 1 : 0;
    last = now;
  }
  const shown = (e) => e.checkVisibility() && e.getBoundingClientRect().width > 0;
  const box = (e, name) => { const r = e.getBoundingClientRect();
    return { name, left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
  const all = (sel, name) => [...document.querySelectorAll(sel)].filter(shown)
    .map((e, i) => box(e, name(e, i)));
  const seat = (e) => `seat ${e.closest('[data-seat]').dataset.seat}`;
  const area = (e) => e.closest('[data-area]').dataset.area;
  const strip = document.querySelector('.road-strip .big-road');
  return {
    vw: innerWidth, vh: innerHeight, scroll: scrollY,
    phase: document.querySelector('.table-screen')?.dataset.phase,
    lang: document.documentElement.lang,
    under: document.querySelector('.topbar').getBoundingClientRect().bottom,
    seats: all('.seat', seat),
    texts: all('.seat .seat-name, .seat .seat-meta, .seat .seat-bets .pill', (e) =>
      `${seat(e)} ${e.classList.contains('seat-name') ? 'name' :
        e.classList.contains('pill') ? 'bet ' + e.className.split('pill-')[1] : 'level and coins'}`),
    hands: all('.hands-row .hand', (e) => `${e.dataset.hand} hand`),
    areas: all('.areas .area', (e) => `area ${area(e)}`),
    labels: all('.area-name, .area-pay, .area-total', (e) => `${e.className} of ${area(e)}`),
    banner: all('.result-banner:not([hidden])', () => 'result banner'),
    bar: all('.controls > *', () => 'bar under the felt'),
    barParts: all('.tray-chips, .tray-stake, .dealer-bar .btn-urge, .dealer-bar .btn-stand, ' +
      '.spectator-bar', (e) => e.className.split(' ').at(-1)),
    road: (strip && shown(strip) ? [strip] : [...document.querySelectorAll('.roads-panel .big-road')])
      .filter(shown).map((e) => box(e, 'Big Road')),
    badges: all('.float-net', (e) => `seat ${e.dataset.seat} badge`),
    card: all('.squeeze:not([hidden]) .sq-card', () => 'squeeze card'),
    panel: all('.squeeze:not([hidden]) .sq-panel', () => 'squeeze countdown and 開牌'),
    stand: all('.controls .btn-stand', () => '離座'),
  };
}"""
"""Each part's box (CSS px of the window) and a name that says which it is."""

BUBBLE_SIZES = [(360, 640), (390, 844), (844, 390), (1280, 800), (1366, 768)]
"""The sizes where every seat's chat bubble is read, at once (``BUBBLES``)."""

BUBBLES = """async (line) => {
  // A line said at every seat at once, through the page's own bubble, its boxes read once
  // their entrances have ended and the bubbles taken away; with every seat's name, level and
  // coins and bets, and the tabs.
  const screen = window.baccaratApp.table.screen;
  (screen.view?.seats ?? []).forEach((occ, seat) => {
    if (occ) screen.bubble({ seat, user_id: occ.user_id, name: occ.name, text: line });
  });
  await Promise.all([...document.querySelectorAll('.chat-bubble')]
    .flatMap((e) => e.getAnimations()).map((a) => a.finished));
  const box = (e, name) => { const r = e.getBoundingClientRect();
    return { name, left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
  const shown = (e) => e.checkVisibility() && e.getBoundingClientRect().width > 0;
  const seat = (e) => `seat ${e.closest('[data-seat]').dataset.seat}`;
  const bubbles = [...document.querySelectorAll('.chat-bubble')];
  const seen = {
    vw: innerWidth, vh: innerHeight,
    bubbles: bubbles.map((e) => box(e, `chat bubble of seat ${e.dataset.seat}`)),
    texts: [...document.querySelectorAll('.seat .seat-name, .seat .seat-meta, .seat .seat-bets .pill')]
      .filter(shown).map((e) => box(e, `${seat(e)} ${e.classList.contains('seat-name') ? 'name' :
        e.classList.contains('pill') ? 'bet' : 'level and coins'}`)),
    tabs: [...document.querySelectorAll('.topbar button, .road-tools button')].filter(shown)
      .map((e) => box(e, `tab ${e.dataset.action ?? e.textContent.trim()}`)),
  };
  for (const e of bubbles) e.remove();
  return seen;
}"""
"""Say ``line`` at every seat and read where the bubbles went (``bubble_problems``)."""

WATCH_RESIZE = "() => addEventListener('resize', () => { window.resizedAt = performance.now(); })"
"""Note when the window last took a size (run once on each page that ``PARTS`` reads)."""

Box = dict[str, Any]


def _meet(a: Box, b: Box) -> str | None:
    """How two boxes overlap ("12x30 px"), or None; a pixel's rounding is not an overlap."""
    w = min(a["right"], b["right"]) - max(a["left"], b["left"])
    h = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return f"{w:.0f}x{h:.0f} px" if w >= 1 and h >= 1 else None


def _within(a: Box, b: Box) -> bool:
    return (
        a["left"] >= b["left"] - 1
        and a["right"] <= b["right"] + 1
        and a["top"] >= b["top"] - 1
        and a["bottom"] <= b["bottom"] + 1
    )


def _off(a: Box, b: Box) -> str:
    """By how much ``a`` leaves ``b``, side by side."""
    sides = {
        "left": b["left"] - a["left"],
        "right": a["right"] - b["right"],
        "top": b["top"] - a["top"],
        "bottom": a["bottom"] - b["bottom"],
    }
    return ", ".join(f"{k} {v:.0f} px" for k, v in sides.items() if v >= 1)


def _clashes(first: list[Box], second: list[Box] | None = None) -> list[str]:
    """Every pair of ``first`` (or of ``first`` x ``second``) that overlaps."""
    pairs = (
        [(a, b) for i, a in enumerate(first) for b in first[i + 1 :]]
        if second is None
        else [(a, b) for a in first for b in second if a is not b]
    )
    return [f"{a['name']} over {b['name']}: {m}" for a, b in pairs if (m := _meet(a, b))]


def must_show(p: dict[str, Any]) -> list[Box]:
    """What a table page shows on its first screen, whatever its size, outside a squeeze: every
    seat's name, level and coins and bets, the hands, the areas and their labels, the bar's
    chips and stake (the dealer's 催促 and 離座, the watcher's line; a phone's other buttons
    may be a scroll away), the Big Road, and at a result the banner and the badges."""
    bar = p["bar"] if p["vw"] > 600 else []
    return [
        *p["texts"], *p["hands"], *p["areas"], *p["labels"], *p["barParts"], *bar, *p["road"],
        *p["banner"], *p["badges"],
    ]  # fmt: skip


def problems(p: dict[str, Any]) -> list[str]:
    """What is wrong with a page's ``PARTS``, each in words and pixels; [] when all is well."""
    if p["card"]:
        return squeeze_problems(p)
    found = [f"scrolled {p['scroll']:.0f} px"] if p["scroll"] else []
    screen = {"left": 0, "top": p["under"], "right": p["vw"], "bottom": p["vh"]}
    found += [f"{b['name']} off the first screen: {_off(b, screen)}" for b in must_show(p)
              if not _within(b, screen)]  # fmt: skip
    if not p["road"]:
        found.append("no Big Road")
    seats = {s["name"]: s for s in p["seats"]}
    for t in p["texts"]:
        own = seats[" ".join(t["name"].split()[:2])]
        if not _within(t, own):
            found.append(f"{t['name']} out of its seat: {_off(t, own)}")
    by_area: dict[str, list[Box]] = {}
    for label in p["labels"]:
        by_area.setdefault(label["name"].split(" of ")[1], []).append(label)
    for labels in by_area.values():
        found += _clashes(labels)
    # The table's parts never cover one another.
    found += _clashes([*p["seats"], *p["hands"], *p["areas"], *p["banner"], *p["bar"], *p["road"]])
    # A badge covers no seat's words, no area or hand, not the banner, and no other badge.
    found += _clashes(p["badges"])
    found += _clashes(p["badges"], [*p["texts"], *p["areas"], *p["hands"], *p["banner"]])
    return found


def card_room(vw: int, vh: int) -> float | None:
    """The least height (px) of the squeeze's card in a window of ``vw`` x ``vh``, or None
    where it is not set (an upright phone, whose card is as wide as the room left lets it):
    on a laptop or a desktop 45% of the window's height, on a tablet 40%, and on a phone on
    its side most of its height (250 of 390 px)."""
    if vh <= 500:
        return 250.0
    if vw >= 1280:
        return 0.45 * vh
    return 0.4 * vh if vw > 600 else None


def squeeze_problems(p: dict[str, Any]) -> list[str]:
    """During a squeeze the page may scroll (the hands go up under the top bar): the card and
    its panel are in the window and cover neither hand nor each other, the panel (its countdown
    and 開牌) is not over 離座, whose taps it would take, and the card is large
    (``card_room``)."""
    window = {"left": 0, "top": p["under"], "right": p["vw"], "bottom": p["vh"]}
    found = [f"{b['name']} out of the window: {_off(b, window)}"
             for b in [*p["hands"], *p["card"], *p["panel"]] if not _within(b, window)]  # fmt: skip
    least = card_room(p["vw"], p["vh"])
    found += [
        f"squeeze card {c['bottom'] - c['top']:.0f} px tall, less than {least:.0f} px"
        for c in p["card"]
        if least is not None and c["bottom"] - c["top"] < least - 1
    ]
    return (
        found
        + _clashes([*p["card"], *p["panel"]], p["hands"])
        + _clashes(p["card"], p["panel"])
        + _clashes(p["panel"], p["stand"])
    )


def bubble_problems(p: dict[str, Any]) -> list[str]:
    """What the chat bubbles of ``BUBBLES`` cover that they must not (any seat's name, level and
    coins or bets, a tab), or where they leave the window, in words and pixels."""
    window = {"left": 0, "top": 0, "right": p["vw"], "bottom": p["vh"]}
    found = [f"{b['name']} out of the window: {_off(b, window)}" for b in p["bubbles"]
             if not _within(b, window)]  # fmt: skip
    if not p["bubbles"]:
        found.append("no chat bubble shown")
    return found + _clashes(p["bubbles"], [*p["texts"], *p["tabs"]])
