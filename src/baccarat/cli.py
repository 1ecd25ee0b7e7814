"""The ``baccarat`` command: one sub-command per module in :mod:`baccarat.commands`."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

# Each module defines HELP (one line), add_arguments(parser) and run(args) -> exit status.
COMMANDS: tuple[str, ...] = (
    "admin",
    "audit",
    "history",
    "odds",
    "roads",
    "settle",
    "verify_shoe",
    "simulate",
    "serve",
    "bots",
    "loadtest",
)


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"baccarat.commands.{name}")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command."""
    parser = argparse.ArgumentParser(
        prog="baccarat", description="A multiplayer baccarat table server."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        mod = _module(name)
        p = sub.add_parser(name.replace("_", "-"), help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args._run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return status
