"""Protocol version 1: a typed command written as a client's text frame, ``parse``'s inverse.

Pure: no I/O. ``frame(command, msg_id)`` is the JSON object of the command a client sends
(``{"type": "bet", "id": 3, "area": "banker", "chip": 5}``) and ``encode`` its text, so that
``parse(encode(command, msg_id), user_id)`` gives back ``command`` (acting for ``user_id``,
the connection's own user: a frame never names it). Both read the command's entry of
:data:`baccarat.protocol.registry.REGISTRY`.

Only what a client may send is encoded: the table's commands that the server makes itself
(``Sit``, ``JoinQueue``, ``Disconnect``...) have no entry, and ``encode`` refuses them.
"""

from __future__ import annotations

from baccarat.protocol import codec
from baccarat.protocol.ids import MessageId
from baccarat.protocol.registry import BY_CLASS, Entry
from baccarat.protocol.requests import Request
from baccarat.table.commands import Command


def kind(command: Command | Request) -> str:
    """The frame ``type`` of ``command`` (``"bet"`` for a ``PlaceChip``)."""
    return _entry(command).type


def frame(command: Command | Request, msg_id: MessageId) -> dict[str, object]:
    """The JSON object of ``command`` sent with the id ``msg_id``."""
    entry = _entry(command)
    return {"type": entry.type, "id": msg_id, **entry.write(command)}


def encode(command: Command | Request, msg_id: MessageId) -> str:
    """The text frame of ``command`` sent with the id ``msg_id`` (``parse`` reads it back)."""
    return codec.dumps(frame(command, msg_id))


def _entry(command: Command | Request) -> Entry:
    entry = BY_CLASS.get(type(command))
    if entry is None:
        raise TypeError(f"{type(command).__name__} is not a command a client sends")
    return entry
