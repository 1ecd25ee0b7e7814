"""What one frame of the squeeze costs in real Chromium, and the frame rate of a peel.

    python bench/bench_squeeze_frame.py [--throttle 1,4] [--json]

Serves the browser client's files on 127.0.0.1 and opens a page in Debian's Chromium that
holds only the squeeze (``web/js/squeeze.js`` on a bare table host). For each CPU throttling
rate (``Emulation.setCPUThrottlingRate``: 4 is a mid-range phone) it measures:

- **draw**: the time of one ``PeelCanvas.draw`` (the peel's whole picture) for a corner and a
  long side at progress 0.05 to 0.95, with the canvas flushed (a one-pixel read) so that the
  rasterisation is inside the measure; median and p95 in ms, on a desktop card (420x588 at
  device pixel ratio 1) and a phone card (270x378 at ratio 2);
- **frames/s** of the page while a finger peels the card (touch moves every 16 ms for 3 s,
  as Chromium's input delivers them) against the same page idle for 3 s, and their ratio.

Prints a Markdown table (or JSON); the figures go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import statistics
import threading
from importlib import resources
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

PAGE = """<!doctype html><html lang="zh-Hant"><head><meta charset="utf-8">
<link rel="stylesheet" href="/css/base.css"><link rel="stylesheet" href="/css/table.css">
</head><body><div class="table-screen" style="position:fixed;inset:0">
<div class="topbar" style="height:48px"></div>
<div class="hands-row" style="height:130px;margin:0 auto;width:60%"></div></div></body></html>"""

DRAW = """async ([w, h, dpr]) => {
  const { PeelCanvas } = await import('/js/peel.js');
  const { cardBack } = await import('/js/cards.js');
  const canvas = document.createElement('canvas');
  document.body.append(canvas);
  const peel = new PeelCanvas(canvas);
  peel.resize(w, h, Math.round(w * 0.45), dpr);
  const svg = cardBack();
  svg.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  svg.setAttribute('width', String(w * dpr));
  svg.setAttribute('height', String(h * dpr));
  const img = new Image();
  img.src = 'data:image/svg+xml;charset=utf-8,' +
    encodeURIComponent(new XMLSerializer().serializeToString(svg));
  await img.decode();
  const back = document.createElement('canvas');
  back.width = w * dpr; back.height = h * dpr;
  back.getContext('2d').drawImage(img, 0, 0, back.width, back.height);
  peel.setBack(back);
  const out = {};
  for (const zone of ['br', 'l']) {
    const times = [];
    for (let round = 0; round < 4; round++) {
      for (let i = 1; i <= 19; i++) {
        const t0 = performance.now();
        peel.draw(zone, i / 20);
        canvas.getContext('2d').getImageData(0, 0, 1, 1);  // rasterise now, inside the measure
        times.push(performance.now() - t0);
      }
    }
    out[zone] = times;
  }
  canvas.remove();
  return out;
}"""

SHOW = """async () => {
  const { SqueezeView } = await import('/js/squeeze.js');
  const host = document.querySelector('.table-screen');
  const view = new SqueezeView({ onProgress: () => {}, onOpen: () => {}, rate: () => 10 });
  host.append(view.el);
  view.attach(host);
  view.show({ hand: 'player', position: 1, corner: 'br', progress: 0, controllerName: 'bench' },
            { mine: true, code: '7H', handLabel: '閒', seat: -1 });
  await new Promise((r) => setTimeout(r, 500));  // the back's bitmap is made
  window.frames_ = 0;
  const count = () => { window.frames_ += 1; requestAnimationFrame(count); };
  requestAnimationFrame(count);
  const r = view.card.getBoundingClientRect();
  return [r.left, r.top, r.width, r.height];
}"""


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(Quiet, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def stats(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "median": round(statistics.median(ordered), 2),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
    }


def frames_per_second(page: Any, cdp: Any, seconds: float, peel: bool) -> float:
    x, y, w, h = page.evaluate(SHOW)
    start = page.evaluate("window.frames_")
    t0 = page.evaluate("performance.now()")
    if peel:
        # A finger from the bottom-right corner toward the middle and back, a move a frame.
        steps = int(seconds * 1000 / 16)
        x0, y0 = x + w - 6, y + h - 6
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]}
        )
        for i in range(steps):
            k = (i % 120) / 120
            k = 2 * k if k < 0.5 else 2 - 2 * k
            point = {"x": x0 - k * w * 0.6, "y": y0 - k * h * 0.5}
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
            page.wait_for_timeout(16)
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    else:
        page.wait_for_timeout(seconds * 1000)
    elapsed = page.evaluate("performance.now()") - t0
    frames = page.evaluate("window.frames_") - start
    return round(frames / (elapsed / 1000), 1)


def measure(base: str, throttle: float) -> dict[str, Any]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        out: dict[str, Any] = {"throttle": throttle}
        for name, viewport, card, dpr, touch in (
            ("desktop", {"width": 1440, "height": 900}, (420, 588), 1, False),
            ("phone", {"width": 390, "height": 844}, (270, 378), 2, True),
        ):
            ctx = browser.new_context(
                viewport=viewport, device_scale_factor=dpr, has_touch=touch, is_mobile=touch
            )
            page = ctx.new_page()
            page.route("**/bench.html", lambda r: r.fulfill(body=PAGE, content_type="text/html"))
            page.goto(base + "/bench.html")
            cdp = ctx.new_cdp_session(page)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
            drawn = page.evaluate(DRAW, [card[0], card[1], dpr])
            out[f"{name}_corner"] = stats(drawn["br"])
            out[f"{name}_side"] = stats(drawn["l"])
            if touch:
                page.reload()
                idle = frames_per_second(page, cdp, 3.0, peel=False)
                page.reload()
                peeling = frames_per_second(page, cdp, 3.0, peel=True)
                out["fps_idle"] = idle
                out["fps_peel"] = peeling
                out["fps_ratio"] = round(peeling / idle, 2) if idle else 0.0
            ctx.close()
        browser.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--throttle", default="1,4", help="CPU throttling rates, comma-separated")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    root = Path(str(resources.files("baccarat").joinpath("web")))
    httpd, base = serve(root)
    try:
        rows = [measure(base, float(t)) for t in args.throttle.split(",")]
    finally:
        httpd.shutdown()
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(
        "| CPU | desktop corner | desktop side | phone corner | phone side | fps idle | fps peel | ratio |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        cell = functools.partial(lambda row, k: f"{row[k]['median']} / {row[k]['p95']}", r)
        print(
            f"| {r['throttle']:g}x | {cell('desktop_corner')} | {cell('desktop_side')} | "
            f"{cell('phone_corner')} | {cell('phone_side')} | {r['fps_idle']} | "
            f"{r['fps_peel']} | {r['fps_ratio']} |"
        )


if __name__ == "__main__":
    main()
