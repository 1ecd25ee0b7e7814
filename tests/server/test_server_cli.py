"""``baccarat serve`` as a person runs it: the demo plays, SIGTERM stops it cleanly."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from baccarat.store import open_store


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.load(resp)


def _wait(predicate: Any, what: str, limit: float = 60.0) -> Any:
    """Poll until ``predicate`` returns a truthy value (a bound on waiting, not a speed test)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            value = predicate()
        except OSError:
            value = None
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"gave up waiting for {what}")


def test_demo_serves_bots_play_and_sigterm_exits_cleanly(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "baccarat",
            "serve",
            "--demo",
            "--db",
            db,
            "--port",
            "0",
            "--speed",
            "20",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        while not any("open:" in line for line in lines):
            line = proc.stdout.readline()
            assert line, f"serve ended early: {proc.stderr.read() if proc.stderr else ''}"
            lines.append(line)
        base = re.search(r"http://[\d.]+:\d+", "".join(lines))
        assert base is not None
        url = base.group(0)
        assert any(db in line for line in lines)
        _wait(lambda: _get(url + "/healthz")["ok"], "healthz")

        def bots_played() -> bool:
            tables = _get(url + "/api/lobby")["tables"]
            return any(len(t["beads"]) >= 2 for t in tables)

        _wait(bots_played, "bots to play two rounds")
        lobby = _get(url + "/api/lobby")
        by_id = {t["table_id"]: t for t in lobby["tables"]}
        # One table with a bot dealer and free bettor seats, one with its dealer seat free.
        first, second = lobby["tables"][0], lobby["tables"][1]
        assert first["seats"][0] is not None and None in first["seats"][1:]
        assert by_id[second["table_id"]]["seats"][0] is None
        assert sum(s is not None for s in second["seats"][1:]) >= 1
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    store = open_store(db)
    try:
        report = store.audit()
        assert report.ok, report.problems
        assert report.rounds >= 2
        # Shutdown let every round in escrow finish or voided it: none is left open.
        assert store.void_unfinished() == []
        names = {u.username for u in store.list_users()}
        assert {"demo1", "demo2", "demo3", "dealer"} <= names
    finally:
        store.close()


def test_a_bad_rooms_file_refuses_to_start(tmp_path: Path) -> None:
    rooms = tmp_path / "rooms.toml"
    rooms.write_text(
        '[[rooms]]\nid = "odd"\nchip_unit = 150\ntables = ["odd-1"]\n', encoding="utf-8"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "baccarat",
            "serve",
            "--rooms",
            str(rooms),
            "--db",
            f"sqlite:///{tmp_path / 'x.db'}",
            "--port",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "multiple of 100" in done.stderr
    assert not (tmp_path / "x.db").exists()
