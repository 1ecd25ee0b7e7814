"""A browser page seated at a table for a fault run, and what it shows, as JSON lines.

    python tests/cluster/pagewatch.py --url URL --user NAME --password PW --table t1

Debian's Chromium, headless (``tests/e2e``'s arguments), with the app's service worker as a
player has it: the page logs in at ``URL``, sits at a free bettor seat of the table, bets a
chip on Banker each round (a bettor who does not bet loses the seat after five), and until
SIGTERM writes a line to stdout each time what it shows changes: ``in_seat`` (the table
screen with its seat, the socket up), ``proxy`` (the proxy's own page instead of the app),
``lobby_offline`` (the lobby saying 連線中斷); and a ``page http`` line for every answer
5xx it gets.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from e2e.e2e_support import CHROMIUM, CHROMIUM_ARGS

SHOWN = """() => {
  const app = window.baccaratApp;
  if (!app) return { app: false, proxy: document.title.startsWith("重新連線中") };
  const v = app.table?.view;
  const lobby = app.screen === "lobby";
  return {
    app: true, proxy: false, screen: app.screen,
    in_seat: Boolean(document.querySelector(".table-screen .seat.me")) && v?.me?.seat != null
      && Boolean(app.session?.conn?.online),
    lobby_offline: lobby && document.body.innerText.includes("連線中斷"),
    offline: Boolean(document.querySelector("#offline:not([hidden])")),
    phase: v?.phase ?? null, round: v?.round_id ?? null,
  };
}"""
BET = """() => {
  const chip = document.querySelector(".table-screen[data-phase='betting'] .tray-chip");
  const area = document.querySelector(".area[data-area='banker']");
  if (!chip || !area) return false;
  chip.click();
  area.click();
  return true;
}"""
FREE_SEAT = """(table) => {
  const t = (window.baccaratApp.lobby.page?.tables ?? []).find((x) => x.table_id === table);
  return t ? t.seats.findIndex((s, i) => i > 0 && !s) : -1;
}"""
KEYS = ("app", "proxy", "screen", "in_seat", "lobby_offline", "offline")


def say(msg: str, **fields: Any) -> None:
    """One JSON line on stdout."""
    print(json.dumps({"ts": round(time.time(), 3), "msg": msg, **fields}), flush=True)


def seat_me(page: Any, table: str) -> None:
    """Log in has been done: take a free bettor seat at ``table`` from the lobby."""
    page.wait_for_selector(f'.table-card[data-table="{table}"]', timeout=60_000)
    for _ in range(600):
        seat = page.evaluate(FREE_SEAT, table)
        if seat > 0:
            page.click(f'.table-card[data-table="{table}"] .seat-dot[data-seat="{seat}"]')
            page.wait_for_selector(".table-screen .seat.me", timeout=30_000)
            say("seated", table=table, seat=seat)
            return
        page.wait_for_timeout(100)
    raise SystemExit(f"no free seat at {table}")


def watch(page: Any, stop: list[bool]) -> None:
    """Record what the page shows until ``stop``, betting once a round."""
    last: dict[str, Any] = {}
    bet_in = None
    while not stop:
        try:
            now = page.evaluate(SHOWN)
        except Exception as exc:  # a navigation under way destroys the page's context
            now = {"app": False, "proxy": False, "error": type(exc).__name__}
        shown = {k: now.get(k) for k in KEYS}
        if shown != last:
            say("page", **shown)
            last = shown
        if now.get("phase") == "betting" and now.get("in_seat") and now.get("round") != bet_in:
            try:
                if page.evaluate(BET):
                    bet_in = now.get("round")
            except Exception:
                pass
        page.wait_for_timeout(200)


def main() -> int:
    """Sit, then watch until SIGTERM."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--table", required=True)
    args = parser.parse_args()
    stop: list[bool] = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        ctx = browser.new_context(
            viewport={"width": 1366, "height": 768}, locale="zh-TW", reduced_motion="reduce"
        )
        page = ctx.new_page()
        page.on(
            "response",
            lambda r: say("page http", status=r.status, url=r.url) if r.status >= 500 else None,
        )
        page.on("pageerror", lambda e: say("page error", error=str(e)[:300]))
        page.goto(args.url + "/")
        page.wait_for_selector(".login-form", timeout=60_000)
        page.fill("input[name=username]", args.user)
        page.fill("input[name=password]", args.password)
        page.click(".login-form button[type=submit]")
        page.wait_for_selector(".lobby-screen", timeout=60_000)
        seat_me(page, args.table)
        watch(page, stop)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
