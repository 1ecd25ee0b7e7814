"""The browser follows its table across nodes: through the lobby and through a failover.

Two ``baccarat serve --redis`` nodes on different hosts (127.0.0.1 and 127.0.0.2, so each
has cookies of its own) share one SQLite file and a private prefix of the test Redis. Node
A lists t1 and starts first, so it runs t1; node B lists t1 and t2 and runs t2. A user who
logged in on A opens t2 from A's lobby: the page moves to B with a single-use ticket and
shows the table without asking to log in; from B's lobby, t1 takes it back to A. A user
seated at t1 on A sees A killed: the page moves to B with its spare ticket, says the table is
opening while no node runs it, and finds its seat kept once B takes t1 over.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    DESKTOP,
    PASSWORD,
    START_COINS,
    Server,
    bet_in_a_betting,
    free_port,
    log_in,
    needs_chromium,
    sit,
    skip,
)

from baccarat.cluster import RedisDirectory
from baccarat.store import open_store
from serving import start_serve

pytestmark = needs_chromium

REDIS_URL = os.environ.get("BACCARAT_TEST_REDIS", "redis://127.0.0.1:6379/0")
NAMES = ("nina", "omar")


@dataclass
class Nodes:
    """Two running nodes."""

    a: str
    b: str
    procs: dict[str, subprocess.Popen[bytes]]
    db: str
    prefix: str


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=1) as resp:
            return bool(json.load(resp)["ok"])
    except OSError:
        return False


def _start(
    name: str,
    host: str,
    db: str,
    rooms: Path,
    prefix: str,
    log: Path,
    *,
    port: int | None = None,
    public_url: str | None = None,
) -> tuple[str, subprocess.Popen[str]]:
    port = port or free_port()
    url = public_url or f"http://{host}:{port}"
    served = start_serve(
        "--db", db, "--rooms", str(rooms), "--speed", "2",
        "--redis", REDIS_URL, "--redis-prefix", prefix, "--node-id", name,
        "--public-url", url, "--lease-ttl", "3", "--test-hooks",
        port=port, host=host, log=log,
    )  # fmt: skip
    return url, served.proc


def _rooms(path: Path, tables: list[str]) -> Path:
    path.write_text(
        '[[rooms]]\nid = "standard"\nname = "Standard"\nchip_unit = 100\n'
        f"bettor_floor = 1000\ndealer_floor = 35000\ntables = {json.dumps(tables)}\n"
    )
    return path


@pytest.fixture
def nodes(tmp_path: Path) -> Iterator[Nodes]:
    from redis import Redis

    client = Redis.from_url(REDIS_URL, socket_connect_timeout=1.0)
    try:
        client.ping()
    except Exception:
        client.close()
        pytest.skip(f"Redis is not reachable at {REDIS_URL}")
    prefix = f"test:{uuid.uuid4().hex}:"
    db = f"sqlite:///{tmp_path / 'nodes.db'}"
    procs: dict[str, subprocess.Popen[bytes]] = {}
    try:
        a, procs["A"] = _start(
            "A", "127.0.0.1", db, _rooms(tmp_path / "a.toml", ["t1"]), prefix, tmp_path / "a.log"
        )
        # (in this process, once A has made the database: a CLI process each costs seconds)
        with open_store(db) as store:
            for name in NAMES:
                store.create_user(name, PASSWORD, level=60, coins=START_COINS)
        b, procs["B"] = _start(
            "B",
            "127.0.0.2",
            db,
            _rooms(tmp_path / "b.toml", ["t1", "t2"]),
            prefix,
            tmp_path / "b.log",
        )
        yield Nodes(a, b, procs, db, prefix)
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        keys = list(client.scan_iter(match=f"{prefix}*"))
        if keys:
            client.delete(*keys)
        client.close()


def _page(browser: Any, url: str) -> Any:
    # (reduced motion, as open_page asks: a table's page otherwise repaints every frame)
    ctx = browser.new_context(viewport=DESKTOP, locale="en", reduced_motion="reduce")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.js_errors = errors
    page.goto(url + "/")
    return page


def _seated_on_a(browser: Any, nodes: Nodes, name: str, seat: int) -> Any:
    """A page of ``name`` seated at t1 on node A, holding its spare ticket."""
    page = _page(browser, nodes.a)
    log_in(page, name)
    page.wait_for_selector('.table-card[data-table="t1"]')
    sit(page, "t1", seat)
    page.wait_for_function("() => Boolean(window.baccaratApp.session.spare.ticket)", timeout=30_000)
    return page


def _on_table(page: Any, origin: str, table_id: str) -> None:
    page.wait_for_url(f"{origin}/#/table/{table_id}", timeout=30_000)
    page.wait_for_selector(".table-screen", timeout=30_000)


def test_a_table_on_another_node_opens_there_without_logging_in_again_and_back(
    browser: Any, server: Server, nodes: Nodes
) -> None:
    page = _page(browser, nodes.a)
    log_in(page, NAMES[0])
    page.wait_for_selector('.table-card[data-table="t2"]')
    page.click('.table-card[data-table="t2"] .btn-watch')
    _on_table(page, nodes.b, "t2")
    assert page.query_selector(".login-form") is None
    page.click(".btn-lobby")
    page.wait_for_selector('.table-card[data-table="t1"]')
    page.click('.table-card[data-table="t1"] .btn-watch')
    _on_table(page, nodes.a, "t1")
    assert page.query_selector(".login-form") is None
    assert page.js_errors == []
    page.context.close()


TOAST_SHOWN = "toast shown:"
OPENING = "本桌正在另一台伺服器上開啟"
CLOSING = "伺服器即將重啟"
WATCH_TOAST = """(text) => {
  // Say on the console when a toast with this text comes on screen: the page may move to the
  // next node (and lose the toast) before a starved page is polled for it.
  const watch = () => {
    const note = () => {
      if ([...document.querySelectorAll('.toast')].some((t) => t.textContent.includes(text))) {
        console.info(`toast shown: ${text}`);
        watcher.disconnect();
      }
    };
    const watcher = new MutationObserver(note);
    watcher.observe(document.body, { subtree: true, childList: true, characterData: true });
    note();
  };
  if (document.body) watch();
  else document.addEventListener('DOMContentLoaded', watch);
}"""


async def _hold_lease(nodes: Nodes, table_id: str, node_id: str, ttl: float) -> None:
    directory = RedisDirectory.from_url(REDIS_URL, nodes.prefix)
    try:
        assert await directory.acquire(table_id, node_id, ttl) is not None
    finally:
        await directory.close()


def test_a_seated_user_follows_the_table_to_the_node_that_takes_it_over(
    browser: Any, server: Server, nodes: Nodes
) -> None:
    page = _seated_on_a(browser, nodes, NAMES[1], 2)
    said: list[str] = []
    page.on("console", lambda m: said.append(m.text))
    # (on every document of the page: the one on B says when its wait shows)
    page.context.add_init_script(f"({WATCH_TOAST})({json.dumps(OPENING)})")
    nodes.procs["A"].send_signal(signal.SIGKILL)
    # The dead node's lease outlives its heartbeat by a few seconds, so the page reaches B
    # while no node runs t1 (B answers table_opening): it waits there for B to take it.
    # (on a thread of its own: Playwright's loop runs on this one)
    with ThreadPoolExecutor(1) as pool:
        # (long enough for a loaded machine's page to give A up and reach B meanwhile)
        pool.submit(asyncio.run, _hold_lease(nodes, "t1", "A", 10.0)).result()
    _on_table(page, nodes.b, "t1")
    page.wait_for_selector(".table-screen .seat.me[data-seat='2']", timeout=30_000)
    assert page.query_selector(".login-form") is None
    assert f"{TOAST_SHOWN} {OPENING}" in said, said
    assert page.js_errors == []
    page.context.close()


def test_a_restart_settles_the_round_in_play_and_both_users_follow_with_their_seats(
    browser: Any, server: Server, nodes: Nodes
) -> None:
    dealer = _seated_on_a(browser, nodes, NAMES[0], 0)
    bettor = _seated_on_a(browser, nodes, NAMES[1], 3)
    assert bet_in_a_betting(bettor, 1, "banker") == "ok"
    said: dict[str, list[str]] = {"dealer": [], "bettor": []}
    for name, page in (("dealer", dealer), ("bettor", bettor)):
        page.on("console", lambda m, name=name: said[name].append(m.text))
        page.evaluate(WATCH_TOAST, CLOSING)
    # A planned stop (SIGTERM) with a bet on the table: every screen says what happens, the
    # round plays on and settles, then the table goes to B and both pages follow it there.
    nodes.procs["A"].send_signal(signal.SIGTERM)
    # The notice goes out at the signal; the round's clocks are then not waited out: each
    # phase is ended at once until A has settled the round and stopped.
    time.sleep(1.0)
    while nodes.procs["A"].poll() is None:
        with contextlib.suppress(OSError):
            skip(Server(nodes.a, nodes.db, nodes.procs["A"]), "t1")
        time.sleep(0.3)
    for page, seat in ((dealer, 0), (bettor, 3)):
        _on_table(page, nodes.b, "t1")
        page.wait_for_selector(f".table-screen .seat.me[data-seat='{seat}']", timeout=30_000)
        assert page.query_selector(".login-form") is None
        assert page.js_errors == []
    assert {name: f"{TOAST_SHOWN} {CLOSING}" in lines for name, lines in said.items()} == {
        "dealer": True,
        "bettor": True,
    }, said
    assert nodes.procs["A"].wait(timeout=30) == 0
    # --live: B runs the table on, and its next round may be in escrow by now.
    audit = [sys.executable, "-m", "baccarat", "audit", "--db", nodes.db, "--json", "--live"]
    report = json.loads(subprocess.run(audit, capture_output=True, text=True, timeout=60).stdout)
    assert report["ok"] and report["voided"] == 0 and report["rounds"] >= 1, report
    for page in (dealer, bettor):
        page.context.close()


def test_a_seated_user_leaves_a_frozen_node_for_the_one_that_takes_the_table(
    browser: Any, server: Server, nodes: Nodes
) -> None:
    page = _seated_on_a(browser, nodes, NAMES[1], 4)
    # A frozen node closes nothing: the page notices its silence by itself.
    nodes.procs["A"].send_signal(signal.SIGSTOP)
    start = time.monotonic()
    try:
        _on_table(page, nodes.b, "t1")
        page.wait_for_selector(".table-screen .seat.me[data-seat='4']", timeout=30_000)
        print(f"back in the seat on B {time.monotonic() - start:.1f} s after A froze (ttl 3 s)")
    finally:
        nodes.procs["A"].send_signal(signal.SIGCONT)
    assert page.query_selector(".login-form") is None
    assert page.js_errors == []
    page.context.close()
