"""Protocol version 1: reading a client's message, and building the server's messages.

Pure: no I/O. ``parse_message`` checks a text frame against the same rules as
``docs/protocol/client.schema.json`` and returns a ``Message``, or raises ``InvalidInput``
(``bad_message`` or ``unknown_command``) with the command's ``id`` when one could be read.

JSON has one kind of number, and JSON Schema's ``integer`` is any number without a fraction:
so ``5.0`` is the integer 5 wherever an integer is expected (a seat, a chip, an id).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from baccarat.bets import AREAS, CHIPS, Area
from baccarat.errors import BaccaratError, InvalidInput
from baccarat.numbers import whole
from baccarat.roads.patterns import PATTERNS
from baccarat.rules import HANDS, Hand
from baccarat.server import wire
from baccarat.table.chat import EMOTES
from baccarat.table.config import SEATS
from baccarat.table.squeeze import CORNERS, Corner

VERSION = 1
MAX_FRAME = 4096
"""A client's message is small; anything longer is refused before parsing."""

MAX_CHAT_TEXT = 500
"""A chat message's raw length in a frame (the table allows 120 characters once normalised)."""

T = TypeVar("T")

Checker = Callable[[object], object]
"""A command field's check: the clean value, or a ``ValueError`` saying what is wrong."""

Fields = dict[str, Any]
"""A command's checked fields by name; each value has its checker's type (``_seat``: int)."""


def integral(value: object) -> int | None:
    """``value`` as an int when it is a JSON integer (``5`` or ``5.0``; never a bool), else None."""
    if whole(value):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _table_id(value: object) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= 64:
        raise ValueError("a table id is a text of 1 to 64 characters")
    return value


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


COMMANDS: dict[str, dict[str, Checker]] = {
    "lobby.subscribe": {},
    "lobby.unsubscribe": {},
    "table.watch": {"table_id": _table_id},
    "table.leave": {},
    "sit": {"table_id": _table_id, "seat": _seat},
    "stand": {},
    "bet": {"area": _area, "chip": _chip},
    "clear": {},
    "rebet": {},
    "double": {},
    "undo": {},
    "urge": {},
    "squeeze": {"hand": _hand, "progress": _progress, "corner": _corner},
    "open": {"hand": _hand},
    "resync": {},
    "queue.join": {},
    "prefs": {"auto_open": _flag},
    "say": {"text": _chat_text},
    "emote": {"emote": _emote},
    "queue.leave": {},
    "ping": {},
}
"""Every command of protocol v1 and the fields it carries."""
OPTIONAL: dict[str, dict[str, Checker]] = {
    "lobby.subscribe": {"room": _room_id, "page": _page, "road": _road},
}
"""Fields a command may leave out."""


@dataclass(frozen=True)
class Message:
    """One command from a client, checked."""

    type: str
    id: str | int
    fields: Fields = field(default_factory=dict)


MAX_ID = 2**53 - 1
"""Largest integer id (and smallest, negated): what every JSON reader holds exactly."""


def _id(data: Mapping[str, object]) -> str | int | None:
    value = data.get("id")
    if isinstance(value, str):
        return value if len(value) <= 64 else None
    number = integral(value)
    return number if number is not None and abs(number) <= MAX_ID else None


def parse_message(text: str | bytes) -> Message:
    """Read one text frame as a command, or raise ``InvalidInput`` naming what is wrong."""
    # Bytes as UTF-8: a character takes up to 4, so only a long text needs encoding to tell.
    if len(text) > MAX_FRAME or (
        isinstance(text, str)
        and len(text) > MAX_FRAME // 4
        and len(text.encode("utf-8", "surrogatepass")) > MAX_FRAME
    ):
        raise InvalidInput("bad_message", f"A message is at most {MAX_FRAME} bytes.")
    data = wire.loads(text)
    if not isinstance(data, dict):
        raise InvalidInput("bad_message", "A message is a JSON object.")
    msg_id = _id(data)
    kind = data.get("type")
    if msg_id is None:
        raise InvalidInput(
            "bad_message",
            "A command needs an 'id': a text of at most 64 characters or an integer"
            " of at most 2**53 - 1 either way.",
        )
    if not isinstance(kind, str):
        raise InvalidInput("bad_message", "A command needs a 'type' text.", id=msg_id)
    spec = COMMANDS.get(kind)
    if spec is None:
        raise InvalidInput("unknown_command", f"{kind[:40]!r} is not a command.", id=msg_id)
    optional = OPTIONAL.get(kind, {})
    extra = sorted(set(data) - set(spec) - set(optional) - {"type", "id"})
    if extra:
        raise InvalidInput(
            "bad_message", f"{kind} does not take the field(s) {', '.join(extra)}.", id=msg_id
        )
    fields: Fields = {}
    for name, check in spec.items():
        if name not in data:
            raise InvalidInput("bad_message", f"{kind} needs the field {name!r}.", id=msg_id)
        try:
            fields[name] = check(data[name])
        except ValueError as exc:
            raise InvalidInput("bad_message", f"{kind}.{name}: {exc}.", id=msg_id) from exc
    for name, check in optional.items():
        if name in data:
            try:
                fields[name] = check(data[name])
            except ValueError as exc:
                raise InvalidInput("bad_message", f"{kind}.{name}: {exc}.", id=msg_id) from exc
    return Message(kind, msg_id, fields)


def dumps(message: Mapping[str, object]) -> str:
    """Encode a server message (compact JSON, UTF-8 kept; always encodable, see ``wire``)."""
    return wire.dumps(message)


def ack(msg_id: str | int | None, **extra: object) -> dict[str, object]:
    """The answer to a command that was carried out."""
    return {"type": "ack", "id": msg_id, **extra}


def error(
    msg_id: str | int | None, code: str, message: str, details: Mapping[str, object] | None = None
) -> dict[str, object]:
    """The answer to a command that was refused (and changed nothing)."""
    out: dict[str, object] = {"type": "error", "id": msg_id, "code": code, "message": message}
    if details:
        out["details"] = details
    return out


def refusal(msg_id: str | int | None, exc: BaccaratError) -> dict[str, object]:
    """The error answer for ``exc``, with its details (the limit broken, the seat taken...)."""
    details = {
        k: v
        for k, v in exc.details.items()
        # ``id`` carries the refused message's own id out of the parser; not a detail.
        if k != "id" and (v is None or isinstance(v, str | int | float | bool))
    }
    return error(msg_id, exc.code, exc.message, details)


def hello(
    user: Mapping[str, object],
    server_time: float,
    seat: Mapping[str, object] | None,
    squeeze_rate: float,
) -> dict[str, object]:
    """The first message on every connection (``squeeze_rate``: peel moves a second that
    reach a table; a screen sends no more)."""
    return {
        "type": "hello",
        "v": VERSION,
        "user": user,
        "server_time": server_time,
        "seat": seat,
        "squeeze_rate": squeeze_rate,
    }


def snapshot(
    table_id: str, seq: int, server_time: float, view: Mapping[str, object]
) -> dict[str, object]:
    """A table's whole view for one viewer, as of public event ``seq``."""
    return {
        "type": "snapshot",
        "table_id": table_id,
        "seq": seq,
        "server_time": server_time,
        "view": view,
    }


def event(
    table_id: str, seq: int, kind: str, data: Mapping[str, object], *, private: bool = False
) -> dict[str, object]:
    """One table event; a private one does not advance ``seq``."""
    out: dict[str, object] = {"type": "event", "table_id": table_id, "seq": seq}
    if private:
        out["private"] = True
    out["event"] = kind
    out["data"] = data
    return out
