"""The commands' page, ``docs/commands.md``, written from the argument parsers themselves.

``python -m baccarat.commands.docs > docs/commands.md`` writes it: every command, every
sub-command and every option with its help, default and choices, and each command's own
explanation (its parser's description and epilog, which ``--help`` prints too). A test
checks that the file is what this writes, so the page cannot fall behind the parsers.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

from baccarat.commands.parser import COMMANDS, build_parser

SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Playing and serving", ("serve", "bots", "loadtest")),
    ("Accounts and money", ("admin", "audit", "history", "reconcile")),
    ("The game's numbers", ("odds", "settle", "simulate", "roads")),
    ("Fairness", ("verify_shoe", "verify_log", "witness", "keys")),
)
"""Where each command goes on the page (a name not among the commands is left out)."""
INTRO = """\
# Commands

<!-- Written by `python -m baccarat.commands.docs > docs/commands.md` from the commands'
parsers: change a help text or an epilog there, not here. -->

Every command of `baccarat`, with every option. `baccarat COMMAND --help` prints the same.
Bad input (an option out of range, a file or database that is not there, malformed JSON)
is answered in one line on standard error with a non-zero exit status, 2 for a usage or
configuration error. No command but `serve` (and `admin create-user --create`) makes a
database: the others refuse, by its path, a database that does not exist.

A `--db` URL is `sqlite:///PATH`, `postgresql://USER:PASSWORD@HOST/DB`, or one of libpq's
forms naming a primary and its standbys, the first that takes writes being used:
`postgresql://USER@HOST1:PORT1,HOST2:PORT2/DB?target_session_attrs=read-write`, or
`host=HOST1,HOST2 port=PORT1,PORT2 dbname=DB user=USER target_session_attrs=read-write`
(docs/storage.md, "Several hosts"). A `--redis` URL is `redis://HOST:PORT/DB`, or
`redis+sentinel://[[USER]:PASSWORD@]HOST[:PORT][,HOST2[:PORT2]...]/SERVICE[/DB]` for the
master that Redis Sentinel names (docs/deployment.md, "Many nodes").
"""


class Undocumented(Exception):
    """An option or sub-command without a help text: the page would not say what it is."""


def render() -> str:
    """The whole page."""
    unplaced = set(COMMANDS) - {name for _, names in SECTIONS for name in names}
    if unplaced:
        raise Undocumented(f"no section of the page lists {', '.join(sorted(unplaced))}")
    parsers = _command_parsers(build_parser())
    out = [INTRO]
    for title, names in SECTIONS:
        out.append(f"## {title}\n")
        for name in (n for n in names if n in COMMANDS):
            cli_name = name.replace("_", "-")
            out.extend(_command(f"baccarat {cli_name}", parsers[cli_name], level=3))
    return "\n".join(out).rstrip("\n") + "\n"


def _command_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _command(
    prog: str, parser: argparse.ArgumentParser, *, level: int, about: str | None = None
) -> Iterator[str]:
    """One command (or sub-command): its heading, what it is, its line, its options."""
    yield f"{'#' * level} `{prog}`\n"
    for text in (about, parser.description, parser.epilog):
        if text:
            yield text.strip() + "\n"
    yield f"```\n{_wrapped(_synopsis(prog, parser))}\n```\n"
    options = [line for a in parser._actions for line in _option(a)]
    if options:
        yield "\n".join(options) + "\n"
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from _subcommands(prog, action, level + 1)


def _subcommands(prog: str, action: argparse._SubParsersAction[Any], level: int) -> Iterator[str]:
    """Each sub-command of ``prog`` (``admin grant``, ``keys rotate``, ...), in its order."""
    helps = {c.dest: c.help for c in action._choices_actions}
    for name, sub in action.choices.items():
        about = helps.get(name)
        if not about:
            raise Undocumented(f"{prog} {name} has no help")
        yield from _command(f"{prog} {name}", sub, level=level, about=about)


def _wrapped(parts: list[str], width: int = 88) -> str:
    """The command line's parts packed into lines of ``width``, each part whole."""
    lines = [parts[0]]
    for part in parts[1:]:
        if len(lines[-1]) + 1 + len(part) > width:
            lines.append("    " + part)
        else:
            lines[-1] += " " + part
    return "\n".join(lines)


def _synopsis(prog: str, parser: argparse.ArgumentParser) -> list[str]:
    """The command line's parts, required ones bare and optional ones in brackets."""
    shown = [
        a
        for a in parser._actions
        if a.help != argparse.SUPPRESS and not isinstance(a, argparse._HelpAction)
    ]
    parts = [prog]
    for a in sorted(shown, key=lambda a: bool(a.option_strings)):  # positionals first
        if isinstance(a, argparse._SubParsersAction):
            parts.append(f"{_metavar(a)} ...")
        elif not a.option_strings:
            parts.append(_metavar(a))
        else:
            flag = _flag(a)
            parts.append(flag if a.required else f"[{flag}]")
    return parts


def _metavar(action: argparse.Action) -> str:
    if isinstance(action.metavar, str):
        return action.metavar
    if action.choices is not None and not action.option_strings:
        return "{" + ",".join(str(c) for c in action.choices) + "}"
    if isinstance(action.metavar, tuple):
        return " ".join(action.metavar)
    return action.dest.upper()


def _flag(action: argparse.Action) -> str:
    """An option as typed: ``--name VALUE``, or the flag alone when it takes no value."""
    name = max(action.option_strings, key=len)
    if action.nargs == 0:
        return name
    if action.choices is not None and action.metavar is None:
        return f"{name} {{{','.join(str(c) for c in action.choices)}}}"
    return f"{name} {_metavar(action)}"


def _option(action: argparse.Action) -> Iterator[str]:
    """An option's line: how it is typed, what it is, its default."""
    if action.help == argparse.SUPPRESS or isinstance(
        action, argparse._HelpAction | argparse._SubParsersAction
    ):
        return
    if not action.help:
        raise Undocumented(f"{action.option_strings or action.dest} has no help")
    help_text = action.help % {"default": action.default, "prog": "baccarat"}
    yield f"- {_typed(action)}: {help_text}{_default(action, help_text)}"


def _typed(action: argparse.Action) -> str:
    """How an option or argument is typed, in code marks."""
    if isinstance(action, argparse.BooleanOptionalAction):
        return " / ".join(f"`{s}`" for s in action.option_strings)
    return f"`{_flag(action) if action.option_strings else _metavar(action)}`"


def _default(action: argparse.Action, help_text: str) -> str:
    """What the line adds about the default: it is required, or its value when the help
    does not say it already."""
    if not action.option_strings:
        return ""
    if action.required:
        return " (required)"
    if action.default in (None, False, [], argparse.SUPPRESS) or "default" in help_text:
        return ""
    return f" (default: {action.default})"


if __name__ == "__main__":
    sys.stdout.write(render())
