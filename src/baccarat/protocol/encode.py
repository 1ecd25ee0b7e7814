"""Protocol version 1: a typed command written as a client's text frame, ``parse``'s inverse.

Pure: no I/O. ``frame(command, msg_id)`` is the JSON object of the command a client sends
(``{"type": "bet", "id": 3, "area": "banker", "chip": 5}``) and ``encode`` its text, so that
``parse(encode(command, msg_id), user_id)`` gives back ``command`` (acting for ``user_id``,
the connection's own user: a frame never names it). Each line of ``ENCODERS`` mirrors one
of :data:`baccarat.protocol.parse.COMMANDS`.

Only what a client may send is encoded: the table's commands that the server makes itself
(``Sit``, ``JoinQueue``, ``Disconnect``...) have no frame, and ``encode`` refuses them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from baccarat.protocol import codec
from baccarat.protocol.ids import MessageId
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

Fields = dict[str, object]
"""A frame's fields beside its ``type`` and ``id``."""

# Any: each line's function takes the one class it is keyed by (a dict cannot say so).
_Write = Callable[[Any], Fields]


def _none(_: object) -> Fields:
    return {}


def _lobby_subscribe(c: LobbySubscribe) -> Fields:
    # A field left out reads as its default: only what differs from it is written.
    fields: Fields = {"page": c.page} if c.page else {}
    if c.room is not None:
        fields["room"] = c.room
    if c.road is not None:
        fields["road"] = c.road
    return fields


def _leave_queue(c: LeaveQueue) -> Fields:
    if c.reason is not None:
        raise ValueError("a client leaves the dealer queue without a reason; the server gives one")
    return {}


ENCODERS: dict[type[Command | Request], tuple[str, _Write]] = {
    Ping: ("ping", _none),
    LobbySubscribe: ("lobby.subscribe", _lobby_subscribe),
    LobbyUnsubscribe: ("lobby.unsubscribe", _none),
    Watch: ("table.watch", lambda c: {"table_id": c.table_id}),
    Leave: ("table.leave", _none),
    Resync: ("resync", _none),
    TakeSeat: ("sit", lambda c: {"table_id": c.table_id, "seat": c.seat}),
    StandUp: ("stand", _none),
    PlaceChip: ("bet", lambda c: {"area": c.area, "chip": c.chip}),
    ClearBets: ("clear", _none),
    Rebet: ("rebet", _none),
    Double: ("double", _none),
    Undo: ("undo", _none),
    Urge: ("urge", _none),
    SqueezeProgress: (
        "squeeze",
        lambda c: {"hand": c.hand, "progress": c.progress, "corner": c.corner},
    ),
    OpenCard: ("open", lambda c: {"hand": c.hand}),
    QueueUp: ("queue.join", _none),
    LeaveQueue: ("queue.leave", _leave_queue),
    SetAutoOpen: ("prefs", lambda c: {"auto_open": c.on}),
    Say: ("say", lambda c: {"text": c.text}),
    Emote: ("emote", lambda c: {"emote": c.emote}),
}
"""Every command a client may send, by its class: its ``type`` and how its fields are written."""


def kind(command: Command | Request) -> str:
    """The frame ``type`` of ``command`` (``"bet"`` for a ``PlaceChip``)."""
    return _encoder(command)[0]


def frame(command: Command | Request, msg_id: MessageId) -> dict[str, object]:
    """The JSON object of ``command`` sent with the id ``msg_id``."""
    name, write = _encoder(command)
    return {"type": name, "id": msg_id, **write(command)}


def encode(command: Command | Request, msg_id: MessageId) -> str:
    """The text frame of ``command`` sent with the id ``msg_id`` (``parse`` reads it back)."""
    return codec.dumps(frame(command, msg_id))


def _encoder(command: Command | Request) -> tuple[str, _Write]:
    found = ENCODERS.get(type(command))
    if found is None:
        raise TypeError(f"{type(command).__name__} is not a command a client sends")
    return found
