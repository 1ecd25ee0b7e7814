"""Table.handle: every command of the union has its step, and nothing else is a command."""

from __future__ import annotations

import typing
from dataclasses import dataclass

import pytest
from tablekit import Game

from baccarat.errors import InvalidInput
from baccarat.table import Command
from baccarat.table.table import HANDLERS


def test_every_table_command_has_its_step_and_no_other_class_does() -> None:
    assert set(HANDLERS) == set(typing.get_args(Command))


def test_anything_that_is_not_a_table_command_is_refused_as_unknown() -> None:
    @dataclass(frozen=True)
    class Shout:
        user_id: int

    g = Game()
    with pytest.raises(InvalidInput) as err:
        g.table.handle(Shout(1), g.now)  # type: ignore[arg-type]
    assert err.value.code == "unknown_command"
