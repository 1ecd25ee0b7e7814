"""The shipped HAProxy configuration run by a test: ``deploy/haproxy/haproxy.cfg`` as shipped
but for its listening ports, its nodes' addresses and its certificate (one made for the test).
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from pathlib import Path

import pytest

from serving import listening

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "deploy" / "haproxy" / "haproxy.cfg"
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
OPENSSL = shutil.which("openssl")
CERTIFICATE = "/etc/haproxy/certs/cards.example.com.pem"
ERROR_PAGE = "/etc/haproxy/errors/baccarat-unavailable.http"
SHIPPED_ERROR_PAGE = SHIPPED.parent / "errors" / "unavailable.http"

NEEDED = [
    pytest.mark.skipif(
        not Path(HAPROXY).exists(), reason="HAProxy is not installed (apt-get install haproxy)"
    ),
    pytest.mark.skipif(OPENSSL is None, reason="openssl is not installed (for a certificate)"),
]


TLS_BIND = "bind :443 ssl crt /etc/haproxy/certs/cards.example.com.pem alpn http/1.1"


def configure(folder: Path, swaps: dict[str, str]) -> Path:
    """The shipped file with the test's certificate and ``swaps`` made (each must be there;
    swapping ``TLS_BIND`` listens without TLS, for clients that would refuse the test's
    certificate)."""
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
    for old, new in swaps.items():
        assert old in text, f"the shipped file has no {old!r}"
        text = text.replace(old, new)
    assert CERTIFICATE in text or TLS_BIND in swaps, f"the shipped file has no {CERTIFICATE!r}"
    text = text.replace(CERTIFICATE, str(both))
    assert ERROR_PAGE in text, f"the shipped file has no {ERROR_PAGE!r}"
    text = text.replace(ERROR_PAGE, str(SHIPPED_ERROR_PAGE))
    path = folder / "haproxy.cfg"
    path.write_text(text)
    return path


def running(config: Path, port: int) -> contextlib.AbstractContextManager[None]:
    """HAProxy in the foreground until the block ends, once it listens on ``port``."""
    return listening([HAPROXY, "-db", "-f", str(config)], port, "HAProxy")
