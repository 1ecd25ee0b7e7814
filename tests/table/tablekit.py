"""A fake-clock harness for the table tests: explicit cards, counted ids, collected events."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any, TypeVar

from baccarat.cards import deck, parse_cards
from baccarat.protocol.view import view
from baccarat.shoe import Shoe
from baccarat.table import (
    Command,
    Event,
    OpenCard,
    PlaceChip,
    Sit,
    StandUp,
    Table,
    TableConfig,
    UserInfo,
)

E = TypeVar("E")

PADDING = [str(c) for c in deck()] * 2
"""Enough ordinary cards after the ones a test names, so the shoe never runs dry."""


def user(uid: int, coins: int = 100_000, level: int = 60) -> UserInfo:
    """A user called u<uid>."""
    return UserInfo(uid, f"u{uid}", level, coins)


def shoe(*cards: str, pad: bool = True) -> Shoe:
    """A shoe dealing ``cards`` first (in dealing order), then padding."""
    return Shoe(parse_cards(list(cards) + (PADDING if pad else [])))


class Game:
    """One table on a fake clock; every event it emits is kept in ``events``."""

    def __init__(self, *shoes: list[str], **settings: Any) -> None:
        self.now = 1000.0
        self.events: list[Event] = []
        self._shoes = [list(s) for s in shoes]
        self._seeds = itertools.count(1)
        counter = itertools.count(1)
        self.config = TableConfig("t1", **settings)
        self.table = Table(self.config, self._next_shoe, new_id=lambda: f"id{next(counter)}")

    def _next_shoe(self) -> Shoe:
        if self._shoes:
            return shoe(*self._shoes.pop(0))
        return Shoe.from_seed(next(self._seeds).to_bytes(32, "big"))

    def do(self, command: Command) -> list[Event]:
        """Hand a command to the table now."""
        out = self.table.handle(command, self.now)
        self.events += out
        return out

    def tick(self, seconds: float) -> list[Event]:
        """Let ``seconds`` pass and fire what is due."""
        self.now += seconds
        out = self.table.advance(self.now)
        self.events += out
        return out

    def to_deadline(self) -> list[Event]:
        """Jump to the next deadline and fire it."""
        due = self.table.next_deadline
        assert due is not None, "nothing is timed"
        self.now = max(self.now, due)
        out = self.table.advance(self.now)
        self.events += out
        return out

    def until(self, phase: str, limit: int = 50) -> None:
        """Fire deadlines until the table reaches ``phase``."""
        for _ in range(limit):
            if self.table.phase == phase:
                return
            self.to_deadline()
        raise AssertionError(f"never reached {phase}; stuck in {self.table.phase}")

    def sit(self, uid: int, seat: int, coins: int = 100_000, level: int = 60) -> list[Event]:
        """Seat user ``uid``."""
        return self.do(Sit(uid, user(uid, coins, level), seat))

    def stand(self, uid: int) -> list[Event]:
        """User ``uid`` stands up."""
        return self.do(StandUp(uid))

    def bet(self, uid: int, area: str, chips: int = 1) -> None:
        """Place ``chips`` chips on ``area`` using the largest chips first."""
        left = chips
        for chip in (10, 5, 3, 2, 1):
            while left >= chip:
                self.do(PlaceChip(uid, area, chip))
                left -= chip

    def open_all(self) -> None:
        """Controllers open every face-down card at once until the round settles."""
        for _ in range(10):
            rnd = self.table.round
            if rnd is None or rnd.squeeze is None:
                return
            self.do(OpenCard(rnd.squeeze.controller, rnd.squeeze.hand))

    def view(self, uid: int | None) -> dict[str, Any]:
        """What ``uid`` sees now."""
        return view(self.table, uid, self.now)

    def of(self, kind: type[E], events: Iterable[Event] | None = None) -> list[E]:
        """The events of one class."""
        return [e for e in (self.events if events is None else events) if isinstance(e, kind)]

    def coins(self, uid: int) -> int:
        """A seated user's balance at the table."""
        occ = self.table.occupant(uid)
        assert occ is not None
        return occ.coins


def fingerprint(g: Game) -> list[Any]:
    """Everything every viewer sees, plus the next deadline: equal before and after = unchanged."""
    viewers: list[int | None] = [None]
    viewers += [o.user_id for o in g.table.seats if o is not None]
    return [g.table.next_deadline, *(g.view(v) for v in viewers)]


def rejects(g: Game, command: Command, code: str) -> dict[str, Any]:
    """Assert the table refuses ``command`` with ``code`` and changes nothing; return details."""
    from baccarat.errors import BaccaratError

    before = fingerprint(g)
    try:
        g.do(command)
    except BaccaratError as err:
        assert err.code == code, f"expected {code}, got {err.code}: {err.message}"
        assert err.message
        assert fingerprint(g) == before, "a refused command changed the table"
        return dict(err.details)
    raise AssertionError(f"{command!r} was accepted; expected {code}")
