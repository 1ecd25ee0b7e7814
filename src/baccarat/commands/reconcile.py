"""``baccarat reconcile``: the game's transfers beside the platform's report of a period.

Exits 0 when they agree, 1 when a difference is found (each is printed), 2 when either
side cannot be read.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import math
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import aiohttp

from baccarat.commands import jsonin
from baccarat.commands.admin import add_db_option, run_with_store
from baccarat.errors import BaccaratError
from baccarat.platform import config as platform_config
from baccarat.platform import signing
from baccarat.platform.config import PlatformConfig
from baccarat.platform.report import (
    MARGIN,
    Entry,
    differences,
    net_entries,
    platform_entries,
    platform_transactions,
)
from baccarat.store import Store
from baccarat.store.wallet import CLOSED, CREDIT, DEBIT, DONE, WalletCall

HELP = "compare the game's transfers with the platform's report of a period"
ABOUT = """\
Reads the game's transfers (a transfer wallet) or its round totals (a seamless wallet)
from the database, and the platform's report from its wallet_url (signed) or from
--report FILE, and prints every difference: missing_in_game, missing_at_platform,
user_differs, amount_differs (docs/integration.md, "Reconciliation"). Without --db it
reads the default database, which must exist. Exit status 0: they agree; 1: a difference;
2: either side cannot be read."""


def _when(text: str) -> float:
    """Unix seconds, or an ISO 8601 date or time (UTC unless it says otherwise)."""
    try:
        return float(text)
    except ValueError:
        pass
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither Unix seconds nor ISO 8601") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.timestamp()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--platform FILE``, the period, ``--report FILE``, ``--db URL``, ``--json``."""
    add_db_option(parser)
    parser.add_argument("--platform", required=True, metavar="FILE", help="the platform's file")
    parser.add_argument(
        "--from", dest="start", type=_when, help="the period's start (default: a day ago)"
    )
    parser.add_argument("--to", dest="end", type=_when, help="the period's end (default: now)")
    parser.add_argument(
        "--report",
        metavar="FILE",
        help="the platform's report as a JSON file, instead of asking its wallet_url",
    )
    parser.add_argument("--json", action="store_true", help="print the differences as JSON")


async def _fetch(config: PlatformConfig, start: float, end: float) -> Any:
    if config.wallet_url is None:
        raise BaccaratError("bad_config", "The platform file names no wallet_url to ask.")
    listing = "transactions" if config.wallet == "seamless" else "transfers"
    # Whole seconds, as docs/integration.md promises: the period widened to the second.
    period = {"from": math.floor(start), "to": math.ceil(end)}
    url = f"{config.wallet_url}/{listing}?{urlencode(period)}"
    parts = urlsplit(url)
    path_qs = parts.path + (f"?{parts.query}" if parts.query else "")
    headers = signing.sign(config.secret, time.time(), "GET", path_qs)
    timeout = aiohttp.ClientTimeout(total=30)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.get(url, headers=headers) as resp,
    ):
        if resp.status != 200:
            raise BaccaratError("report_unavailable", f"The platform answered {resp.status}.")
        return await resp.json(content_type=None)


def _report(args: argparse.Namespace, config: PlatformConfig, start: float, end: float) -> Any:
    try:
        if args.report:
            return jsonin.parse(Path(args.report).read_text(), f"The report {args.report}")
        return asyncio.run(_fetch(config, start - MARGIN, end + MARGIN))
    except BaccaratError:
        raise
    except (OSError, ValueError, aiohttp.ClientError, TimeoutError) as exc:
        raise BaccaratError("report_unavailable", f"The platform's report: {exc}") from None


def _changes(calls: list[WalletCall]) -> list[tuple[str, str, int, float]]:
    """Each call's change to the user's coins at the platform, as the game sees it: a debit
    the platform took, a credit the game owes, and the rollback of a debit the game gave
    back (the rollback of a debit it gave up on undoes nothing the game counts)."""
    states = {c.call_id: c.state for c in calls}
    out = []
    for c in calls:
        if c.kind == DEBIT:
            change = -c.amount if c.state in (DONE, CLOSED) else 0
        elif c.kind == CREDIT:
            change = c.amount
        else:
            change = c.amount if states.get(c.refers_to or "") == CLOSED else 0
        out.append((c.round_id, c.platform_user, change, c.created_at))
    return out


def run(args: argparse.Namespace) -> int:
    """Compare, print every difference."""
    end = args.end if args.end is not None else time.time()
    start = args.start if args.start is not None else end - 24 * 3600
    try:
        config = platform_config.load(args.platform)
        report = _report(args, config, start, end)
        seamless = config.wallet == "seamless"
        theirs = platform_transactions(report) if seamless else platform_entries(report)
    except BaccaratError as exc:
        print(f"error [{exc.code}]: {exc.message}", file=sys.stderr)
        return 2

    def compare(store: Store) -> int:
        if seamless:
            ours = net_entries(_changes(store.wallet_calls_between(start - MARGIN, end + MARGIN)))
        else:
            ours = [
                Entry(t.transfer_id, t.platform_user, t.amount, t.created_at)
                for t in store.transfers_between(start - MARGIN, end + MARGIN)
            ]
        found = differences(ours, theirs, start, end)
        if args.json:
            print(json.dumps({"differences": [d.json() for d in found]}))
        else:
            agreed = sum(1 for e in ours if start <= e.at < end) - sum(
                1 for d in found if d.game is not None
            )
            what = "round total(s)" if seamless else "transfer(s)"
            print(f"reconcile: {len(found)} difference(s); {agreed} {what} agree")
            for d in found:
                print(f"  - {d.line()}")
        return 1 if found else 0

    return run_with_store(args, compare, as_json=args.json)
