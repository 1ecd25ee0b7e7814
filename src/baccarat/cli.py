"""The ``baccarat`` command: one sub-command per module in :mod:`baccarat.commands`."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

# Each module defines HELP (one line), add_arguments(parser) and run(args) -> exit status,
# and may define ABOUT: the paragraphs --help prints after the options (and docs/commands.md
# below the command's line, through baccarat.commands.docs).
COMMANDS: tuple[str, ...] = (
    "admin",
    "audit",
    "reconcile",
    "history",
    "odds",
    "roads",
    "settle",
    "verify_shoe",
    "verify_log",
    "witness",
    "keys",
    "simulate",
    "serve",
    "bots",
    "loadtest",
)


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"baccarat.commands.{name}")


class Parser(argparse.ArgumentParser):
    """An argument parser that answers a bad command line in one line: what is wrong, and
    where the options are listed (argparse's own prints the whole usage first)."""

    def error(self, message: str) -> NoReturn:
        """Print the one line and exit 2."""
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every sub-command, or with ``only`` that one.

    Each command's module is imported to build its parser; ``serve`` alone imports the whole
    server, so a command that does not need it (``admin``, ``bots``, each bot's own process)
    starts without paying for it.
    """
    parser = Parser(prog="baccarat", description="A multiplayer baccarat table server.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS if only is None else (only,):
        mod = _module(name)
        p = sub.add_parser(
            name.replace("_", "-"),
            help=mod.HELP,
            description=mod.HELP,
            epilog=getattr(mod, "ABOUT", None),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def _chosen(argv: Sequence[str]) -> str | None:
    """The command named first on the line, when it is one (else every parser is built, for
    the help or the error that lists them all)."""
    by_name = {name.replace("_", "-"): name for name in COMMANDS}
    return by_name.get(argv[0]) if argv else None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    line = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(_chosen(line)).parse_args(line)
    try:
        status: int = args._run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``baccarat odds --json | head``): what it wanted it has; the
        # output still buffered goes nowhere instead of raising again at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return status
