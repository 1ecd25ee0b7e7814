"""An event's ``data`` on the wire: its fields (``to`` excepted) through :mod:`.values`.

Tuples become arrays, nested records objects. An event with a time on the driver's clock
also carries the time left in milliseconds when it was sent (``remaining_ms``, ``grace_ms``,
``ready_in_ms``).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import fields

from baccarat.cards import Card
from baccarat.protocol.values import (
    Json,
    JsonObject,
    card,
    mark,
    outcome,
    settlement,
    time_left,
)
from baccarat.roads.marks import RoundMark
from baccarat.rules import Outcome
from baccarat.settlement import Settlement
from baccarat.table.events import (
    EVENTS,
    Bet,
    BettingOpened,
    BettorUrged,
    CardDealt,
    Disconnected,
    Event,
    Queued,
    RoundSettled,
    SeatResult,
    Shuffling,
    SqueezeMoved,
    SqueezeStarted,
    Urged,
)


def _value(value: object) -> Json:
    """A field's value as JSON (the event fields' types only)."""
    match value:
        case None | bool() | int() | float() | str():
            return value
        case Card():
            return card(value)
        case Outcome():
            return outcome(value)
        case Settlement():
            return settlement(value)
        case RoundMark():
            return mark(value)
    return _compound(value)


def _compound(value: object) -> Json:
    """A record, array or mapping of an event's field as JSON, each value in its form."""
    match value:
        case Bet() | SeatResult() | Queued():
            return {f.name: _value(getattr(value, f.name)) for f in fields(value)}
        case tuple() | list():
            return [_value(v) for v in value]
        case Mapping():
            return {str(k): _value(v) for k, v in value.items()}
    raise TypeError(f"{type(value).__name__} has no JSON form")


_SCALARS = (int, float, str, bool, type(None))


def _plain(hint: object) -> bool:
    """Whether a field of this type is its own JSON (a number, text, true/false or null)."""
    if hint in _SCALARS:
        return True
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return True
    if origin in (types.UnionType, typing.Union):
        return all(_plain(arg) for arg in typing.get_args(hint))
    return False


def _plan(cls: type[object]) -> tuple[tuple[str, bool], ...]:
    hints = typing.get_type_hints(cls)
    return tuple((f.name, _plain(hints[f.name])) for f in fields(cls) if f.name != "to")  # type: ignore[arg-type]


_DATA_FIELDS: dict[type[object], tuple[tuple[str, bool], ...]] = {cls: _plan(cls) for cls in EVENTS}
"""Each event class's data keys (its fields, less the private recipient), and whether the
value is sent as it is; worked out once, since events are many and their classes few."""


def event_data(event: Event, now: float) -> JsonObject:
    """An event's ``data`` as sent at ``now`` (driver's clock)."""
    data: JsonObject = {}
    for name, plain in _DATA_FIELDS[type(event)]:
        value = getattr(event, name)
        data[name] = value if plain else _value(value)
    match event:
        case CardDealt(face_down=True):
            # A face-down card is not shown; its points would tell.
            del data["card"], data["points"]
        case (
            Shuffling(deadline=at)
            | BettingOpened(deadline=at)
            | SqueezeStarted(deadline=at)
            | RoundSettled(deadline=at)
        ):
            data["remaining_ms"] = time_left(at, now)
        case BettorUrged(deadline=at):
            data["remaining_ms"] = time_left(at, now)
        case SqueezeMoved(deadline=None):
            # Most moves leave the countdown as it is, and say nothing of it.
            del data["deadline"]
        case SqueezeMoved(deadline=at) if at is not None:
            data["remaining_ms"] = time_left(at, now)
        case Disconnected(grace_until=at):
            data["grace_ms"] = time_left(at, now)
        case Urged(ready_at=at):
            data["ready_in_ms"] = time_left(at, now)
    return data


def event_wire(event: Event, now: float) -> tuple[str, JsonObject]:
    """An event's protocol name and ``data`` as sent at ``now``."""
    return event.kind, event_data(event, now)
