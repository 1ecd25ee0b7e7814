"""``baccarat bots``: bots that play on any server, each with its own account."""

from __future__ import annotations

import argparse
import asyncio
import random
import signal
import sys
from pathlib import Path

from baccarat.bots import STRATEGIES, Bot, BotPlan, run_bots
from baccarat.client import HttpError, login, register
from baccarat.errors import BaccaratError
from baccarat.server.logs import setup_logging

HELP = "run N bots against a server (they log in or register, sit, bet, squeeze and deal)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``bots``."""
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the server's base URL")
    parser.add_argument("--count", type=int, default=4, help="how many bots")
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
    parser.add_argument("--log-level", default="warning")


def _accounts(args: argparse.Namespace) -> list[tuple[str, str]]:
    if args.accounts is None:
        return [(f"{args.prefix}{i}", args.password) for i in range(1, args.count + 1)]
    out: list[tuple[str, str]] = []
    for line in args.accounts.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, password = line.partition(":")
            out.append((name.strip(), password))
    return out[: args.count]


async def _token(url: str, name: str, password: str, may_register: bool) -> str:
    while True:
        try:
            return await login(url, name, password)
        except HttpError as exc:
            if exc.code == "rate_limited":
                await asyncio.sleep(5.0)
                continue
            if exc.code != "bad_credentials" or not may_register:
                raise
        try:
            return await register(url, name, password)
        except HttpError as exc:
            if exc.code == "rate_limited":
                await asyncio.sleep(5.0)
                continue
            raise


async def _main(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    bots: list[Bot] = []
    for i, (name, password) in enumerate(_accounts(args)):
        token = await _token(args.url, name, password, args.accounts is None)
        strategy = STRATEGIES[i % len(STRATEGIES)] if args.strategy == "mixed" else args.strategy
        plan = BotPlan(strategy, args.table, may_deal=not args.no_deal)
        bots.append(Bot(args.url, token, plan, rng=random.Random(rng.random())))
    print(f"{len(bots)} bots playing at {args.url}; Ctrl-C stops them", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await run_bots(bots, stop)
    print(f"rounds bet: {sum(b.rounds_bet for b in bots)}", flush=True)
    return 0


def run(args: argparse.Namespace) -> int:
    """Run the bots until interrupted."""
    setup_logging(args.log_level)
    try:
        return asyncio.run(_main(args))
    except (BaccaratError, OSError) as exc:
        print(f"baccarat bots: {exc}", file=sys.stderr)
        return 1
