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
    _check_names(args)
    _check_ports(args, metrics_listen)


def _check_names(args: argparse.Namespace) -> None:
    """Refuse a ``--public-url`` or ``--node-id`` that would give every worker the same."""
    for flag, value in (("--public-url", args.public_url), ("--node-id", args.node_id)):
        if value and NUMBER not in value:
            raise BaccaratError(
                "bad_config",
                f"With --workers, {flag} names each worker: put {NUMBER} where its number "
                f"goes (such as https://cards.example.com/node/{NUMBER}).",
            )


def _check_ports(args: argparse.Namespace, metrics_listen: str) -> None:
    """Refuse ports that run past the last one, or a metrics port picked at random."""
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
    team = _Workers(args, metrics_listen, serve)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, team.on_signal)
    print(
        f"workers:  {args.workers} nodes on ports {args.port}-{args.port + args.workers - 1}",
        flush=True,
    )
    team.start_all()
    return team.stop(team.watch())


class _Workers:
    """The worker processes: started, started again when one dies, and stopped."""

    def __init__(self, args: argparse.Namespace, metrics_listen: str, serve: Serve) -> None:
        self.args = args
        self.metrics_listen = metrics_listen
        self.serve = serve
        self.spawn = multiprocessing.get_context("spawn")
        # A plain flag: a signal handler that took a lock (``threading.Event.set``) could find
        # it held by the very thread it interrupted.
        self.stopping: list[int] = []
        self.procs: dict[int, BaseProcess] = {}
        self.started: dict[int, float] = {}
        self.pauses: dict[int, float] = {}

    def on_signal(self, signum: int, frame: FrameType | None) -> None:
        """Ask for a stop (SIGTERM, SIGINT)."""
        self.stopping.append(signum)

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; whether a stop was asked for."""
        end = time.monotonic() + seconds
        while not self.stopping and time.monotonic() < end:
            time.sleep(0.1)
        return bool(self.stopping)

    def start(self, n: int) -> BaseProcess:
        """Start worker ``n`` in a process of its own."""
        proc = self.spawn.Process(
            target=_worker,
            args=(self.serve, worker_args(self.args, n, self.metrics_listen)),
            name=f"worker-{n}",
        )
        proc.start()
        return proc

    def start_all(self) -> None:
        """Start every worker."""
        self.procs = {n: self.start(n) for n in range(self.args.workers)}
        self.started = dict.fromkeys(self.procs, time.monotonic())
        self.pauses = dict.fromkeys(self.procs, 1.0)

    def watch(self) -> int:
        """Start again each worker that dies, until a stop; 2 if one refused to start."""
        while not self.wait(0.5):
            for n, proc in self.procs.items():
                if proc.is_alive():
                    continue
                if proc.exitcode == 2:
                    # A configuration the worker refuses (its own message is above): it would
                    # refuse again, so the system stops.
                    log.error("worker refused to start", extra={"worker": n})
                    self.stopping.append(0)
                    return 2
                if not self.restart(n, proc):
                    break
        return 0

    def restart(self, n: int, dead: BaseProcess) -> bool:
        """Start worker ``n`` again after a pause that doubles while it keeps dying; False if
        a stop came during the pause."""
        if time.monotonic() - self.started[n] > STEADY:
            self.pauses[n] = 1.0
        log.warning(
            "worker died; starting it again",
            extra={"worker": n, "exitcode": dead.exitcode, "after_s": self.pauses[n]},
        )
        if self.wait(self.pauses[n]):
            return False
        self.pauses[n] = min(self.pauses[n] * 2, RESTART_MAX)
        self.procs[n] = self.start(n)
        self.started[n] = time.monotonic()
        return True

    def stop(self, status: int) -> int:
        """Stop every worker, killing one still running after :data:`STOP_GRACE`; ``status``,
        or 1 if a worker did not stop cleanly."""
        for proc in self.procs.values():
            if proc.is_alive() and proc.pid is not None:
                proc.terminate()
        for proc in self.procs.values():
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
