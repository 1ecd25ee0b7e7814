"""The one way a command is answered: an ``ack`` or an ``error``, exactly once.

A command's outcome is a result: ``Ack`` (with any extra fields) when it was carried out, a
``BaccaratError`` when it was refused or failed (``InternalError``). Whoever finishes the
command hands the result to its ``Reply``: the dispatcher for what it answers itself, the
table's task for a table command. The task answers in order with the table's events, so a
``snapshot`` follows its ``ack`` and nothing the command caused overtakes it. Nothing else
writes an ack or an error to a socket.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from baccarat.errors import BaccaratError
from baccarat.protocol.frames import AckFields
from baccarat.protocol.messages import ack, refusal
from baccarat.server.metrics import Metrics
from baccarat.server.sockets.connection import Connection

log = logging.getLogger("baccarat.server")


@dataclass(frozen=True, slots=True)
class Ack:
    """The command was carried out; ``fields`` go into the ``ack`` beside its id."""

    fields: AckFields = field(default_factory=AckFields)


OK = Ack()
"""A plain ``ack``."""

Result = Ack | BaccaratError


class Reply:
    """One command's answer: sent once, to the connection that sent the command."""

    __slots__ = ("conn", "metrics", "msg_id", "sent")

    def __init__(self, conn: Connection, msg_id: str | int | None, metrics: Metrics) -> None:
        self.conn = conn
        self.msg_id = msg_id
        self.metrics = metrics
        self.sent = False

    def __call__(self, result: Result) -> None:
        """Send ``result`` as the command's ``ack`` or ``error`` (a second result is a bug,
        logged and not sent: a command has exactly one answer)."""
        if self.sent:
            log.error("command answered twice", extra={"id": self.msg_id, "result": repr(result)})
            return
        self.sent = True
        if isinstance(result, Ack):
            # Only a command read with its id is carried out; a frame without one is refused.
            assert self.msg_id is not None
            self.conn.answer(ack(self.msg_id, **result.fields))
        else:
            self.metrics.errors.labels(result.code).inc()
            self.conn.answer(refusal(self.msg_id, result))
