"""``baccarat serve``'s documented flags work as the docs say."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

from serving import free_port, run_serve, start_serve


def test_no_register_closes_registration(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    with start_serve("--db", db, "--no-register") as served:
        body = json.dumps({"username": "newbie", "password": "secret12"}).encode()
        request = urllib.request.Request(
            served.url + "/api/register", data=body, headers={"Content-Type": "application/json"}
        )
        try:
            urllib.request.urlopen(request, timeout=30)
            raise AssertionError("registration was accepted")
        except urllib.error.HTTPError as err:
            with err:
                assert err.code == 403
                assert json.load(err)["error"]["code"] == "registration_closed"
        assert served.stop() == 0


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
    port = free_port()
    db = f"sqlite:///{tmp_path / 'x.db'}"
    flags = ["--metrics-listen", f"127.0.0.1:{port}", "--register-per-ip", "1"]
    with start_serve("--db", db, *flags, env={"BACCARAT_METRICS_TOKEN": "op-token"}) as served:
        base = served.url
        metrics_line = next(line.split()[1] for line in served.lines if line.startswith("metrics:"))
        assert metrics_line == f"http://127.0.0.1:{port}/metrics"
        # The operator's own listener serves the metrics without a token.
        assert _status(metrics_line) == 200
        # The public listener serves them to the token only.
        assert _status(base + "/metrics") == 401
        assert _status(base + "/metrics", token="op-token") == 200
        # --register-per-ip 1: the second registration from this address is refused.
        assert _status(base + "/api/register", {"username": "a1", "password": "secret12"}) == 201
        assert _status(base + "/api/register", {"username": "a2", "password": "secret12"}) == 429
        assert served.stop() == 0


def test_a_bad_metrics_address_or_register_limit_refuses_to_start(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    for flags, words in (
        (["--metrics-listen", "nowhere"], "HOST:PORT"),
        (["--register-per-ip", "0"], "at least 1"),
    ):
        done = run_serve("--db", db, "--port", "0", *flags)
        assert done.returncode == 2, done.stderr
        assert words in done.stderr
