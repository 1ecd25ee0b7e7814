"""What each event class says its wire ``data`` is, as JSON Schema, read off its type hints.

The schema test compares this with the pinned ``docs/protocol/server.schema.json``, so an
event's fields and the documented protocol cannot drift apart.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import MISSING, fields
from typing import Any

from baccarat.bets import Area
from baccarat.cards import Card
from baccarat.roads.marks import RoundMark
from baccarat.rules import Hand, Outcome
from baccarat.settlement import Settlement
from baccarat.table.events import (
    Bet,
    BettingOpened,
    BettorUrged,
    Disconnected,
    Queued,
    RoundSettled,
    SeatResult,
    Shuffling,
    SqueezeMoved,
    SqueezeStarted,
    Urged,
)

TIME_LEFT: dict[type[object], str] = {
    Shuffling: "remaining_ms",
    BettingOpened: "remaining_ms",
    SqueezeStarted: "remaining_ms",
    RoundSettled: "remaining_ms",
    BettorUrged: "remaining_ms",
    Disconnected: "grace_ms",
    Urged: "ready_in_ms",
}
"""The time left each event class adds to its data (``baccarat.protocol.values``)."""

TIME_LEFT_WITH_DEADLINE: dict[type[object], str] = {SqueezeMoved: "remaining_ms"}
"""The time left an event adds only when it carries its optional ``deadline``."""

NAMED: dict[object, dict[str, Any]] = {
    Card: {"$ref": "#/$defs/card"},
    Area: {"$ref": "#/$defs/area"},
    Hand: {"$ref": "#/$defs/hand"},
    Outcome: {"$ref": "#/$defs/outcome"},
    Settlement[int]: {"$ref": "#/$defs/settlement"},
    Bet: {"$ref": "#/$defs/bet"},
    SeatResult: {"$ref": "#/$defs/seat_result"},
    Queued: {"$ref": "#/$defs/queued"},
    RoundMark: {"$ref": "#/$defs/bead"},
}


def of_type(hint: object) -> dict[str, Any]:
    """The JSON Schema of one field's type."""
    if hint in NAMED:
        return NAMED[hint]
    if hint is bool:
        return {"type": "boolean"}
    if hint is int:
        return {"type": "integer"}
    if hint is float:
        return {"type": "number"}
    if hint is str:
        return {"type": "string"}
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        rest = [a for a in args if a is not type(None)]
        assert len(rest) == 1, hint
        return {"oneOf": [of_type(rest[0]), {"type": "null"}]}
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin is tuple:
        return {"type": "array", "items": of_type(args[0])}
    if origin is Mapping or origin is dict:
        key, value = args
        names = {"pattern": "^[0-9]+$"} if key is int else of_type(key)
        return {"type": "object", "propertyNames": names, "additionalProperties": of_type(value)}
    raise AssertionError(f"no JSON form for {hint!r}")


def data_schema(cls: type[object]) -> dict[str, Any]:
    """The schema of ``cls``'s wire data: its fields but ``to``, and the time left it adds."""
    hints = typing.get_type_hints(cls)
    props: dict[str, Any] = {}
    required: list[str] = []
    for f in fields(cls):  # type: ignore[arg-type]
        if f.name == "to":
            continue
        hint = hints[f.name]
        if f.default is None and f.default is not MISSING:
            # An optional field is left out rather than sent as null.
            rest = [a for a in typing.get_args(hint) if a is not type(None)]
            props[f.name] = of_type(rest[0])
            continue
        props[f.name] = of_type(hint)
        required.append(f.name)
    if cls in TIME_LEFT:
        props[TIME_LEFT[cls]] = {"type": "integer", "minimum": 0}
        required.append(TIME_LEFT[cls])
    if cls in TIME_LEFT_WITH_DEADLINE:
        props[TIME_LEFT_WITH_DEADLINE[cls]] = {"type": "integer", "minimum": 0}
    return {
        "type": "object",
        "required": required,
        "properties": props,
        "additionalProperties": False,
    }
