"""The server's messages as a client reads them: one typed dictionary per ``type``.

Pure: no I/O. These are the shapes :mod:`.messages` builds (a builder for each, which the
type checker holds to its shape) and ``docs/protocol.md`` (and
``docs/protocol/server.schema.json``) pin; a client narrows a :data:`ServerMessage` by its
``type`` (``if msg["type"] == "event": msg["data"]``). A view and an event's ``data`` keep
the reducer's JSON form (:data:`baccarat.table.reducer.View`), their keys pinned by the schema.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from baccarat.protocol.ids import MessageId
from baccarat.table.reducer import Data, View


class User(TypedDict):
    """A user as the server shows them to themselves."""

    id: int
    name: str
    display_name: str
    level: int
    coins: int


class Seat(TypedDict):
    """Where a user sits."""

    table_id: str
    seat: int


class Hello(TypedDict):
    """The first message on every connection."""

    type: Literal["hello"]
    v: int
    user: User
    server_time: float
    seat: Seat | None
    squeeze_rate: float


class AckFields(TypedDict, total=False):
    """What an ``ack`` may carry beside its id: a ``ping``'s the clock; a peel move replaced
    by a later one before its turn is ``coalesced``."""

    server_time: float
    coalesced: bool


class Ack(AckFields):
    """A command carried out."""

    type: Literal["ack"]
    id: MessageId


Detail = str | int | float | bool | None
"""A refusal's detail: a figure of the rule it broke (the limit, the area...)."""


class Refusal(TypedDict):
    """A command refused (it changed nothing), or a frame the server could not read."""

    type: Literal["error"]
    id: MessageId | None
    code: str
    message: str
    details: NotRequired[dict[str, Detail]]


class Snapshot(TypedDict):
    """A table's whole view for this viewer, as of public event ``seq``."""

    type: Literal["snapshot"]
    table_id: str
    seq: int
    server_time: float
    view: View


class Event(TypedDict):
    """One table event (a private one repeats the ``seq`` of the public one before it)."""

    type: Literal["event"]
    table_id: str
    seq: int
    private: NotRequired[bool]
    event: str
    data: Data
    server_time: NotRequired[float]


class Room(TypedDict):
    """A room of the lobby: its level, floors, limits and chips."""

    room_id: str
    name: str
    names: dict[str, str]
    min_level: int
    chip_unit: int
    bettor_floor: int
    dealer_floor: int
    dealer_round_limit: int
    limits: dict[str, int]
    chips: list[int]


class LobbyTable(TypedDict, total=False):
    """A table's line in the lobby (a ``lobby.update`` carries only the fields that changed)."""

    table_id: str
    room_id: str
    name: str
    names: dict[str, str]
    seats: list[dict[str, object] | None]
    taken: int
    watchers: int
    phase: str
    shoe_round: int
    commitment: str | None
    beads: list[dict[str, object]]
    queue: int
    good_roads: list[dict[str, object]]
    suspended: str | None
    node_id: str
    url: str


class Lobby(TypedDict):
    """One page of the lobby."""

    type: Literal["lobby"]
    rooms: list[Room]
    room: str | None
    road: str | None
    page: int
    pages: int
    page_size: int
    total: int
    tables: list[LobbyTable]


class LobbyUpdate(TypedDict):
    """What changed on the subscriber's page of the lobby."""

    type: Literal["lobby.update"]
    tables: list[LobbyTable]


class Notice(TypedDict):
    """An operator's notice, by language, for one table's players or for everyone."""

    type: Literal["notice"]
    table_id: str | None
    text: dict[str, str]


ServerMessage = Hello | Ack | Refusal | Snapshot | Event | Lobby | LobbyUpdate | Notice
"""Any message the server sends."""
