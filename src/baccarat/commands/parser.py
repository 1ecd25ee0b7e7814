"""The ``baccarat`` command's parser: one sub-command per module of this package, each
imported only when its parser is built (``cli`` runs it; ``docs`` writes its page)."""

from __future__ import annotations

import argparse
import importlib
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
