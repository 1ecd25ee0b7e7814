"""Outages answer 503: with the database or Redis cut off from a real node, every route
that needs it answers ``service_unavailable`` with ``Retry-After`` (never 500), the log says
so once (no traceback), and the node answers again once they are back. Meanwhile the node
stays ready (``/healthz`` 200, ``degraded``): it serves the page, and a proxy keeps it."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from tcprelay import Relay

from baccarat.store import open_store
from pgschema import private_schema
from services import REDIS_URL, redis_prefix
from serving import free_port, health, start_serve, wait_until

ROUTES = ("/api/lobby", "/api/me", "/ws", "/api/shoes?table=standard-1", "/api/log/head")


def _through(url: str, port: int) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)
    host = f"127.0.0.1:{port}"
    return urlunsplit(parts._replace(netloc=f"{netloc[0]}@{host}" if len(netloc) == 2 else host))


def _status(base: str, path: str, token: str) -> tuple[int, dict[str, str], dict[str, object]]:
    req = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            return r.status, dict(r.headers), {}
    except urllib.error.HTTPError as exc:
        with exc:
            body = exc.read()
            is_json = exc.headers.get("Content-Type", "").startswith("application/json")
            return exc.code, dict(exc.headers), json.loads(body) if is_json else {}


ADDRESS_DOWN = "writing the console's address failed: the database is unreachable"


def test_the_database_or_redis_down_answers_503_with_retry_after(tmp_path: Path) -> None:
    with ExitStack() as stack:
        db = stack.enter_context(private_schema("out"))
        prefix = stack.enter_context(redis_prefix())
        store = open_store(db)
        user = store.create_user("alice", "password1", level=50, coins=100_000)
        token = store.create_session(user.user_id)
        store.close()
        pg = Relay(urlsplit(db).port or 5432)
        stack.callback(pg.close)
        redis = Relay(urlsplit(REDIS_URL).port or 6379)
        stack.callback(redis.close)
        port = free_port()
        log = tmp_path / "node.log"
        node = stack.enter_context(
            start_serve(
                "--db",
                _through(db, pg.port),
                "--redis",
                _through(REDIS_URL, redis.port),
                "--redis-prefix",
                prefix,
                "--public-url",
                f"http://127.0.0.1:{port}",
                "--keys",
                str(tmp_path / "keys"),
                port=port,
                log=log,
            )
        )
        assert _status(node.url, "/api/lobby", token)[0] == 200

        assert health(node.url)["status"] == "ok"
        parts = (pg, "database", "db", ROUTES[1:]), (redis, "directory", "directory", ROUTES[:1])
        for relay, part, key, routes in parts:
            relay.cut()
            down = wait_until(
                lambda key=key: (h := health(node.url))[key] is False and h,
                f"/healthz to say the {part} is away",
                limit=30,
            )
            assert down["ok"] and down["status"] == "degraded" and down["degraded"] == [part]
            for path in ("/", "/livez", "/healthz", "/readyz"):
                assert _status(node.url, path, token)[0] == 200, path
            for path in routes:
                _, headers, body = wait_until(
                    lambda path=path: (found := _status(node.url, path, token))[0] == 503 and found,
                    f"{path} to answer 503 with the {part} down",
                    limit=30,
                )
                assert headers.get("Retry-After") == "5", path
                assert body["error"]["code"] in {"service_unavailable"}, (path, body)
            if part == "database":
                # The console's address, written every 10 s, fails quietly too.
                wait_until(
                    lambda: ADDRESS_DOWN in log.read_text(),
                    "the console's address to fail",
                    limit=30,
                )
            relay.mend()
            wait_until(
                lambda routes=routes: all(_status(node.url, p, token)[0] != 503 for p in routes),
                f"the node to answer again once the {part} is back",
                limit=30,
            )
            wait_until(lambda: health(node.url)["status"] == "ok", f"{part} back in /healthz")
        assert node.stop() == 0
    text = log.read_text()
    traced = [line[:300] for line in text.splitlines() if "Traceback" in line]
    assert traced == [], traced
    assert text.count("the database is unreachable: answering 503") == 1
    assert text.count(ADDRESS_DOWN) == 1
