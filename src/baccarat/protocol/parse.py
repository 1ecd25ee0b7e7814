"""Protocol version 1: a client's text frame read straight into a typed command.

Pure: no I/O. ``parse`` checks a frame against the same rules as
``docs/protocol/client.schema.json`` and returns a ``Message`` whose ``command`` is the
table's command dataclass (``PlaceChip``...) or a server request (:mod:`.requests`), acting
for the connection's own user; or it raises ``InvalidInput`` (``bad_message`` naming the
field, or ``unknown_command``) with the command's ``id`` when one could be read.

JSON has one kind of number, and JSON Schema's ``integer`` is any number without a fraction:
so ``5.0`` is the integer 5 wherever an integer is expected (a seat, a chip, an id).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from baccarat.bets import AREAS, CHIPS, Area
from baccarat.errors import InvalidInput
from baccarat.numbers import whole
from baccarat.protocol import codec
from baccarat.protocol.ids import MessageId, TableId, UserId
from baccarat.protocol.requests import (
    Leave,
    LobbySubscribe,
    LobbyUnsubscribe,
    Ping,
    QueueUp,
    Request,
    Resync,
    TakeSeat,
    Watch,
)
from baccarat.roads.patterns import PATTERNS
from baccarat.rules import HANDS, Hand
from baccarat.table.chat import EMOTES
from baccarat.table.commands import (
    ClearBets,
    Command,
    Double,
    Emote,
    LeaveQueue,
    OpenCard,
    PlaceChip,
    Rebet,
    Say,
    SetAutoOpen,
    SqueezeProgress,
    StandUp,
    Undo,
    Urge,
)
from baccarat.table.config import SEATS
from baccarat.table.squeeze import CORNERS, Corner

MAX_FRAME = 4096
"""A client's message is small; anything longer is refused before parsing."""

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


def _table_id(value: object) -> TableId:
    if not isinstance(value, str) or not 0 < len(value) <= 64:
        raise ValueError("a table id is a text of 1 to 64 characters")
    return TableId(value)


def _seat(value: object) -> int:
    seat = integral(value)
    if seat is None or not 0 <= seat < SEATS:
        raise ValueError(f"a seat is a whole number from 0 (dealer) to {SEATS - 1}")
    return seat


def _one_of(choices: tuple[T, ...], value: object, refusal: str) -> T:
    for choice in choices:
        if value == choice:
            return choice
    raise ValueError(refusal)


def _area(value: object) -> Area:
    return _one_of(AREAS, value, f"an area is one of {', '.join(AREAS)}")


def _chip(value: object) -> int:
    chip = integral(value)
    if chip is None or chip not in CHIPS:
        raise ValueError(f"a chip is one of {', '.join(map(str, CHIPS))}")
    return chip


def _hand(value: object) -> Hand:
    return _one_of(HANDS, value, "a hand is 'player' or 'banker'")


def _progress(value: object) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 <= value <= 1
    ):
        raise ValueError("progress is a number from 0 to 1")
    return float(value)


def _corner(value: object) -> Corner:
    return _one_of(CORNERS, value, f"a corner or side is one of {', '.join(CORNERS)}")


def _chat_text(value: object) -> str:
    # The table normalises and bounds the text; this only keeps a frame's text sane.
    if not isinstance(value, str) or len(value) > MAX_CHAT_TEXT:
        raise ValueError(f"a message is a text of at most {MAX_CHAT_TEXT} characters")
    return value


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError("true or false")
    return value


def _emote(value: object) -> str:
    if value not in EMOTES:
        raise ValueError(f"an emote is one of {', '.join(EMOTES)}")
    return str(value)


def _room_id(value: object) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= 64:
        raise ValueError("a room id is a text of 1 to 64 characters")
    return value


def _road(value: object) -> str:
    if value != "any" and value not in PATTERNS:
        raise ValueError(f"a good road is 'any' or one of {', '.join(PATTERNS)}")
    return str(value)


def _page(value: object) -> int:
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


Build = Callable[[UserId, Fields], "Command | Request"]

COMMANDS: dict[str, Build] = {
    "ping": lambda u, f: Ping(),
    "lobby.subscribe": lambda u, f: LobbySubscribe(
        f.maybe("room", _room_id, None), f.maybe("page", _page, 0), f.maybe("road", _road, None)
    ),
    "lobby.unsubscribe": lambda u, f: LobbyUnsubscribe(),
    "table.watch": lambda u, f: Watch(f.take("table_id", _table_id)),
    "table.leave": lambda u, f: Leave(),
    "resync": lambda u, f: Resync(),
    "sit": lambda u, f: TakeSeat(f.take("table_id", _table_id), f.take("seat", _seat)),
    "stand": lambda u, f: StandUp(u),
    "bet": lambda u, f: PlaceChip(u, f.take("area", _area), f.take("chip", _chip)),
    "clear": lambda u, f: ClearBets(u),
    "rebet": lambda u, f: Rebet(u),
    "double": lambda u, f: Double(u),
    "undo": lambda u, f: Undo(u),
    "urge": lambda u, f: Urge(u),
    "squeeze": lambda u, f: SqueezeProgress(
        u, f.take("hand", _hand), f.take("progress", _progress), f.take("corner", _corner)
    ),
    "open": lambda u, f: OpenCard(u, f.take("hand", _hand)),
    "queue.join": lambda u, f: QueueUp(),
    "queue.leave": lambda u, f: LeaveQueue(u),
    "prefs": lambda u, f: SetAutoOpen(u, f.take("auto_open", _flag)),
    "say": lambda u, f: Say(u, f.take("text", _chat_text)),
    "emote": lambda u, f: Emote(u, f.take("emote", _emote)),
}
"""Every command of protocol v1, by its ``type``, and how its fields make it."""


@dataclass(frozen=True, slots=True)
class Message:
    """One command from a client, checked: its ``type`` on the wire, its id, and the command."""

    type: str
    id: MessageId
    command: Command | Request


MAX_ID = 2**53 - 1
"""Largest integer id (and smallest, negated): what every JSON reader holds exactly."""


def _id(data: Mapping[str, object]) -> MessageId | None:
    value = data.get("id")
    if isinstance(value, str):
        return value if len(value) <= 64 else None
    number = integral(value)
    return number if number is not None and abs(number) <= MAX_ID else None


def _object(text: str | bytes) -> dict[str, object]:
    # Bytes as UTF-8: a character takes up to 4, so only a long text needs encoding to tell.
    if len(text) > MAX_FRAME or (
        isinstance(text, str)
        and len(text) > MAX_FRAME // 4
        and len(text.encode("utf-8", "surrogatepass")) > MAX_FRAME
    ):
        raise InvalidInput("bad_message", f"A message is at most {MAX_FRAME} bytes.")
    data = codec.loads(text)
    if not isinstance(data, dict):
        raise InvalidInput("bad_message", "A message is a JSON object.")
    return data


def parse(text: str | bytes, user_id: UserId) -> Message:
    """Read one text frame as a command acting for ``user_id`` (the connection's own user,
    never a field of the frame), or raise ``InvalidInput`` naming what is wrong."""
    data = _object(text)
    msg_id = _id(data)
    if msg_id is None:
        raise InvalidInput(
            "bad_message",
            "A command needs an 'id': a text of at most 64 characters or an integer"
            " of at most 2**53 - 1 either way.",
        )
    kind = data.get("type")
    if not isinstance(kind, str):
        raise InvalidInput("bad_message", "A command needs a 'type' text.", id=msg_id)
    build = COMMANDS.get(kind)
    if build is None:
        raise InvalidInput("unknown_command", f"{kind[:40]!r} is not a command.", id=msg_id)
    fields = Fields(kind, msg_id, data)
    command = build(user_id, fields)
    extra = sorted(set(data) - fields.used)
    if extra:
        raise InvalidInput(
            "bad_message", f"{kind} does not take the field(s) {', '.join(extra)}.", id=msg_id
        )
    return Message(kind, msg_id, command)
