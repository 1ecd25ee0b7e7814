"""Protocol version 1: a client's text frame read straight into a typed command.

Pure: no I/O. ``parse`` checks a frame against the same rules as
``docs/protocol/client.schema.json`` and returns a ``Message`` whose ``command`` is the
table's command dataclass (``PlaceChip``...) or a server request (:mod:`.requests`), acting
for the connection's own user; or it raises ``InvalidInput`` (``bad_message`` naming the
field, or ``unknown_command``) with the command's ``id`` when one could be read. Each
command's ``type`` and fields are its entry of :data:`baccarat.protocol.registry.REGISTRY`;
each field's check is in :mod:`.fields`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from baccarat.errors import InvalidInput
from baccarat.protocol import codec
from baccarat.protocol.fields import Fields, integral
from baccarat.protocol.ids import MessageId, UserId
from baccarat.protocol.registry import BY_TYPE
from baccarat.protocol.requests import Request
from baccarat.table.commands import Command

MAX_FRAME = 4096
"""A client's message is small; anything longer is refused before parsing."""


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
    entry = BY_TYPE.get(kind)
    if entry is None:
        raise InvalidInput("unknown_command", f"{kind[:40]!r} is not a command.", id=msg_id)
    fields = Fields(kind, msg_id, data)
    command = entry.read(user_id, fields)
    extra = sorted(set(data) - fields.used)
    if extra:
        raise InvalidInput(
            "bad_message", f"{kind} does not take the field(s) {', '.join(extra)}.", id=msg_id
        )
    return Message(kind, msg_id, command)
