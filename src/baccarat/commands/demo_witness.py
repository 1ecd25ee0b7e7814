"""The demo's witness: one ``baccarat witness`` process beside a demo server, so that a newcomer
sees a cosigned head on the page.

It runs as its own process, as a witness run by another party would, with its key and its
SQLite file in the demo's data folder (``demo-witness/`` beside the keys file), on a port of
its own choosing on 127.0.0.1; the server asks it at every new head, and stops it when the
demo stops. A witness that does not start is a warning: the demo plays on, unwitnessed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from baccarat.errors import BaccaratError
from baccarat.server.keyfile import Keys
from baccarat.server.witnesses import WitnessAt, parse_witness

log = logging.getLogger("baccarat.demo")

NAME = "demo.baccarat.invalid/witness"
"""The demo witness's name (a name of the reserved .invalid domain: it is nobody's)."""
START = 15.0
"""Seconds the witness may take to say where it listens."""


@dataclass
class DemoWitness:
    """The running witness process and how the server reaches it."""

    proc: asyncio.subprocess.Process
    at: WitnessAt

    async def stop(self) -> None:
        """Stop the witness."""
        await _end(self.proc)


async def _end(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM, and SIGKILL if it has not stopped in 5 seconds."""
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 5.0)
        except TimeoutError:
            proc.kill()
            await proc.wait()


def folder(keys_path: Path) -> Path:
    """Where the demo's witness keeps its key and its SQLite file."""
    return keys_path.parent / "demo-witness"


async def start_witness(keys_path: Path, keys: Keys) -> DemoWitness | None:
    """Start the demo's witness of this log; None (and a warning) when it does not start."""
    home = folder(keys_path)
    home.mkdir(mode=0o700, exist_ok=True)
    logs = [arg for v in keys.log_verifiers for arg in ("--log", v.vkey())]
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "baccarat", "witness", "--name", NAME,
        "--key", str(home / "witness.key"), "--db", str(home / "witness.db"), *logs,
        "--host", "127.0.0.1", "--port", "0",
        stdout=asyncio.subprocess.PIPE, stdin=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        at = await asyncio.wait_for(_where(proc), START)
    except (TimeoutError, BaccaratError, ValueError) as exc:
        log.warning("demo witness did not start", extra={"error": str(exc) or type(exc).__name__})
        await _end(proc)
        return None
    log.info("demo witness running", extra={"url": at.url, "vkey": at.verifier.vkey()})
    return DemoWitness(proc, at)


async def _where(proc: asyncio.subprocess.Process) -> WitnessAt:
    """Read the witness's two first lines: its verifier key, then its address."""
    assert proc.stdout is not None
    vkey = (await proc.stdout.readline()).decode().split()
    address = (await proc.stdout.readline()).decode().split()
    if len(vkey) < 2 or vkey[0] != "witness:" or len(address) < 2 or address[0] != "open:":
        raise ValueError("the witness said nothing of where it listens")
    return parse_witness(f"{address[1]}={vkey[1]}")


@contextlib.asynccontextmanager
async def beside(args: argparse.Namespace, *, alone: bool) -> AsyncIterator[None]:
    """With ``--demo`` on a server alone and no ``--witness`` named, the demo's witness runs
    (named in ``args.witness``) for as long as the context."""
    witness = None
    if args.demo and alone and not args.witness:
        witness = await start_witness(args.keys_path, args.loaded_keys)
        args.witness = [witness.at] if witness else []
    try:
        yield
    finally:
        if witness is not None:
            await witness.stop()
