"""The shipped HAProxy configuration, ``deploy/haproxy/haproxy.cfg``: HAProxy accepts it, and
in front of real nodes its active health checks take a frozen node out of the public
address by themselves, so no request waits on it.

The file is run as shipped but for what differs on a test machine: its listening ports, its
nodes' addresses (free ports on 127.0.0.1) and its certificate (one made for the test).
Node a is frozen with SIGSTOP: its port still accepts TCP, which a proxy with only passive
checks cannot tell from a slow node.
"""

from __future__ import annotations

import http.client
import signal
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path

from haproxy import HAPROXY, NEEDED, configure, running
from serving import free_port, start_serve, wait_until

pytestmark = NEEDED


def _answer(url: str, timeout: float = 3.0) -> tuple[int, dict[str, str], str]:
    insecure = ssl.create_default_context()
    insecure.check_hostname = False
    insecure.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(url, timeout=timeout, context=insecure) as answer:
            return int(answer.status), _lower(answer.headers), answer.read().decode()
    except urllib.error.HTTPError as exc:
        with exc:
            return int(exc.code), _lower(exc.headers), exc.read().decode()


def _lower(headers: Message) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}


def _status(url: str, timeout: float = 3.0) -> int:
    return _answer(url, timeout)[0]


def test_haproxy_accepts_the_shipped_configuration(tmp_path: Path) -> None:
    config = configure(tmp_path, {})
    done = subprocess.run([HAPROXY, "-c", "-f", str(config)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + done.stdout


def test_a_frozen_node_is_taken_out_of_the_public_address_by_the_health_checks(
    tmp_path: Path,
) -> None:
    plain, tls, c = free_port(), free_port(), free_port()
    a = start_serve("--db", f"sqlite:///{tmp_path / 'a.db'}", port=free_port())
    b = start_serve("--db", f"sqlite:///{tmp_path / 'b.db'}", port=free_port())
    with a, b:
        config = configure(
            tmp_path,
            {
                "bind :80": f"bind 127.0.0.1:{plain}",
                "bind :443": f"bind 127.0.0.1:{tls}",
                "127.0.0.1:8001": a.url.removeprefix("http://"),
                "127.0.0.1:8002": b.url.removeprefix("http://"),
                "127.0.0.1:8003": f"127.0.0.1:{c}",  # node c is down
            },
        )
        public = f"https://127.0.0.1:{tls}"
        with running(config, tls):
            wait_until(lambda: _status(f"{public}/node/a/healthz") == 200, "node a checked up")
            wait_until(lambda: _status(f"{public}/node/b/healthz") == 200, "node b checked up")
            wait_until(
                lambda: _status(f"{public}/node/c/healthz", timeout=1.0) == 503,
                "node c, which is down, checked out",
            )
            # The proxy's own answer for a node that is out: a page that tries again by
            # itself, never a bare error page.
            status, headers, page = _answer(f"{public}/node/c/")
            assert status == 503 and headers["retry-after"] == "5", headers
            assert "重新連線中" in page and "location.reload()" in page
            plain_http = http.client.HTTPConnection("127.0.0.1", plain, timeout=3)
            plain_http.request("GET", "/healthz")
            moved = plain_http.getresponse()
            assert moved.status == 301 and moved.headers["Location"].startswith("https://")
            plain_http.close()
            a.proc.send_signal(signal.SIGSTOP)
            try:
                # Within two checks node a is out: its path answers 503 at once, and the
                # address itself goes to node b, every time, without waiting on node a.
                frozen = time.monotonic()
                wait_until(
                    lambda: _status(f"{public}/node/a/healthz", timeout=1.0) == 503,
                    "node a taken out by the health checks",
                    limit=10,
                )
                out_after = time.monotonic() - frozen
                for _ in range(10):
                    # A request sent to the frozen node would hang past this timeout.
                    assert _status(f"{public}/healthz", timeout=2.0) == 200
            finally:
                a.proc.send_signal(signal.SIGCONT)
            wait_until(lambda: _status(f"{public}/node/a/healthz") == 200, "node a back")
    print(f"a frozen node was out of the address {out_after:.1f} s after it froze")
    assert out_after < 5.0


def test_the_address_falls_back_to_every_node_when_every_check_fails(tmp_path: Path) -> None:
    # Envoy's panic threshold, in HAProxy: were every node's check to fail at once (here
    # the checks ask a path no node has), the public address goes to all the nodes rather
    # than to none; each node's own path, which has no fallback, is out.
    tls = free_port()
    a = start_serve("--db", f"sqlite:///{tmp_path / 'a.db'}", port=free_port())
    with a:
        config = configure(
            tmp_path,
            {
                "bind :80": f"bind 127.0.0.1:{free_port()}",
                "bind :443": f"bind 127.0.0.1:{tls}",
                "uri /readyz": "uri /no-such-check",
                "127.0.0.1:8001": a.url.removeprefix("http://"),
                "127.0.0.1:8002": f"127.0.0.1:{free_port()}",
                "127.0.0.1:8003": f"127.0.0.1:{free_port()}",
            },
        )
        public = f"https://127.0.0.1:{tls}"
        with running(config, tls):
            wait_until(
                lambda: _status(f"{public}/node/a/readyz", timeout=1.0) == 503,
                "node a checked out",
            )
            # The fallback's own checks find the two closed ports within two of them.
            wait_until(
                lambda: _status(f"{public}/readyz", timeout=3.0) == 200, "fallback to node a"
            )
            for _ in range(5):
                assert _status(f"{public}/readyz", timeout=3.0) == 200
            status, _, page = _answer(f"{public}/")
            assert status == 200 and "<html" in page.lower()
