"""A client's frame, field by field: each field's check, and the reader that names a bad one.

Pure: no I/O. A check takes the field's JSON value and returns it typed, or raises
``ValueError`` with a sentence; ``Fields`` turns that into ``bad_message`` naming the field.

JSON has one kind of number, and JSON Schema's ``integer`` is any number without a fraction:
so ``5.0`` is the integer 5 wherever an integer is expected (a seat, a chip, an id).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TypeVar

from baccarat.bets import AREAS, CHIPS, Area
from baccarat.errors import InvalidInput
from baccarat.numbers import whole
from baccarat.protocol.ids import MessageId, TableId
from baccarat.roads.patterns import PATTERNS
from baccarat.rules import HANDS, Hand
from baccarat.table.chat import EMOTES
from baccarat.table.config import SEATS
from baccarat.table.squeeze import CORNERS, Corner

MAX_CHAT_TEXT = 500
"""A chat message's raw length in a frame (the table allows 120 characters once normalised)."""

T = TypeVar("T")
D = TypeVar("D")


def integral(value: object) -> int | None:
    """``value`` as an int when it is a JSON integer (``5`` or ``5.0``; never a bool), else None."""
    if whole(value):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def table_id(value: object) -> TableId:
    """A table's id."""
    if not isinstance(value, str) or not 0 < len(value) <= 64:
        raise ValueError("a table id is a text of 1 to 64 characters")
    return TableId(value)


def seat(value: object) -> int:
    """A seat's number (0 the dealer's)."""
    number = integral(value)
    if number is None or not 0 <= number < SEATS:
        raise ValueError(f"a seat is a whole number from 0 (dealer) to {SEATS - 1}")
    return number


def _one_of(choices: tuple[T, ...], value: object, refusal: str) -> T:
    for choice in choices:
        if value == choice:
            return choice
    raise ValueError(refusal)


def area(value: object) -> Area:
    """A betting area."""
    return _one_of(AREAS, value, f"an area is one of {', '.join(AREAS)}")


def chip(value: object) -> int:
    """A chip's denomination."""
    number = integral(value)
    if number is None or number not in CHIPS:
        raise ValueError(f"a chip is one of {', '.join(map(str, CHIPS))}")
    return number


def hand(value: object) -> Hand:
    """A hand: the player's or the banker's."""
    return _one_of(HANDS, value, "a hand is 'player' or 'banker'")


def progress(value: object) -> float:
    """How far a card is peeled, from 0 to 1."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 <= value <= 1
    ):
        raise ValueError("progress is a number from 0 to 1")
    return float(value)


def corner(value: object) -> Corner:
    """The corner or side a card is peeled from."""
    return _one_of(CORNERS, value, f"a corner or side is one of {', '.join(CORNERS)}")


def chat_text(value: object) -> str:
    """A chat message as sent."""
    # The table normalises and bounds the text; this only keeps a frame's text sane.
    if not isinstance(value, str) or len(value) > MAX_CHAT_TEXT:
        raise ValueError(f"a message is a text of at most {MAX_CHAT_TEXT} characters")
    return value


def flag(value: object) -> bool:
    """True or false."""
    if not isinstance(value, bool):
        raise ValueError("true or false")
    return value


def emote(value: object) -> str:
    """An emote's name."""
    if value not in EMOTES:
        raise ValueError(f"an emote is one of {', '.join(EMOTES)}")
    return str(value)


def room_id(value: object) -> str:
    """A room's id."""
    if not isinstance(value, str) or not 0 < len(value) <= 64:
        raise ValueError("a room id is a text of 1 to 64 characters")
    return value


def road(value: object) -> str:
    """A good road's name, or ``any``."""
    if value != "any" and value not in PATTERNS:
        raise ValueError(f"a good road is 'any' or one of {', '.join(PATTERNS)}")
    return str(value)


def page(value: object) -> int:
    """A page's number in the lobby."""
    if not whole(value) or not 0 <= value <= 100_000:
        raise ValueError("a page is a whole number from 0")
    return value


class Fields:
    """One frame's fields, each read through its check; a bad one names itself."""

    __slots__ = ("_data", "_id", "_kind", "used")

    def __init__(self, kind: str, msg_id: MessageId, data: Mapping[str, object]) -> None:
        self._kind = kind
        self._id = msg_id
        self._data = data
        self.used = {"type", "id"}

    def take(self, name: str, check: Callable[[object], T]) -> T:
        """The field ``name``, checked; it must be there."""
        if name not in self._data:
            raise InvalidInput(
                "bad_message", f"{self._kind} needs the field {name!r}.", id=self._id
            )
        return self.maybe(name, check, None)  # type: ignore[return-value]

    def maybe(self, name: str, check: Callable[[object], T], default: D) -> T | D:
        """The field ``name``, checked, or ``default`` when the frame leaves it out."""
        self.used.add(name)
        if name not in self._data:
            return default
        try:
            return check(self._data[name])
        except ValueError as exc:
            raise InvalidInput("bad_message", f"{self._kind}.{name}: {exc}.", id=self._id) from exc
