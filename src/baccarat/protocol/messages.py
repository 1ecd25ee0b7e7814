"""The server's messages: one builder for each type of :mod:`.frames`.

Each builds the typed dictionary of one message of protocol v1 (docs/protocol.md), so the
type checker holds every message the server sends to the shape a client reads; the socket
layer encodes it with :func:`baccarat.protocol.codec.dumps` or, for many sockets at once, as
one finished frame. Keys go in the order a message is written on the wire.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Unpack

from baccarat.errors import BaccaratError
from baccarat.protocol.frames import (
    Ack,
    AckFields,
    Detail,
    Event,
    Hello,
    Lobby,
    LobbyTable,
    LobbyUpdate,
    Notice,
    Refusal,
    Room,
    Seat,
    Snapshot,
    User,
)
from baccarat.protocol.ids import MessageId
from baccarat.table.reducer import Data, View

VERSION = 1


def ack(msg_id: MessageId, **extra: Unpack[AckFields]) -> Ack:
    """The answer to a command that was carried out."""
    return {"type": "ack", "id": msg_id, **extra}


def error(
    msg_id: MessageId | None, code: str, message: str, details: Mapping[str, Detail] | None = None
) -> Refusal:
    """The answer to a command that was refused (and changed nothing)."""
    out: Refusal = {"type": "error", "id": msg_id, "code": code, "message": message}
    if details:
        out["details"] = dict(details)
    return out


def refusal(msg_id: MessageId | None, exc: BaccaratError) -> Refusal:
    """The error answer for ``exc``, with its details (the limit broken, the seat taken...)."""
    details = {
        k: v
        for k, v in exc.details.items()
        # ``id`` carries the refused message's own id out of the parser; not a detail.
        if k != "id" and (v is None or isinstance(v, str | int | float | bool))
    }
    return error(msg_id, exc.code, exc.message, details)


def hello(user: User, server_time: float, seat: Seat | None, squeeze_rate: float) -> Hello:
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


def snapshot(table_id: str, seq: int, server_time: float, view: View) -> Snapshot:
    """A table's whole view for one viewer, as of public event ``seq``."""
    return {
        "type": "snapshot",
        "table_id": table_id,
        "seq": seq,
        "server_time": server_time,
        "view": view,
    }


def event(
    table_id: str,
    seq: int,
    kind: str,
    data: Data,
    *,
    private: bool = False,
    server_time: float | None = None,
) -> Event:
    """One table event; a private one does not advance ``seq``. One with a time left carries
    ``server_time``, the server's clock when it was sent, as a snapshot does."""
    out: Event
    if private:
        out = {
            "type": "event",
            "table_id": table_id,
            "seq": seq,
            "private": True,
            "event": kind,
            "data": data,
        }
    else:
        out = {"type": "event", "table_id": table_id, "seq": seq, "event": kind, "data": data}
    if server_time is not None:
        out["server_time"] = server_time
    return out


def lobby(
    rooms: list[Room],
    tables: list[LobbyTable],
    *,
    room: str | None,
    road: str | None,
    page: int,
    pages: int,
    page_size: int,
    total: int,
) -> Lobby:
    """One page of the lobby (``pages`` of ``page_size`` tables; ``total`` tables in all)."""
    return {
        "type": "lobby",
        "rooms": rooms,
        "room": room,
        "road": road,
        "page": page,
        "pages": pages,
        "page_size": page_size,
        "total": total,
        "tables": tables,
    }


def lobby_update(tables: list[LobbyTable]) -> LobbyUpdate:
    """What changed on a page of the lobby: each changed table's id and changed fields."""
    return {"type": "lobby.update", "tables": tables}


def notice(text: Mapping[str, str], table_id: str | None = None) -> Notice:
    """An operator's notice: ``text`` by language (``zh-TW``, ``en``), for the players at
    ``table_id`` or, without one, for everyone in the lobby and at the tables."""
    return {"type": "notice", "table_id": table_id, "text": dict(text)}
