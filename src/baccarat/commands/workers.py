"""``baccarat serve --workers N``: N nodes of one system on one machine, one per core.

One Python process drives one core, so a machine of N cores runs N nodes. Each worker is a
whole node (``baccarat serve`` in a process of its own) on a port of its own (``--port`` +
i) with its own node id and public URL; the workers share the database and Redis exactly as
nodes on different machines do, and the proxy in front routes to each (docs/deployment.md).
The parent only starts them, passes a stop on (SIGTERM, SIGINT: rounds in play finish
first) and starts again a worker that died, as a supervisor would.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import signal
import sys
import time
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from types import FrameType

from baccarat.errors import BaccaratError
from baccarat.server.config import split_address

log = logging.getLogger("baccarat.server")

NUMBER = "{n}"
"""What a worker's number replaces in ``--public-url`` and ``--node-id``."""

STOP_GRACE = 120.0
"""Seconds a stopping worker has to finish its round and close; then it is killed."""

RESTART_MAX = 30.0
"""The longest pause before starting a worker that died again (the pause doubles)."""

STEADY = 60.0
"""A worker that ran this many seconds before dying is started again after 1 s."""

Serve = Callable[[argparse.Namespace], int]


def check(args: argparse.Namespace, metrics_listen: str) -> None:
    """Refuse a ``--workers`` command line that cannot make one system, saying why."""
    if args.workers < 1:
        raise BaccaratError("bad_config", f"--workers must be at least 1, not {args.workers}.")
    if args.workers == 1:
        return
    if not args.redis:
        raise BaccaratError(
            "bad_config",
            "--workers runs several nodes of one system: they share tables, seats and the "
            "lobby through Redis; give --redis URL.",
        )
    if args.port == 0:
        raise BaccaratError(
            "bad_config", "--workers needs a fixed --port: worker i listens on PORT+i."
        )
    if (args.db or "").rstrip("/").endswith((":memory:", "sqlite://")):
        raise BaccaratError(
            "bad_config", "--workers needs a database the workers share, not one in memory."
        )
    for flag, value in (("--public-url", args.public_url), ("--node-id", args.node_id)):
        if value and NUMBER not in value:
            raise BaccaratError(
                "bad_config",
                f"With --workers, {flag} names each worker: put {NUMBER} where its number "
                f"goes (such as https://cards.example.com/node/{NUMBER}).",
            )
    if args.port + args.workers - 1 > 65535:
        raise BaccaratError("bad_config", "--port + --workers runs past port 65535.")
    if metrics_listen:
        port = split_address(metrics_listen)[1]
        if port == 0 or port + args.workers - 1 > 65535:
            raise BaccaratError(
                "bad_config", "--workers needs a fixed metrics port: worker i serves PORT+i."
            )


def worker_args(args: argparse.Namespace, n: int, metrics_listen: str) -> argparse.Namespace:
    """The command line of worker ``n`` (from 0)."""
    out = argparse.Namespace(**vars(args))
    out.workers = 1
    out.share = (n, args.workers)
    out.port = args.port + n
    if args.public_url:
        out.public_url = args.public_url.replace(NUMBER, str(n))
    if args.node_id:
        out.node_id = args.node_id.replace(NUMBER, str(n))
    if metrics_listen:
        host, _, port = metrics_listen.rpartition(":")  # the host as written ([::1] too)
        out.metrics_listen = f"{host}:{int(port) + n}"
    # One set of demo bots for the system, from the first worker.
    out.demo = args.demo and n == 0
    return out


def run(args: argparse.Namespace, metrics_listen: str, serve: Serve) -> int:
    """Run the workers until a stop; 0 when each stopped cleanly, 2 if one refused to start."""
    spawn = multiprocessing.get_context("spawn")
    # A plain flag: a signal handler that took a lock (``threading.Event.set``) could find it
    # held by the very thread it interrupted.
    stopping: list[int] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.append(signum)

    def wait(seconds: float) -> bool:
        """Sleep up to ``seconds``; whether a stop was asked for."""
        end = time.monotonic() + seconds
        while not stopping and time.monotonic() < end:
            time.sleep(0.1)
        return bool(stopping)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    print(
        f"workers:  {args.workers} nodes on ports {args.port}-{args.port + args.workers - 1}",
        flush=True,
    )

    def start(n: int) -> BaseProcess:
        proc = spawn.Process(
            target=_worker, args=(serve, worker_args(args, n, metrics_listen)), name=f"worker-{n}"
        )
        proc.start()
        return proc

    procs = {n: start(n) for n in range(args.workers)}
    started = dict.fromkeys(procs, time.monotonic())
    pauses = dict.fromkeys(procs, 1.0)
    status = 0
    while not wait(0.5):
        for n, proc in procs.items():
            if proc.is_alive():
                continue
            if proc.exitcode == 2:
                # A configuration the worker refuses (its own message is above): it would
                # refuse again, so the system stops.
                log.error("worker refused to start", extra={"worker": n})
                status = 2
                stopping.append(0)
                break
            if time.monotonic() - started[n] > STEADY:
                pauses[n] = 1.0
            log.warning(
                "worker died; starting it again",
                extra={"worker": n, "exitcode": proc.exitcode, "after_s": pauses[n]},
            )
            if wait(pauses[n]):
                break
            pauses[n] = min(pauses[n] * 2, RESTART_MAX)
            procs[n] = start(n)
            started[n] = time.monotonic()
    for proc in procs.values():
        if proc.is_alive() and proc.pid is not None:
            proc.terminate()
    for proc in procs.values():
        proc.join(STOP_GRACE)
        if proc.is_alive():
            proc.kill()
            proc.join()
        if status == 0 and proc.exitcode not in (0, -signal.SIGTERM):
            status = 1
    return status


def _worker(serve: Serve, args: argparse.Namespace) -> None:
    """A worker's process: one node, to its stop."""
    sys.exit(serve(args))
