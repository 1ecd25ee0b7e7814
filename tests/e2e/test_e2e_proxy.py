"""One public address: two nodes behind nginx, a round played on one origin.

nginx (Debian's package) listens on one 127.0.0.1 port: ``/node/a/`` goes to node A,
``/node/b/`` to node B, everything else to A, or to B while A is down (the page, the API,
a socket that has no table yet). Each node's public URL is its path under that address, so every lobby line
names the path of the table's node, and the page moves its socket there (the session
cookie is the one address's, good on every node). Node A lists t1 and starts first, node B
lists t1 and t2 and runs t2: two users on the one address sit at t2 and play a round, their
sockets routed to B. The config below is the one docs/deployment.md shows.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    DESKTOP,
    PASSWORD,
    START_COINS,
    Server,
    baccarat_cli,
    free_port,
    log_in,
    place_chip,
    sit,
)
from test_e2e_nodes import REDIS_URL, _healthy, _rooms, _start

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

pytestmark = pytest.mark.skipif(
    not Path(NGINX).exists(), reason="Debian's nginx is not installed (apt-get install nginx)"
)

CONFIG = """\
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;

    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ''      close;
    }}
    upstream any_node {{
        server 127.0.0.1:{a};
        server 127.0.0.1:{b} backup;
    }}
    server {{
        listen 127.0.0.1:{port};
        proxy_http_version 1.1;
        proxy_set_header Host $http_host;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_read_timeout 120s;

        location /node/a/ {{ proxy_pass http://127.0.0.1:{a}/; }}
        location /node/b/ {{ proxy_pass http://127.0.0.1:{b}/; }}
        location / {{ proxy_pass http://any_node; }}
    }}
}}
"""


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[str]:
    from redis import Redis

    client = Redis.from_url(REDIS_URL, socket_connect_timeout=1.0)
    try:
        client.ping()
    except Exception:
        client.close()
        pytest.skip(f"Redis is not reachable at {REDIS_URL}")
    prefix = f"test:{uuid.uuid4().hex}:"
    db = f"sqlite:///{tmp_path / 'proxy.db'}"
    port, a, b = free_port(), free_port(), free_port()
    public = f"http://127.0.0.1:{port}"
    conf = tmp_path / "nginx.conf"
    conf.write_text(CONFIG.format(dir=tmp_path, port=port, a=a, b=b))
    procs: list[subprocess.Popen[bytes]] = []
    try:
        nginx = subprocess.Popen(
            [NGINX, "-c", str(conf), "-p", str(tmp_path), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        procs.append(nginx)
        for name, node_port, tables in (("A", a, ["t1"]), ("B", b, ["t1", "t2"])):
            _, proc = _start(
                name,
                "127.0.0.1",
                db,
                _rooms(tmp_path / f"{name}.toml", tables),
                prefix,
                tmp_path / f"{name}.log",
                port=node_port,
                public_url=f"{public}/node/{name.lower()}",
            )
            procs.append(proc)
            if name == "A":
                for user in ("quinn", "rosa"):
                    baccarat_cli(
                        "admin", "create-user", user, "--password-stdin", "--level", "60",
                        "--coins", str(START_COINS), "--db", db, stdin=PASSWORD + "\n",
                    )  # fmt: skip
        for path in ("", "/node/a", "/node/b"):
            for _ in range(100):
                if _healthy(public + path):
                    break
                with contextlib.suppress(Exception):
                    nginx.wait(0.1)
            assert _healthy(public + path), f"nginx does not reach {path or '/'}"
        yield public
    finally:
        for proc in reversed(procs):
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
    page = browser.new_context(viewport=DESKTOP, locale="en").new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.js_errors = errors
    page.goto(url + "/")
    return page


def test_a_round_is_played_through_one_public_address(
    browser: Any, server: Server, proxied: str
) -> None:
    dealer, bettor = _page(browser, proxied), _page(browser, proxied)
    log_in(dealer, "quinn")
    log_in(bettor, "rosa")
    sit(dealer, "t2", 0)
    sit(bettor, "t2", 1)
    for page in (dealer, bettor):
        # One origin all along; the socket went to the node that runs t2.
        assert page.url.startswith(proxied + "/")
        assert page.evaluate("() => window.baccaratApp.conn.base") == "/node/b"
    bettor.wait_for_selector(".table-screen[data-phase='betting'] .tray", timeout=30_000)
    assert place_chip(bettor, 5, "banker") == "ok"
    for page in (dealer, bettor):
        page.wait_for_selector(
            ".table-screen[data-phase='result'] .result-banner:not([hidden])", timeout=60_000
        )
        assert page.js_errors == []
    dealer.context.close()
    bettor.context.close()
