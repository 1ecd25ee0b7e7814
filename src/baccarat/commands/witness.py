"""``baccarat witness``: witness logs for their readers (c2sp.org/tlog-witness).

Run by another party than the log's operator, with its own Ed25519 key (a file, created mode
0600 when missing) and its own small SQLite file: it cosigns each checkpoint of the logs it
is told of (``--log VKEY``, the log's verifier key) that extends the last one it cosigned,
refuses any other, and keeps the two conflicting checkpoints as evidence (``--evidence``
prints them). It prints its verifier key, which the log's operator passes to
``baccarat serve --witness URL=VKEY``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import errno
import os
import secrets
import signal
import sqlite3
import sys
from pathlib import Path

from aiohttp import web

from baccarat.checkpoint import Verifier, parse_vkey
from baccarat.commands import options
from baccarat.errors import BaccaratError
from baccarat.witness.book import Book
from baccarat.witness.service import Witness, create_app

HELP = "witness commitment logs: cosign each checkpoint that extends the last one"

ABOUT = """\
A witness of other parties' logs, as c2sp.org/tlog-witness defines one: POST
/add-checkpoint takes 'old <size>', the consistency proof lines, an empty line and a
checkpoint signed by one of the log's keys (--log), and answers its cosignature
(cosignature/v1, with the time) when the proof takes the checkpoint it last cosigned to this
one; 409 with its own size when the old size is not that one, or the checkpoint has that size
and another root, or is smaller (the two notes are kept as evidence); 422 when the proof does
not hold; 403 when no signature by the log's keys verifies; 404 for a log it does not
witness. GET / answers its verifier key, which it also prints at start: the log's operator
passes URL=VKEY to baccarat serve --witness. Run it elsewhere than the log, by someone else:
it vouches for the log only as far as it is independent of it."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's options."""
    parser.add_argument("--name", required=True, help="the witness's name, e.g. example.org/w1")
    parser.add_argument("--key", required=True, help="its private key file (created if missing)")
    parser.add_argument("--db", required=True, help="its SQLite file (created if missing)")
    parser.add_argument(
        "--log", action="append", default=[], metavar="VKEY", help="a log's verifier key "
        "(a `vkeys` item of its server's /.well-known/baccarat-log-key; repeatable)",
    )  # fmt: skip
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument(
        "--port", type=options.port, default=8100, help="port, 0-65535 (0 picks a free one)"
    )
    parser.add_argument("--evidence", action="store_true", help="print the evidence and exit")


def _private_key(path: Path) -> bytes:
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(base64.b64encode(secrets.token_bytes(32)).decode() + "\n")
    raw = base64.b64decode(path.read_text(encoding="utf-8").strip(), validate=True)
    if len(raw) != 32:
        raise BaccaratError("bad_key", f"{path} does not hold a 32-byte Ed25519 key in base64.")
    return raw


def _logs(vkeys: list[str]) -> dict[str, list[Verifier]]:
    logs: dict[str, list[Verifier]] = {}
    for text in vkeys:
        v = parse_vkey(text)
        logs.setdefault(v.name, []).append(v)
    return logs


def run(args: argparse.Namespace) -> int:
    """Serve the witness until SIGTERM; 2 on bad input."""
    try:
        key = _private_key(Path(args.key))
        logs = _logs(args.log)
        if not logs and not args.evidence:
            raise BaccaratError("no_logs", "Name at least one log to witness: --log VKEY.")
        book = Book(Path(args.db))
    except (BaccaratError, ValueError, OSError, sqlite3.Error) as exc:
        # sqlite3: a --db that is a directory or not a database file.
        why = exc.message if isinstance(exc, BaccaratError) else f"{args.db}: {exc}"
        print(f"baccarat witness: {why}", file=sys.stderr)
        return 2
    if args.evidence:
        for e in book.evidence():
            print(
                f"{e.origin}: {e.reason}\n--- cosigned\n{e.cosigned_note}--- offered\n{e.offered_note}"
            )
        return 0
    return asyncio.run(_serve(Witness(args.name, key, logs, book), args.host, args.port))


async def _serve(witness: Witness, host: str, port: int) -> int:
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    runner = web.AppRunner(create_app(witness), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError as exc:
        busy = exc.errno == errno.EADDRINUSE
        why = "another program listens there" if busy else exc.strerror
        print(f"baccarat witness: cannot listen on {host}:{port}: {why}", file=sys.stderr)
        await runner.cleanup()
        witness.book.close()
        return 2
    bound = runner.addresses[0][1] if runner.addresses else port
    print(f"witness:  {witness.verifier.vkey()}", flush=True)
    print(f"open:     http://{host}:{bound} (logs: {', '.join(witness.logs)})", flush=True)
    await stop.wait()
    await runner.cleanup()
    witness.book.close()
    return 0
