"""The nginx configurations of ``deploy/nginx/``: nginx accepts them, and a node's HTTP and
WebSocket pass through them.

Each file is included, as Debian's ``conf.d`` includes it, in a main configuration of the
test's own that keeps nginx's pid, logs and temporary files in a temporary folder (as the
browser test of many nodes does); the certificate paths point at a certificate made for the
test, and for a run the listening ports and the nodes' addresses are free ports on
127.0.0.1. ``nginx -t`` checks each file; then nginx runs it in front of a real node, and
plain HTTP is redirected, ``/healthz`` and a socket's hello come back through TLS (the
socket's ``Origin`` passes because nginx hands the node the original ``Host``), and with
many nodes each node's path reaches that node while a node that is down answers 502.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from baccarat.server import Server, create_app
from baccarat.server.config import parse_rooms
from baccarat.store import open_store
from serving import free_port, listening

ROOT = Path(__file__).resolve().parents[2]
SITES = ROOT / "deploy" / "nginx"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
OPENSSL = shutil.which("openssl")
CERTIFICATE = "/etc/letsencrypt/live/cards.example.com/fullchain.pem"
KEY = "/etc/letsencrypt/live/cards.example.com/privkey.pem"

pytestmark = [
    pytest.mark.skipif(
        not Path(NGINX).exists(), reason="nginx is not installed (apt-get install nginx-light)"
    ),
    pytest.mark.skipif(OPENSSL is None, reason="openssl is not installed (for a certificate)"),
]

MAIN = """\
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include {site};
}}
"""

ROOMS = {
    "rooms": [
        {
            "id": "standard",
            "name": "Standard",
            "chip_unit": 100,
            "bettor_floor": 1000,
            "dealer_floor": 35000,
            "tables": ["t1"],
        }
    ]
}


def _certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    assert OPENSSL is not None
    subprocess.run(
        [OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


def _configure(name: str, folder: Path, swaps: dict[str, str]) -> Path:
    """The main configuration including ``deploy/nginx/NAME`` with the test's certificate
    and ``swaps`` (text of the file -> the test's) made; the file must hold each swapped text."""
    folder.mkdir(parents=True, exist_ok=True)
    cert, key = _certificate(folder)
    text = (SITES / name).read_text()
    for old, new in {CERTIFICATE: str(cert), KEY: str(key), **swaps}.items():
        assert old in text, f"{name} has no {old!r}"
        text = text.replace(old, new)
    site = folder / name
    site.write_text(text)
    main = folder / "nginx.conf"
    main.write_text(MAIN.format(dir=folder, site=site))
    return main


def _nginx(main: Path, *args: str) -> list[str]:
    """The command line that runs nginx on ``main`` with its files under its folder."""
    folder = main.parent
    return [NGINX, "-c", str(main), "-p", str(folder), "-e", str(folder / "error.log"), *args]


@pytest.mark.parametrize("name", ["single-node.conf", "many-nodes.conf"])
def test_nginx_accepts_the_configuration(name: str, tmp_path: Path) -> None:
    main = _configure(name, tmp_path, {})
    done = subprocess.run(_nginx(main, "-t"), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "syntax is ok" in done.stderr


def test_the_documents_show_the_files_as_they_are() -> None:
    # Every directive the deployment guide shows in an nginx block is in one of the files.
    doc = (ROOT / "docs" / "deployment.md").read_text()
    files = " ".join((SITES / name).read_text() for name in ("single-node.conf", "many-nodes.conf"))
    words = " ".join(files.split())
    for block in re.findall(r"```nginx\n(.*?)```", doc, re.DOTALL):
        for line in block.splitlines():
            directive = line.split("#", 1)[0].strip()
            if directive and directive not in ("{", "}") and not directive.startswith("..."):
                assert " ".join(directive.split()) in words, line


@contextlib.asynccontextmanager
async def _node(tmp_path: Path) -> AsyncIterator[tuple[int, str]]:
    """A node on 127.0.0.1 (its port) and a session token of one of its users."""
    store = open_store(f"sqlite:///{tmp_path / 'baccarat.db'}")
    user = store.create_user("alice", "password1", level=50, coins=100_000)
    token = store.create_session(user.user_id)
    server = TestServer(create_app(Server(store, parse_rooms(ROOMS))), host="127.0.0.1", port=0)
    await server.start_server()
    try:
        assert server.port is not None
        yield server.port, token
    finally:
        await server.close()
        store.close()


def _running(main: Path, port: int) -> contextlib.AbstractContextManager[None]:
    """nginx in the foreground until the block ends, once it listens on ``port``."""
    return listening(_nginx(main, "-g", "daemon off;"), port, "nginx")


async def _hello(http: aiohttp.ClientSession, url: str, token: str, origin: str) -> str:
    """The type of the first message a socket opened through ``url`` gets."""
    headers = {"Authorization": f"Bearer {token}", "Origin": origin}
    async with http.ws_connect(url, headers=headers, ssl=False) as ws:
        first = await asyncio.wait_for(ws.receive_json(), 10)
    return str(first["type"])


async def test_a_node_behind_the_single_node_configuration_answers_http_and_sockets(
    tmp_path: Path,
) -> None:
    plain, tls = free_port(), free_port()
    async with _node(tmp_path) as (port, token):
        main = _configure(
            "single-node.conf",
            tmp_path / "nginx",
            {
                "listen 80;": f"listen 127.0.0.1:{plain};",
                "listen 443 ssl;": f"listen 127.0.0.1:{tls} ssl;",
                "127.0.0.1:8000": f"127.0.0.1:{port}",
            },
        )
        public = f"https://127.0.0.1:{tls}"
        with _running(main, tls):
            async with aiohttp.ClientSession() as http:
                async with http.get(
                    f"http://127.0.0.1:{plain}/healthz", allow_redirects=False
                ) as moved:
                    assert moved.status == 301
                    assert moved.headers["Location"].startswith("https://")
                async with http.get(public + "/healthz", ssl=False) as health:
                    assert health.status == 200
                    assert "max-age=" in health.headers["Strict-Transport-Security"]
                    assert (await health.json())["ok"]
                wss = f"wss://127.0.0.1:{tls}/ws"
                assert await _hello(http, wss, token, public) == "hello"


async def test_each_nodes_path_behind_the_many_nodes_configuration_reaches_that_node(
    tmp_path: Path,
) -> None:
    plain, tls, down = free_port(), free_port(), free_port()
    async with _node(tmp_path) as (port, token):
        main = _configure(
            "many-nodes.conf",
            tmp_path / "nginx",
            {
                "listen 80;": f"listen 127.0.0.1:{plain};",
                "listen 443 ssl;": f"listen 127.0.0.1:{tls} ssl;",
                "127.0.0.1:8001": f"127.0.0.1:{port}",
                "127.0.0.1:8002": f"127.0.0.1:{down}",  # node b is down
            },
        )
        public = f"https://127.0.0.1:{tls}"
        with _running(main, tls):
            async with aiohttp.ClientSession() as http:
                for path, status in (("/node/a", 200), ("", 200), ("/node/b", 502)):
                    async with http.get(f"{public}{path}/healthz", ssl=False) as answer:
                        assert answer.status == status, path
                wss = f"wss://127.0.0.1:{tls}/node/a/ws"
                assert await _hello(http, wss, token, public) == "hello"
