"""The shipped HAProxy configuration, ``deploy/haproxy/haproxy.cfg``: HAProxy accepts it, and
in front of real nodes its active health checks take a frozen node out of the public
address by themselves, so no request waits on it.

The file is run as shipped but for what differs on a test machine: its listening ports, its
nodes' addresses (free ports on 127.0.0.1) and its certificate (one made for the test).
Node a is frozen with SIGSTOP: its port still accepts TCP, which a proxy with only passive
checks cannot tell from a slow node.
"""

from __future__ import annotations

import contextlib
import http.client
import shutil
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from serving import free_port, start_serve, wait_until

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "deploy" / "haproxy" / "haproxy.cfg"
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
OPENSSL = shutil.which("openssl")
CERTIFICATE = "/etc/haproxy/certs/cards.example.com.pem"

pytestmark = [
    pytest.mark.skipif(
        not Path(HAPROXY).exists(), reason="HAProxy is not installed (apt-get install haproxy)"
    ),
    pytest.mark.skipif(OPENSSL is None, reason="openssl is not installed (for a certificate)"),
]


def _configure(folder: Path, swaps: dict[str, str]) -> Path:
    """The shipped file with the test's certificate and ``swaps`` made (each must be there)."""
    assert OPENSSL is not None
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    both = folder / "both.pem"
    both.write_text(cert.read_text() + key.read_text())
    text = SHIPPED.read_text()
    for old, new in {CERTIFICATE: str(both), **swaps}.items():
        assert old in text, f"the shipped file has no {old!r}"
        text = text.replace(old, new)
    path = folder / "haproxy.cfg"
    path.write_text(text)
    return path


@contextlib.contextmanager
def _running(config: Path, port: int) -> Iterator[None]:
    """HAProxy in the foreground until the block ends, once it listens on ``port``."""
    proc = subprocess.Popen(
        [HAPROXY, "-db", "-f", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        for _ in range(200):
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            time.sleep(0.05)
        else:
            raise AssertionError("HAProxy does not listen")
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def _status(url: str, timeout: float = 3.0) -> int:
    insecure = ssl.create_default_context()
    insecure.check_hostname = False
    insecure.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(url, timeout=timeout, context=insecure) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        with exc:
            return int(exc.code)


def test_haproxy_accepts_the_shipped_configuration(tmp_path: Path) -> None:
    config = _configure(tmp_path, {})
    done = subprocess.run([HAPROXY, "-c", "-f", str(config)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + done.stdout


def test_a_frozen_node_is_taken_out_of_the_public_address_by_the_health_checks(
    tmp_path: Path,
) -> None:
    plain, tls, c = free_port(), free_port(), free_port()
    a = start_serve("--db", f"sqlite:///{tmp_path / 'a.db'}", port=free_port())
    b = start_serve("--db", f"sqlite:///{tmp_path / 'b.db'}", port=free_port())
    with a, b:
        config = _configure(
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
        with _running(config, tls):
            wait_until(lambda: _status(f"{public}/node/a/healthz") == 200, "node a checked up")
            wait_until(lambda: _status(f"{public}/node/b/healthz") == 200, "node b checked up")
            wait_until(
                lambda: _status(f"{public}/node/c/healthz", timeout=1.0) == 503,
                "node c, which is down, checked out",
            )
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
                    started = time.monotonic()
                    assert _status(f"{public}/healthz", timeout=2.0) == 200
                    assert time.monotonic() - started < 1.0
            finally:
                a.proc.send_signal(signal.SIGCONT)
            wait_until(lambda: _status(f"{public}/node/a/healthz") == 200, "node a back")
    print(f"a frozen node was out of the address {out_after:.1f} s after it froze")
    assert out_after < 5.0
