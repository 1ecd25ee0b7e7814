"""The server's messages: ``hello``, ``ack``, ``error``, ``snapshot``, ``event`` and ``notice``.

Each builds the JSON object of one message of protocol v1 (docs/protocol.md); the socket
layer encodes it with :func:`baccarat.protocol.codec.dumps` or, for many sockets at once,
as one finished frame.
"""

from __future__ import annotations

from collections.abc import Mapping

from baccarat.errors import BaccaratError
from baccarat.protocol.ids import MessageId

VERSION = 1


def ack(msg_id: MessageId | None, **extra: object) -> dict[str, object]:
    """The answer to a command that was carried out."""
    return {"type": "ack", "id": msg_id, **extra}


def error(
    msg_id: MessageId | None, code: str, message: str, details: Mapping[str, object] | None = None
) -> dict[str, object]:
    """The answer to a command that was refused (and changed nothing)."""
    out: dict[str, object] = {"type": "error", "id": msg_id, "code": code, "message": message}
    if details:
        out["details"] = details
    return out


def refusal(msg_id: MessageId | None, exc: BaccaratError) -> dict[str, object]:
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
    table_id: str,
    seq: int,
    kind: str,
    data: Mapping[str, object],
    *,
    private: bool = False,
    server_time: float | None = None,
) -> dict[str, object]:
    """One table event; a private one does not advance ``seq``. One with a time left carries
    ``server_time``, the server's clock when it was sent, as a snapshot does."""
    out: dict[str, object] = {"type": "event", "table_id": table_id, "seq": seq}
    if private:
        out["private"] = True
    out["event"] = kind
    out["data"] = data
    if server_time is not None:
        out["server_time"] = server_time
    return out


def notice(text: Mapping[str, str], table_id: str | None = None) -> dict[str, object]:
    """An operator's notice: ``text`` by language (``zh-TW``, ``en``), for the players at
    ``table_id`` or, without one, for everyone in the lobby and at the tables."""
    return {"type": "notice", "table_id": table_id, "text": dict(text)}
