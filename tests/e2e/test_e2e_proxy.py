"""One public address: two nodes behind nginx, a round played on one origin.

nginx (Debian's package) listens on one 127.0.0.1 port: ``/node/a/`` goes to node A,
``/node/b/`` to node B, everything else to A, or to B while A is down (the page, the API,
a socket that has no table yet). Each node's public URL is its path under that address, so every lobby line
names the path of the table's node, and the page moves its socket there (the session
cookie is the one address's, good on every node). Node A lists t1 and starts first, node B
lists t1 and t2 and runs t2: two users on the one address sit at t2 and play a round, their
sockets routed to B, and an operator's console, loaded from the one address, closes and
reopens t2 and stands a player up there through B's path. The config below routes as deploy/nginx/many-nodes.conf does (the file
docs/deployment.md shows), on the test's own ports and without TLS.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
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
    create_account,
    free_port,
    log_in,
    set_role,
    sit,
    skip,
)
from test_e2e_console import act, console_log_in
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
        location /node/c/ {{ proxy_pass http://127.0.0.1:{c}/; }}
        location / {{ proxy_pass http://any_node; }}
    }}
}}
"""


@dataclass
class Proxied:
    """The one public address, and each node's process and database."""

    url: str
    procs: dict[str, subprocess.Popen[bytes]]
    db: str
    dir: Path
    prefix: str
    spare: int
    """The port of node C's path: no node listens there until a test starts one."""

    @property
    def server(self) -> Server:
        """The system behind the address, as the accounts helpers take it."""
        return Server(self.url, self.db, self.procs["A"])


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[Proxied]:
    from redis import Redis

    client = Redis.from_url(REDIS_URL, socket_connect_timeout=1.0)
    try:
        client.ping()
    except Exception:
        client.close()
        pytest.skip(f"Redis is not reachable at {REDIS_URL}")
    prefix = f"test:{uuid.uuid4().hex}:"
    db = f"sqlite:///{tmp_path / 'proxy.db'}"
    port, a, b, c = free_port(), free_port(), free_port(), free_port()
    public = f"http://127.0.0.1:{port}"
    conf = tmp_path / "nginx.conf"
    conf.write_text(CONFIG.format(dir=tmp_path, port=port, a=a, b=b, c=c))
    procs: list[subprocess.Popen[bytes]] = []
    nodes: dict[str, subprocess.Popen[bytes]] = {}
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
            nodes[name] = proc
            if name == "A":
                for user in ("quinn", "rosa"):
                    create_account(Server(public, db, proc), user, START_COINS)
        for path in ("", "/node/a", "/node/b"):
            for _ in range(100):
                if _healthy(public + path):
                    break
                with contextlib.suppress(Exception):
                    nginx.wait(0.1)
            assert _healthy(public + path), f"nginx does not reach {path or '/'}"
        yield Proxied(public, nodes, db, tmp_path, prefix, c)
    finally:
        procs += [proc for name, proc in nodes.items() if name not in ("A", "B")]
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
    # (reduced motion, as open_page asks: a table's page otherwise repaints every frame)
    page = browser.new_context(viewport=DESKTOP, locale="en", reduced_motion="reduce").new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.js_errors = errors
    page.goto(url + "/")
    return page


def test_a_round_is_played_through_one_public_address(
    browser: Any, server: Server, proxied: Proxied
) -> None:
    dealer, bettor = _page(browser, proxied.url), _page(browser, proxied.url)
    log_in(dealer, "quinn")
    log_in(bettor, "rosa")
    sit(dealer, "t2", 0)
    sit(bettor, "t2", 1)
    for page in (dealer, bettor):
        # One origin all along; the socket went to the node that runs t2.
        assert page.url.startswith(proxied.url + "/")
        assert page.evaluate("() => window.baccaratApp.session.conn.base") == "/node/b"
    # (the bettor's cards open as they come: nobody waits out a squeeze's countdown)
    bettor.click(".tray [data-action='auto-open']")
    bettor.wait_for_selector(".tray .auto-open.on")
    assert bet_in_a_betting(bettor, 5, "banker") == "ok"
    # (nobody else bets: B is asked through its path to end the betting at once)
    skip(Server(proxied.url + "/node/b", proxied.db, proxied.procs["B"]), "t2")
    for page in (dealer, bettor):
        page.wait_for_selector(
            ".table-screen[data-phase='result'] .result-banner:not([hidden])", timeout=60_000
        )
        assert page.js_errors == []
    dealer.context.close()
    bettor.context.close()


def _seated(url: str, table: str) -> set[int]:
    # Who sits at ``table``, as the lobby behind the address says.
    with urllib.request.urlopen(url + "/api/lobby", timeout=3) as resp:
        lines = {t["table_id"]: t for t in json.load(resp)["tables"]}
    return {seat["user_id"] for seat in lines[table]["seats"] if seat is not None}


def test_a_page_and_bots_follow_a_table_through_the_proxy_when_its_node_dies(
    browser: Any, server: Server, proxied: Proxied
) -> None:
    # Two bots at t1 (node A), reached through the proxy's path for A, and a user's page.
    accounts = proxied.dir / "bots.accounts"
    names = [create_account(proxied.server, f"pbot{i}", START_COINS) for i in range(2)]
    accounts.write_text("".join(f"{name}:{PASSWORD}\n" for name in names))
    log = proxied.dir / "bots.log"
    with log.open("w") as out:
        bots = subprocess.Popen(
            [
                sys.executable, "-m", "baccarat", "bots", "--url", proxied.url + "/node/a",
                "--accounts", str(accounts), "--count", "2", "--table", "t1",
                "--processes", "1", "--no-deal", "--log-level", "info",
            ],
            stdout=subprocess.DEVNULL,
            stderr=out,
        )  # fmt: skip
    try:
        page = _page(browser, proxied.url)
        log_in(page, "quinn")
        sit(page, "t1", 0)
        _until(lambda: len(_seated(proxied.url, "t1")) == 3, "the bots seated at t1")
        before = _seated(proxied.url, "t1")
        shoe = page.evaluate("() => window.baccaratApp.table.view?.shoe?.id ?? null")
        # Node A dies: nginx answers its path with 502 pages, and B takes t1 over, dealing
        # the same shoe on: the page finds it there, through the one address, in its seat.
        proxied.procs["A"].kill()
        proxied.procs["A"].wait()
        _until(lambda: _tables(proxied.url + "/node/b") == 2, "B to take t1 over")
        page.wait_for_function(
            """(shoe) => { const app = window.baccaratApp, v = app.table.view;
                 return app.session.conn.online && app.session.conn.base !== "/node/a"
                   && v?.shoe?.id === shoe; }""",
            arg=shoe,
            timeout=30_000,
        )
        page.wait_for_selector(".table-screen .seat.me[data-seat='0']", timeout=30_000)
        assert page.js_errors == []
        page.context.close()
        # The bots got nginx's error pages for A, kept going, and are back in their seats
        # on B (their log says so), where t1 runs with everyone seated before.
        _until(lambda: len(_back_on(log, "/node/b")) == 2, "the bots back on B")
        assert bots.poll() is None
        assert _seated(proxied.url + "/node/b", "t1") == before
    finally:
        bots.terminate()
        bots.wait(15)


def test_a_seated_page_follows_its_table_handed_to_a_node_it_did_not_know(
    browser: Any, server: Server, proxied: Proxied
) -> None:
    # A page seated at t2 (node B); node C, which lists t2 only, joins. B stops (a planned
    # stop): t2 goes to C with its seats, and B closes the page's socket with 4002. The page
    # knew only A's and B's paths, and the address's first node, A, does not even list t2: it
    # asks the lobbies where t2 runs now and goes to C's path, back to its seat.
    page = _page(browser, proxied.url)
    log_in(page, "rosa")
    sit(page, "t2", 2)
    assert page.evaluate("() => window.baccaratApp.session.conn.base") == "/node/b"
    _, proxied.procs["C"] = _start(
        "C", "127.0.0.1", proxied.db, _rooms(proxied.dir / "C.toml", ["t2"]), proxied.prefix,
        proxied.dir / "C.log", port=proxied.spare, public_url=f"{proxied.url}/node/c",
    )  # fmt: skip
    b = Server(proxied.url + "/node/b", proxied.db, proxied.procs["B"])
    stopped = time.monotonic()
    proxied.procs["B"].terminate()
    # (the round in play is ended at once: B hands t2 over as soon as it is settled)
    while proxied.procs["B"].poll() is None:
        with contextlib.suppress(OSError):
            skip(b, "t2")
        time.sleep(0.3)
    page.wait_for_function(
        """() => { const app = window.baccaratApp;
             return app.session.conn.online && app.session.conn.base === "/node/c"
               && app.table.view?.me?.seat === 2; }""",
        timeout=30_000,
    )
    back = time.monotonic() - stopped
    page.wait_for_selector(".table-screen .seat.me[data-seat='2']")
    assert page.evaluate("() => window.baccaratApp.screen") == "table"
    print(f"back in the seat through node C's path {back:.1f} s after B was told to stop")
    assert page.js_errors == []
    page.context.close()


def _until(predicate: Any, what: str, limit: float = 60.0) -> None:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        with contextlib.suppress(OSError, ValueError, KeyError):
            if predicate():
                return
        time.sleep(0.2)
    raise AssertionError(f"gave up waiting for {what}")


def _tables(url: str) -> int:
    # How many tables the node at ``url`` runs.
    with urllib.request.urlopen(url + "/healthz", timeout=3) as resp:
        return int(json.load(resp)["tables"])


def _back_on(log: Path, path: str) -> set[int]:
    # The bots that logged being back in their seat on the node at ``path``.
    back = set()
    for line in log.read_text(errors="replace").splitlines():
        with contextlib.suppress(ValueError):
            rec = json.loads(line)
            if rec.get("msg") == "bot back in its seat" and str(rec.get("url")).endswith(path):
                back.add(int(rec["user_id"]))
    return back


def test_the_console_acts_on_the_other_nodes_table_through_one_address(
    browser: Any, server: Server, proxied: Proxied
) -> None:
    # The console is loaded from the one address (node A answers it); t2 runs on B. The
    # console sends t2's actions to B's path, with the console's own session.
    olga = create_account(proxied.server, "olga", START_COINS)
    set_role(proxied.server, olga, "operator", "floor")
    player, other = _page(browser, proxied.url), _page(browser, proxied.url)
    op = _page(browser, proxied.url + "/admin")
    try:
        log_in(player, "rosa")
        sit(player, "t2", 1)
        log_in(other, "quinn")
        op.wait_for_selector(".cs-login")
        console_log_in(op, "olga", None)
        op.click("tr[data-table='t2'] [data-action='choose']")
        # Watched from B: the seated player is in the book's seats.
        op.wait_for_selector(".cs-table[data-node='B']")
        op.wait_for_selector(".cs-watched [data-list='seats'] tr[data-seat='1'] :text('rosa')")
        assert act(op, "close_table", "Maintenance") == "ok"
        # A's list learns it from B's lobby line; the player reads it over the felt, and the
        # lobby shows the table closed.
        op.wait_for_selector("tr.cs-closed[data-table='t2']", timeout=15_000)
        player.wait_for_selector(".notice.closed:text('Maintenance')")
        other.wait_for_selector(".table-card[data-table='t2'] .phase-suspended", timeout=15_000)
        assert other.is_disabled(".table-card[data-table='t2'] .seat-dot[data-seat='2']")
        assert act(op, "open_table", "Maintenance done") == "ok"
        op.wait_for_selector("tr[data-table='t2']:not(.cs-closed)", timeout=15_000)
        player.wait_for_selector(".notice.closed", state="hidden")
        # The player's page in the console stands them up at B.
        op.goto(proxied.url + "/admin/#/users")
        op.fill(".cs-search [name=q]", "rosa")
        op.click(".cs-search button[type=submit]")
        op.click("tr[data-user='rosa'] a")
        op.wait_for_selector(".cs-user [data-field='seat']:text('t2 #1')")
        assert act(op, "stand", "asked to leave") == "ok"
        player.wait_for_selector(".table-screen .seat.me", state="detached", timeout=15_000)
        assert op.js_errors == [] and player.js_errors == [] and other.js_errors == []
    finally:
        for page in (op, player, other):
            page.context.close()
