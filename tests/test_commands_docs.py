"""docs/commands.md is what ``baccarat.commands.docs`` writes from the parsers: every command,
every option, and the input of the commands that read standard input."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from baccarat.cli import COMMANDS
from baccarat.commands import docs

PAGE = Path(__file__).parent.parent / "docs" / "commands.md"


def test_the_commands_page_is_what_the_parsers_write() -> None:
    # When this fails: python -m baccarat.commands.docs > docs/commands.md
    assert PAGE.read_text(encoding="utf-8") == docs.render()


def test_every_command_and_option_is_on_the_page() -> None:
    page = docs.render()
    for name in COMMANDS:
        assert f"### `baccarat {name.replace('_', '-')}`" in page
    for flag in ("--from", "--report", "--platform", "--create", "--trusted-proxy", "--live"):
        assert f"`{flag}" in page, flag


def test_the_input_of_roads_and_settle_is_documented() -> None:
    page = docs.render()
    roads = page.split("### `baccarat roads`")[1].split("\n## ")[0]
    settle = page.split("### `baccarat settle`")[1].split("### ")[0]
    for field in ("winner", "points", "banker_pair", "player_pair", "natural"):
        assert f'"{field}"' in roads and field in roads
    for field in ("chip_unit", "dealer", "bets", "cards", "area", "chips"):
        assert f'"{field}"' in settle


def test_an_option_without_help_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    built = docs.build_parser

    def with_a_bare_option(only: str | None = None) -> argparse.ArgumentParser:
        parser = built(only)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                action.choices["odds"].add_argument("--bare")
        return parser

    monkeypatch.setattr(docs, "build_parser", with_a_bare_option)
    with pytest.raises(docs.Undocumented, match=re.escape("--bare")):
        docs.render()
