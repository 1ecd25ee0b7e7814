"""``baccarat serve`` behind a reverse proxy: ``--trusted-proxy`` makes the login limits count
the client named in ``X-Forwarded-For`` (only on the proxy's connections), and an https
``--public-url`` makes the cookies ``Secure``."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

from baccarat.store import open_store
from serving import run_serve, start_serve


def login(url: str, password: str, forwarded: str) -> tuple[int, str]:
    """A game login sent as if through a proxy; its status and its Set-Cookie."""
    request = urllib.request.Request(
        f"{url}/api/login",
        data=json.dumps({"username": "alice", "password": password}).encode(),
        headers={"Content-Type": "application/json", "X-Forwarded-For": forwarded},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, resp.headers.get("Set-Cookie", "")
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, ""


def _guessing(url: str, forwarded: str) -> list[int]:
    """Eleven wrong passwords (the limit is ten a minute for a name from one address)."""
    return [login(url, "wrong-password", forwarded)[0] for _ in range(11)]


def test_a_trusted_proxy_names_the_client_and_https_makes_cookies_secure(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'p.db'}"
    with open_store(db) as store:
        store.create_user("alice", "password1", coins=1_000)
    args = ("--db", db, "--trusted-proxy", "127.0.0.1", "--public-url", "https://cards.example")
    with start_serve(*args) as served:
        # A stranger guessing at 203.0.113.5 is stopped; the owner elsewhere is not.
        assert _guessing(served.url, "203.0.113.5")[-1] == 429
        # (what a client writes to the left of the proxy's own entry counts for nothing)
        assert login(served.url, "password1", "198.51.100.7, 203.0.113.5")[0] == 429
        status, cookie = login(served.url, "password1", "203.0.113.6")
        assert status == 200
        assert "baccarat_session=" in cookie and "Secure" in cookie
        assert served.stop() == 0


def test_without_a_trusted_proxy_the_forwarded_header_is_ignored(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'p.db'}"
    with open_store(db) as store:
        store.create_user("alice", "password1", coins=1_000)
    with start_serve("--db", db) as served:
        assert _guessing(served.url, "203.0.113.5")[-1] == 429
        # Everyone shares the connection's address: the owner is stopped too.
        assert login(served.url, "password1", "203.0.113.6")[0] == 429
        assert served.stop() == 0
    with start_serve("--db", db) as served:
        status, cookie = login(served.url, "password1", "203.0.113.6")
        assert status == 200 and "Secure" not in cookie
        assert served.stop() == 0


def test_a_trusted_proxy_is_an_ip_address() -> None:
    done = run_serve("--trusted-proxy", "proxy.example")
    assert done.returncode == 2
    assert "is not an IP address" in done.stderr
