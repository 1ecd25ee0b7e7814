"""The server's log: readable lines on a terminal, JSON lines elsewhere or when asked."""

from __future__ import annotations

import json
import logging
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baccarat.logs import JsonFormatter, TextFormatter

READABLE = re.compile(r"^\d\d:\d\d:\d\d\.\d{3} (debug|info|warning|error|critical) +\S")


def _record(msg: str, **extra: object) -> logging.LogRecord:
    record = logging.LogRecord("baccarat.server", logging.INFO, __file__, 1, msg, (), None)
    record.__dict__.update(extra)
    return record


def test_a_readable_line_has_the_time_level_message_and_extras_as_key_value() -> None:
    record = _record("table taken", table_id="standard-1", seats=3, title="龍 桌", note="")
    line = TextFormatter().format(record)
    assert READABLE.match(line), line
    assert line.endswith('info    table taken table_id=standard-1 seats=3 title="龍 桌" note=""')


def test_a_json_line_keeps_every_field_for_the_machines() -> None:
    record = _record("table taken", table_id="standard-1", seats=3)
    out = json.loads(JsonFormatter().format(record))
    assert (out["level"], out["msg"], out["table_id"], out["seats"]) == (
        "info",
        "table taken",
        "standard-1",
        3,
    )


def _serve_on_a_terminal(tmp_path: Path, *flags: str) -> list[str]:
    """Start ``baccarat serve`` with its stderr on a pseudo-terminal, stop it once it is
    up, and return the lines it wrote there."""
    leader, follower = os.openpty()
    argv = [sys.executable, "-m", "baccarat", "serve", "--port", "0", *flags]
    argv += ["--db", f"sqlite:///{tmp_path / 'x.db'}"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=follower, text=True)
    os.close(follower)
    out = b""
    try:
        assert proc.stdout is not None
        while "Ctrl-C" not in proc.stdout.readline():
            assert proc.poll() is None, "serve ended before it was ready"
        proc.send_signal(signal.SIGTERM)
        end = time.monotonic() + 30
        while time.monotonic() < end:
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # the terminal's other end closed: serve has ended
                    break
                if not chunk:
                    break
                out += chunk
            elif proc.poll() is not None:
                break
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        os.close(leader)
    return [line for line in out.decode().splitlines() if line.strip()]


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")
def test_serve_on_a_terminal_logs_readable_lines(tmp_path: Path) -> None:
    lines = _serve_on_a_terminal(tmp_path)
    assert any("node running" in line for line in lines), lines
    # Each record starts a line; a message of many lines goes on, indented.
    assert all(READABLE.match(line) or line.startswith("    ") for line in lines), lines
    assert not any(line.lstrip().startswith("{") for line in lines)


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")
def test_serve_logs_json_on_a_terminal_when_asked(tmp_path: Path) -> None:
    lines = _serve_on_a_terminal(tmp_path, "--log-format", "json")
    records = [json.loads(line) for line in lines]
    assert "node running" in [r["msg"] for r in records]
