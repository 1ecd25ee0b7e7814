"""Crash safety: a writer killed with SIGKILL at random moments, restarted, again and again."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg

from baccarat.store import Store
from pgschema import PG_URL

KILLS = 15
WRITER = Path(__file__).with_name("crash_writer.py")


def _run_and_kill(url: str, seeds: list[int], run_for: float) -> None:
    """Start one writer per seed, let them write for ``run_for`` seconds, SIGKILL them.

    On PostgreSQL it returns once the killed writers' server processes are gone too: one
    may still finish a statement the writer sent before it died (a ``COMMIT`` among them),
    as after any crash, and the checks must come after that, as a new node's would.
    """
    name = f"crash_writer_{uuid.uuid4().hex[:12]}"
    if url.startswith("postgresql"):
        url = f"{url}{'&' if '?' in url else '?'}application_name={name}"
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
        if url.startswith("postgresql"):
            assert _backends(name) > 0, "the writers' connections do not carry their name"
        time.sleep(run_for)
    finally:
        for proc in procs:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
    assert [p.returncode for p in procs] == [-signal.SIGKILL] * len(procs)
    if url.startswith("postgresql"):
        _wait_for_backends_gone(name)


def _backends(name: str) -> int:
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", (name,)
        ).fetchone()
    return 0 if row is None else int(row[0])


def _wait_for_backends_gone(name: str) -> None:
    for _ in range(200):
        if _backends(name) == 0:
            return
        time.sleep(0.05)
    raise AssertionError(f"the killed writers' PostgreSQL backends ({name}) never ended")


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
