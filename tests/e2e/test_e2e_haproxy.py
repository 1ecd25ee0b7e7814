"""A page behind the shipped HAProxy configuration (``deploy/haproxy/haproxy.cfg``) leaves a
frozen node by itself: two nodes behind one public address, a user seated at the table node
A runs, reached through the address. Node A freezes (SIGSTOP: its port still takes TCP). The
proxy's health checks take it out of the address, the page notices its socket's silence and
goes to another node's own path (the lobby named it), and is back in its seat once node B
takes the table over at the end of A's lease (10 s, the default)."""

from __future__ import annotations

import contextlib
import signal
import ssl
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import DESKTOP, START_COINS, Server, create_account, free_port, log_in, sit
from test_e2e_nodes import REDIS_URL, _rooms

from haproxy import NEEDED, configure, running
from serving import start_serve

pytestmark = NEEDED
TTL = 10.0


def _node(name: str, port: int, db: str, rooms: Path, prefix: str, public: str, log: Path) -> Any:
    return start_serve(
        "--db", db, "--rooms", str(rooms), "--speed", "2", "--redis", REDIS_URL,
        "--redis-prefix", prefix, "--node-id", name, "--public-url", public,
        "--lease-ttl", str(TTL), "--keys", str(log.parent / "keys"),
        port=port, log=log,
    )  # fmt: skip


def _status(url: str) -> int:
    insecure = ssl.create_default_context()
    insecure.check_hostname = False
    insecure.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=1, context=insecure) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        with exc:
            return int(exc.code)
    except OSError:
        return 0


def _until(predicate: Any, what: str, limit: float = 30.0) -> None:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"gave up waiting for {what}")


@pytest.fixture
def behind_haproxy(tmp_path: Path) -> Iterator[tuple[str, dict[str, Any], str]]:
    from redis import Redis

    client = Redis.from_url(REDIS_URL, socket_connect_timeout=1.0)
    try:
        client.ping()
    except Exception:
        client.close()
        pytest.skip(f"Redis is not reachable at {REDIS_URL}")
    prefix = f"test:{uuid.uuid4().hex}:"
    db = f"sqlite:///{tmp_path / 'hp.db'}"
    plain, tls, a, b, c = (free_port() for _ in range(5))
    public = f"https://127.0.0.1:{tls}"
    config = configure(
        tmp_path,
        {
            "bind :80": f"bind 127.0.0.1:{plain}",
            "bind :443": f"bind 127.0.0.1:{tls}",
            "127.0.0.1:8001": f"127.0.0.1:{a}",
            "127.0.0.1:8002": f"127.0.0.1:{b}",
            "127.0.0.1:8003": f"127.0.0.1:{c}",
        },
    )
    with contextlib.ExitStack() as stack:
        stack.callback(client.close)

        def forget() -> None:
            keys = list(client.scan_iter(match=f"{prefix}*"))
            if keys:
                client.delete(*keys)

        stack.callback(forget)
        stack.enter_context(running(config, tls))
        nodes = {
            "A": stack.enter_context(
                _node("A", a, db, _rooms(tmp_path / "a.toml", ["t1"]), prefix,
                      f"{public}/node/a", tmp_path / "a.log")
            ),
        }  # fmt: skip
        create_account(Server(public, db, nodes["A"].proc), "hana", START_COINS)
        nodes["B"] = stack.enter_context(
            _node("B", b, db, _rooms(tmp_path / "b.toml", ["t1", "t2"]), prefix,
                  f"{public}/node/b", tmp_path / "b.log")
        )  # fmt: skip
        # Every node checked up, and the third, which is down, checked out.
        for path, status in (("/node/a", 200), ("/node/b", 200), ("/node/c", 503)):
            _until(lambda path=path, status=status: _status(public + path) == status, path)
        yield public, nodes, db
        for node in nodes.values():
            node.proc.send_signal(signal.SIGCONT)


def test_a_seated_page_leaves_a_frozen_node_behind_one_address(
    browser: Any, behind_haproxy: tuple[str, dict[str, Any], str]
) -> None:
    public, nodes, _db = behind_haproxy
    ctx = browser.new_context(
        viewport=DESKTOP, locale="en", reduced_motion="reduce", ignore_https_errors=True
    )
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(public + "/")
    log_in(page, "hana")
    page.wait_for_selector('.table-card[data-table="t1"]')
    sit(page, "t1", 3)
    # (through node A's own path, or through the address itself when it led to node A)
    assert page.evaluate("() => window.baccaratApp.session.conn.base") in {"", "/node/a"}
    nodes["A"].proc.send_signal(signal.SIGSTOP)
    frozen = time.monotonic()
    page.wait_for_function(
        """() => { const app = window.baccaratApp;
             return app.session.conn.online && app.session.conn.base === "/node/b"
               && app.table.view?.me?.seat === 3; }""",
        timeout=60_000,
    )
    back = time.monotonic() - frozen
    page.wait_for_selector(".table-screen .seat.me[data-seat='3']")
    assert errors == []
    ctx.close()
    print(f"back in the seat through node B's path {back:.1f} s after node A froze (ttl {TTL:g} s)")
    assert back < TTL + 2.0 + 1.0  # ttl + 2 s, and a second for the page's own clock
