"""``baccarat bots``: bots that play on any server, each with its own account.

The bots run as separate processes (``--processes``, by default one per bot up to
``MAX_PROCESSES``), each with its own asyncio loop. The parent only starts them, prints their
process ids, and on Ctrl-C or SIGTERM stops them all and reports the rounds they bet.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import signal
import sys
import urllib.request
from dataclasses import dataclass
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from multiprocessing.queues import SimpleQueue
from pathlib import Path
from types import FrameType

import aiohttp

from baccarat.api import HttpError, login, register
from baccarat.bots import STRATEGIES, Bot, BotPlan, run_bots
from baccarat.commands import options
from baccarat.errors import BaccaratError
from baccarat.logs import setup_logging

HELP = "run N bots against a server (they log in or register, sit, bet, squeeze and deal)"
ABOUT = """\
The bots run in their own processes, each with its own account; Ctrl-C or SIGTERM stops
them and the rounds they bet are reported. A --table the server's lobby does not list is
refused before any bot starts."""

MAX_PROCESSES = 16
"""The default caps the processes here; more bots share them."""
STOP_WAIT = 15.0
"""Seconds a bot process has to close its connections after SIGTERM before it is killed."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``bots``."""
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the server's base URL")
    parser.add_argument(
        "--other-node",
        action="append",
        default=[],
        metavar="URL",
        help="another node of the same system, asked where a table runs when the bot's "
        "node stops answering (repeatable)",
    )
    parser.add_argument("--count", type=int, default=4, help="how many bots")
    parser.add_argument(
        "--processes",
        type=int,
        help=f"how many OS processes share the bots (default: one per bot, at most {MAX_PROCESSES})",
    )
    parser.add_argument(
        "--accounts",
        type=Path,
        help="file of NAME:PASSWORD lines to log in with (else bot accounts are registered)",
    )
    parser.add_argument("--prefix", default="bot", help="name prefix of registered bots")
    parser.add_argument("--password", default="bot-password", help="password of registered bots")
    parser.add_argument("--table", help="play at this table (default: pick from the lobby)")
    parser.add_argument(
        "--strategy", choices=(*STRATEGIES, "mixed"), default="mixed", help="betting strategy"
    )
    parser.add_argument("--no-deal", action="store_true", help="never take the dealer seat")
    parser.add_argument("--seed", type=int, help="random seed, for a repeatable run")
    parser.add_argument(
        "--log-level", default="warning", help="debug, info, warning, error (default warning)"
    )


@dataclass(frozen=True)
class Account:
    """One bot's login and play: what its process needs to know of it."""

    name: str
    password: str
    strategy: str
    seed: float


@dataclass(frozen=True)
class Crew:
    """The bots one process runs, and how they play."""

    url: str
    accounts: tuple[Account, ...]
    table_id: str | None
    may_deal: bool
    may_register: bool
    log_level: str
    other_nodes: tuple[str, ...] = ()


def _logins(args: argparse.Namespace) -> list[tuple[str, str]]:
    if args.accounts is None:
        return [(f"{args.prefix}{i}", args.password) for i in range(1, args.count + 1)]
    out: list[tuple[str, str]] = []
    for line in args.accounts.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, password = line.partition(":")
            out.append((name.strip(), password))
    return out[: args.count]


def crews(args: argparse.Namespace) -> list[Crew]:
    """The bots dealt round-robin to the processes, strategies and seeds fixed up front."""
    rng = random.Random(args.seed)
    accounts = [
        Account(
            name,
            password,
            STRATEGIES[i % len(STRATEGIES)] if args.strategy == "mixed" else args.strategy,
            rng.random(),
        )
        for i, (name, password) in enumerate(_logins(args))
    ]
    wanted = args.processes if args.processes is not None else MAX_PROCESSES
    n = max(1, min(wanted, len(accounts)))
    return [
        Crew(
            args.url,
            tuple(accounts[i::n]),
            args.table,
            not args.no_deal,
            args.accounts is None,
            args.log_level,
            tuple(args.other_node),
        )
        for i in range(n)
    ]


async def _token(url: str, name: str, password: str, may_register: bool) -> str:
    while True:
        try:
            return await login(url, name, password)
        except HttpError as exc:
            if exc.code in ("rate_limited", "server_busy"):
                await asyncio.sleep(5.0)
                continue
            if exc.code != "bad_credentials" or not may_register:
                raise
        try:
            return await register(url, name, password)
        except HttpError as exc:
            if exc.code == "server_busy":
                await asyncio.sleep(5.0)
                continue
            if exc.code == "rate_limited":
                # Registration limits are counted in hours: waiting would look like a hang.
                raise HttpError(
                    exc.status,
                    exc.code,
                    f"{exc} The server limits registrations per address: start it with "
                    "--register-per-ip N (and --register-per-hour N), or give the bots "
                    "existing accounts with --accounts FILE.",
                ) from None
            raise


async def _watch_parent(parent: int, stop: asyncio.Event) -> None:
    # A parent killed outright cannot stop its bots: they notice they were orphaned.
    while not stop.is_set():
        if os.getppid() != parent:
            stop.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)


async def _play(crew: Crew, parent: int) -> int:
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    bots: list[Bot] = []
    for account in crew.accounts:
        token = await _token(crew.url, account.name, account.password, crew.may_register)
        plan = BotPlan(account.strategy, crew.table_id, may_deal=crew.may_deal)
        bot = Bot(crew.url, token, plan, rng=random.Random(account.seed))
        bot.route.remember(crew.other_nodes)
        bots.append(bot)
    watcher = asyncio.create_task(_watch_parent(parent, stop))
    await run_bots(bots, stop)
    await watcher
    return sum(b.rounds_bet for b in bots)


def play_crew(crew: Crew, parent: int, results: SimpleQueue[tuple[int, int, str]]) -> None:
    """A bot process: log in its bots and play until SIGTERM; report ``(pid, rounds, error)``."""
    setup_logging(crew.log_level)
    try:
        rounds = asyncio.run(_play(crew, parent))
    except (BaccaratError, OSError, aiohttp.ClientError, ValueError) as exc:
        # A refused login, a server that is not there or answers something else.
        results.put((os.getpid(), 0, str(exc) or type(exc).__name__))
        raise SystemExit(1) from None
    results.put((os.getpid(), rounds, ""))


class _Stop:
    """Set by SIGINT or SIGTERM in the parent."""

    def __init__(self) -> None:
        self.set = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.set = True


def _start(crew_list: list[Crew], results: SimpleQueue[tuple[int, int, str]]) -> list[BaseProcess]:
    ctx = multiprocessing.get_context("spawn")
    # Ctrl-C reaches the whole process group: the children ignore it (the ignoring is
    # inherited) and stop on the SIGTERM the parent sends them, so each stops exactly once.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    procs: list[BaseProcess] = []
    try:
        for i, crew in enumerate(crew_list, start=1):
            proc = ctx.Process(
                target=play_crew, args=(crew, os.getpid(), results), name=f"bots-{i}"
            )
            proc.start()
            procs.append(proc)
    finally:
        signal.signal(signal.SIGINT, previous)
    return procs


def _stop_all(procs: list[BaseProcess]) -> None:
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    for proc in procs:
        proc.join(STOP_WAIT)
        if proc.is_alive():
            proc.kill()
            proc.join()


def run(args: argparse.Namespace) -> int:
    """Run the bots in their processes until interrupted."""
    refusal = _refusal(args)
    if refusal is not None:
        print(f"baccarat bots: {refusal}", file=sys.stderr)
        return 2
    crew_list = _read_crews(args)
    if crew_list is None:
        return 1
    stop = _Stop()
    old = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    results: SimpleQueue[tuple[int, int, str]] = multiprocessing.get_context("spawn").SimpleQueue()
    procs = _start(crew_list, results)
    try:
        _print_started(args.url, procs, crew_list)
        failed = _watch(procs, stop)
    finally:
        _stop_all(procs)
        for sig, handler in old.items():
            signal.signal(sig, handler)
    rounds, errors = _collect(results)
    for error in errors:
        print(f"baccarat bots: {error}", file=sys.stderr)
    if failed or errors:
        return 1
    print(f"rounds bet: {rounds}", flush=True)
    return 0


def _refusal(args: argparse.Namespace) -> str | None:
    """What is wrong with the options, the server's URL, or ``--table`` at that server: a
    table its lobby does not list would never seat a bot, so it is said before any starts."""
    if args.count < 1 or (args.processes is not None and args.processes < 1):
        return "--count and --processes must be at least 1"
    try:
        options.verify_http_url("--url", args.url)
    except BaccaratError as exc:
        return exc.message
    return None if args.table is None else _unlisted(args.url, args.table)


def _unlisted(url: str, table: str) -> str | None:
    """Why ``table`` cannot be played at the server at ``url`` (its lobby does not list it,
    or cannot be read), or None."""
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/api/lobby", timeout=10) as resp:
            tables = [str(t["table_id"]) for t in json.load(resp)["tables"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"the lobby at {url} cannot be read ({exc}): is the server running there?"
    if table in tables:
        return None
    shown = ", ".join(tables[:10]) + (", ..." if len(tables) > 10 else "")
    return f"there is no table {table!r} at {url}; its tables are {shown or 'none'}"


def _read_crews(args: argparse.Namespace) -> list[Crew] | None:
    """The bots' crews, or None (said on stderr) when there are no accounts to play with."""
    try:
        crew_list = crews(args)
    except OSError as exc:
        print(f"baccarat bots: {exc}", file=sys.stderr)
        return None
    if not crew_list[0].accounts:
        print(f"baccarat bots: no account in {args.accounts}", file=sys.stderr)
        return None
    return crew_list


def _print_started(url: str, procs: list[BaseProcess], crew_list: list[Crew]) -> None:
    for proc, crew in zip(procs, crew_list, strict=True):
        print(f"pid {proc.pid}: {', '.join(a.name for a in crew.accounts)}", flush=True)
    bots = sum(len(c.accounts) for c in crew_list)
    print(
        f"{bots} bots start at {url} in {len(procs)} processes; Ctrl-C stops them",
        flush=True,
    )


def _watch(procs: list[BaseProcess], stop: _Stop) -> bool:
    """Wait for a signal or for every process to end; True if one of them failed."""
    while not stop.set:
        wait([p.sentinel for p in procs], timeout=0.25)
        if any(p.exitcode not in (None, 0) for p in procs):
            # A process that could not log in: the run as a whole failed.
            return True
        if all(p.exitcode is not None for p in procs):
            break
    return False


def _collect(results: SimpleQueue[tuple[int, int, str]]) -> tuple[int, list[str]]:
    """The rounds every process bet, and their distinct errors in the order they came."""
    rounds = 0
    errors: list[str] = []
    while not results.empty():
        _, n, error = results.get()
        rounds += n
        if error and error not in errors:
            errors.append(error)
    return rounds, errors
