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


def _run_and_kill(url: str, seeds: list[int], run_for: float) -> None:
    """Start one writer per seed, let them write for ``run_for`` seconds, SIGKILL them."""
    procs = [
        subprocess.Popen(
            [sys.executable, str(WRITER), url, str(seed)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in seeds
    ]
    try:
        for proc in procs:
            assert proc.stdout is not None and proc.stderr is not None
            line = proc.stdout.readline()
            assert line.strip() == "ready", proc.stderr.read()
        time.sleep(run_for)
    finally:
        for proc in procs:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
    assert [p.returncode for p in procs] == [-signal.SIGKILL] * len(procs)


def _assert_sound(store: Store) -> int:
    store.void_unfinished()
    report = store.audit()
    assert report.problems == []
    coins = store.total_coins()
    assert coins["total"] == 0 and coins["escrow"] == 0
    assert coins["users"] + coins["house"] == -coins["mint"]
    return report.rounds


def test_rounds_survive_sigkill_at_random_points(store: Store) -> None:
    rng = random.Random(20261129)
    for n in range(KILLS):
        _run_and_kill(store.url, [n], rng.uniform(0.05, 0.4))
    assert _assert_sound(store) > KILLS


def test_two_processes_writing_the_same_wallets_keep_the_ledger_sound(store: Store) -> None:
    # Both play with the same dealer and bettors; each voids the other's open rounds at start.
    _run_and_kill(store.url, [1, 2], 1.0)
    assert _assert_sound(store) > 0
