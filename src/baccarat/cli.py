"""The ``baccarat`` command: one sub-command per module in :mod:`baccarat.commands`
(its parser is :mod:`baccarat.commands.parser`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from baccarat.commands.parser import COMMANDS, build_parser

__all__ = ["COMMANDS", "build_parser", "main"]


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
