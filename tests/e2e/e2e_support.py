"""Helpers of the browser tests: accounts, pages, logging in, sitting, screenshots."""

from __future__ import annotations

import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SPEED = 2.0
"""Every timer divided by this: betting 7.5 s, squeeze 5 s, result 2.5 s."""
PASSWORD = "e2e-password"
START_COINS = 1_000_000
USERS = ("alice", "bob", "carol", "dave", "erin")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed at /usr/bin/chromium"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def baccarat_cli(*args: str, stdin: str | None = None) -> None:
    subprocess.run(
        [sys.executable, "-m", "baccarat", *args],
        input=stdin,
        text=True,
        check=True,
        capture_output=True,
        timeout=60,
    )


@dataclass
class Server:
    """A running server and how to reach it."""

    url: str
    db: str
    process: subprocess.Popen[bytes]


def open_page(
    browser: Any, server: Server, viewport: dict[str, int], *, phone: bool = False
) -> Any:
    """A fresh browser context (its own cookies) and page at the client."""
    ctx = browser.new_context(
        viewport=viewport,
        device_scale_factor=1,
        is_mobile=phone,
        has_touch=phone,
        locale="zh-TW",
    )
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.js_errors = errors
    page.goto(server.url + "/")
    return page


def log_in(page: Any, name: str) -> None:
    """Log in through the form and wait for the lobby (or the table a seat is held at)."""
    page.wait_for_selector(".login-form")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click(".login-form button[type=submit]")
    page.wait_for_selector(".lobby-screen, .table-screen")


def sit(page: Any, table_id: str, seat: int) -> None:
    """Take a seat from the lobby's table card and wait for the table screen."""
    page.click(f'.table-card[data-table="{table_id}"] .seat-dot[data-seat="{seat}"]')
    page.wait_for_selector(f".table-screen .seat.me[data-seat='{seat}']")


def no_horizontal_overflow(page: Any) -> bool:
    """Whether the page fits its viewport's width."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"))


def save_screenshot(page: Any, name: str) -> Path:
    """Save a PNG under docs/screenshots/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


PLACE_CHIP = """async ([chip, area]) => {
  const stack = () => document.querySelector(`.area[data-area='${area}'] .my-stack`)?.textContent ?? '';
  const before = stack();
  const errors = document.querySelectorAll('.toast-error').length;
  document.querySelector(`.tray-chip[data-chip='${chip}']`).click();
  document.querySelector(`.area[data-area='${area}']`).click();
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 50));
    if (stack() !== before) return 'ok';
    const toasts = document.querySelectorAll('.toast-error');
    if (toasts.length > errors) return toasts[toasts.length - 1].textContent;
  }
  return 'no answer';
}"""


def place_chip(page: Any, chip: int, area: str) -> str:
    """Pick a chip and tap an area; 'ok' once the area shows it, else the refusal shown."""
    return str(page.evaluate(PLACE_CHIP, [chip, area]))
