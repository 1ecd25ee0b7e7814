"""Crash safety: a writer killed with SIGKILL at random moments, restarted, again and again."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from baccarat.store import Store

KILLS = 15
WRITER = Path(__file__).with_name("crash_writer.py")


def _run_and_kill(url: str, seed: int, rng: random.Random) -> None:
    proc = subprocess.Popen(
        [sys.executable, str(WRITER), url, str(seed)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == "ready", proc.stderr.read() if proc.stderr else line
        time.sleep(rng.uniform(0.05, 0.4))
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        if proc.stdout:
            proc.stdout.close()
        if proc.stderr:
            proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL


def test_rounds_survive_sigkill_at_random_points(store: Store) -> None:
    rng = random.Random(20261129)
    for n in range(KILLS):
        _run_and_kill(store.url, n, rng)
    store.void_unfinished()
    report = store.audit()
    print(f"{report.rounds} rounds, {report.voided} voided")
    assert report.problems == []
    assert report.rounds > KILLS
    coins = store.total_coins()
    assert coins["total"] == 0 and coins["escrow"] == 0
    assert coins["users"] + coins["house"] == -coins["mint"]
