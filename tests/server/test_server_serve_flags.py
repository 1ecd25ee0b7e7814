"""``baccarat serve``'s documented flags work as the docs say."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path


def test_no_register_closes_registration(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    db = f"sqlite:///{tmp_path / 'x.db'}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "baccarat", "serve", "--db", db, "--port", "0", "--no-register"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        base = ""
        for line in proc.stdout:
            if line.startswith("open:"):
                base = line.split()[1].rstrip("/")
            if "Ctrl-C" in line:
                break
        assert base, "serve ended before it was ready"
        body = json.dumps({"username": "newbie", "password": "secret12"}).encode()
        request = urllib.request.Request(
            base + "/api/register", data=body, headers={"Content-Type": "application/json"}
        )
        try:
            urllib.request.urlopen(request, timeout=30)
            raise AssertionError("registration was accepted")
        except urllib.error.HTTPError as err:
            with err:
                assert err.code == 403
                assert json.load(err)["error"]["code"] == "registration_closed"
    finally:
        proc.terminate()
        assert proc.wait(timeout=60) == 0
        if proc.stdout is not None:
            proc.stdout.close()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _status(url: str, body: dict[str, str] | None = None, token: str | None = None) -> int:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, data=data, headers=headers), timeout=30
        ) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as err:
        with err:
            return int(err.code)


def test_metrics_listen_register_limits_and_the_metrics_token(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "BACCARAT_METRICS_TOKEN": "op-token"}
    db = f"sqlite:///{tmp_path / 'x.db'}"
    argv = [sys.executable, "-m", "baccarat", "serve", "--db", db, "--port", "0"]
    argv += ["--metrics-listen", f"127.0.0.1:{port}", "--register-per-ip", "1"]
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    try:
        assert proc.stdout is not None
        base, metrics_line = "", ""
        for line in proc.stdout:
            if line.startswith("open:"):
                base = line.split()[1].rstrip("/")
            if line.startswith("metrics:"):
                metrics_line = line.split()[1]
            if "Ctrl-C" in line:
                break
        assert base, "serve ended before it was ready"
        assert metrics_line == f"http://127.0.0.1:{port}/metrics"
        # The operator's own listener serves the metrics without a token.
        assert _status(metrics_line) == 200
        # The public listener serves them to the token only.
        assert _status(base + "/metrics") == 401
        assert _status(base + "/metrics", token="op-token") == 200
        # --register-per-ip 1: the second registration from this address is refused.
        assert _status(base + "/api/register", {"username": "a1", "password": "secret12"}) == 201
        assert _status(base + "/api/register", {"username": "a2", "password": "secret12"}) == 429
    finally:
        proc.terminate()
        assert proc.wait(timeout=60) == 0
        if proc.stdout is not None:
            proc.stdout.close()


def test_a_bad_metrics_address_or_register_limit_refuses_to_start(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    for flags, words in (
        (["--metrics-listen", "nowhere"], "HOST:PORT"),
        (["--register-per-ip", "0"], "at least 1"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "baccarat", "serve", "--db", db, "--port", "0", *flags],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, done.stderr
        assert words in done.stderr
