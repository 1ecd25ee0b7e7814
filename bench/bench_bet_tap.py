"""How soon a tap on a chip and then on an area shows its stake, on a throttled phone page.

    python bench/bench_bet_tap.py [--taps 20] [--throttle 1,4] [--json]

Starts ``baccarat serve`` (``--test-hooks``, a fresh SQLite file) on 127.0.0.1 and opens two
pages in Debian's Chromium: a dealer on a desktop and a bettor on a 390x844 phone (touch), the
table held in betting. The bettor's page is slowed with the DevTools protocol's
``Emulation.setCPUThrottlingRate`` (4 is a mid-range phone). Each tap picks a chip and then an
area (Player, a chip of 1 or 2 in turn; the bets are cleared every four taps), and the page
records, from the chip's tap:

- **shown**: the area's stake changed in the page (the chip drawn before any answer);
- **painted**: the first frame after that (what the player sees);
- **answered**: the server's answer applied to the page's view (its events folded in).

Prints a Markdown table of medians and p95 in ms (or JSON); the figures go to
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "e2e"), str(ROOT / "tests")]

from e2e_support import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    DESKTOP,
    PHONE,
    Server,
    close_stores,
    create_account,
    free_port,
    held_at_next_betting,
    hold,
    log_in,
    open_page,
    quiet_table,
    sit,
)
from playwright.sync_api import sync_playwright  # noqa: E402

from serving import start_serve  # noqa: E402

TAP = """async ([chip, area]) => {
  // Tap the chip, then the area; the times (ms from the chip's tap) the area's stake changed,
  // a frame was drawn after it, and the server's answer was in the view.
  const view = () => window.baccaratApp.table.view;
  const stake = () => document.querySelector(`.area[data-area='${area}'] .my-coins`)?.textContent ?? '';
  const before = stake();
  const had = view().me.bets?.[area] ?? 0;
  const t0 = performance.now();
  const times = {};
  const shown = new Promise((done) => {
    const seen = new MutationObserver(() => {
      if (stake() === before) return;
      seen.disconnect();
      times.shown = performance.now() - t0;
      requestAnimationFrame(() => { times.painted = performance.now() - t0; done(); });
    });
    seen.observe(document.querySelector('.areas'), { childList: true, subtree: true, characterData: true });
  });
  const errors = document.querySelectorAll('.toast-error').length;
  const answered = new Promise((done) => {
    const look = () => {
      if ((view().me.bets?.[area] ?? 0) > had) { times.answered = performance.now() - t0; done(); }
      else if (document.querySelectorAll('.toast-error').length > errors) { times.refused = true; done(); }
      else setTimeout(look, 1);
    };
    look();
  });
  document.querySelector(`.tray-chip[data-chip='${chip}']`).click();
  document.querySelector(`.area[data-area='${area}']`).click();
  await Promise.all([shown, answered]);
  return times;
}"""


def measure(bettor: Any, taps: int) -> dict[str, list[float]]:
    """``taps`` chip-and-area taps; each one's times by kind."""
    got: dict[str, list[float]] = {"shown": [], "painted": [], "answered": []}
    for k in range(taps):
        if k % 4 == 0:
            bettor.evaluate("() => window.baccaratApp.session.send('clear').catch(() => {})")
            bettor.wait_for_function("() => !window.baccaratApp.table.view.me.stake")
        times = bettor.evaluate(TAP, [1 + k % 2, "player"])
        assert not times.pop("refused", False), f"tap {k} was refused"
        for kind, ms in times.items():
            got[kind].append(ms)
    return got


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--taps", type=int, default=20)
    parser.add_argument("--throttle", default="1,4", help="CPU throttling rates, comma-separated")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-bet-tap-"))
    db = f"sqlite:///{work / 'bench.db'}"
    served = start_serve("--db", db, "--speed", "2", "--test-hooks", port=free_port(),
                         log=work / "serve.log")  # fmt: skip
    server = Server(served.url, db, served.proc)
    results: dict[str, Any] = {}
    try:
        for name in ("benchdealer", "benchbettor"):
            create_account(server, name)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                        args=CHROMIUM_ARGS)  # fmt: skip
            dealer = open_page(browser, server, DESKTOP)
            log_in(dealer, "benchdealer")
            table = quiet_table(dealer)
            sit(dealer, table, 0)
            bettor = open_page(browser, server, PHONE, phone=True)
            log_in(bettor, "benchbettor")
            sit(bettor, table, 1)
            print("seated; holding a betting", file=sys.stderr)
            held_at_next_betting(server, table)
            bettor.wait_for_selector(".table-screen[data-phase='betting'] .tray")
            cdp = bettor.context.new_cdp_session(bettor)
            try:
                for rate in (float(r) for r in args.throttle.split(",")):
                    cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
                    measure(bettor, 4)  # (warm up at this rate)
                    results[f"{rate:g}x"] = measure(bettor, args.taps)
            finally:
                cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
                hold(server, table, None)
            browser.close()
    finally:
        close_stores()
        served.stop()
    if args.json:
        print(json.dumps(results))
        return
    print("| CPU | shown | painted | answered |")
    print("|---|---|---|---|")
    for rate, got in results.items():
        cells = [f"{statistics.median(got[k]):.1f} / {p95(got[k]):.1f}" for k in got]
        print(f"| {rate} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
