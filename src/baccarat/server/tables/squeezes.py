"""Peel moves, coalesced: at most one per hand every interval reaches the table.

A squeeze sends many moves a second; the table needs only the latest. A move replaced by a
later one before it reached the table is acknowledged with ``coalesced: true``; the one that
reaches it is answered like any command, once its events are published. Paced on the base
clock, so that the moves go on while the table is held.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from baccarat.errors import BaccaratError
from baccarat.server.sockets.replies import OK, Ack, Reply
from baccarat.table import Event, SqueezeProgress, Table

CLOCK_TICK = 0.001
"""The loop's clock and timers count whole milliseconds (uvloop's do): a time less than one
tick away counts as come. Otherwise a timer that fires on its tick, a rounding short of the
time it was set for, wakes the task again and again, with nothing to do, until the clock's
next tick (hundreds of empty steps for one peel move on an idle loop)."""


class SqueezeMoves:
    """The moves waiting for their turn, one per hand, and when each hand last moved."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        """Seconds between two moves of a hand that reach the table, at least."""
        self._waiting: dict[str, SqueezeProgress] = {}
        self._replies: dict[str, Reply] = {}
        self._last: dict[str, float] = {}

    def put(self, cmd: SqueezeProgress, reply: Reply) -> float | None:
        """Keep ``cmd`` as its hand's next move; the time it falls due, or None when it
        replaces a move that is already due then."""
        replaced = self._replies.get(cmd.hand)
        if replaced is not None:
            replaced(Ack({"coalesced": True}))
        self._waiting[cmd.hand] = cmd
        self._replies[cmd.hand] = reply
        return None if replaced is not None else self._due(cmd.hand)

    def next_due(self) -> float | None:
        """When the first waiting move falls due (base clock), None with none waiting."""
        return min((self._due(h) for h in self._waiting), default=None)

    def flush(
        self,
        table: Table,
        now: float,
        base: float,
        answers: list[Callable[[], None]],
        *,
        force: bool = False,
    ) -> list[Event]:
        """Hand the table every move due at ``base`` (all with ``force``); each move's answer
        goes into ``answers``, to be sent once its events are published."""
        events: list[Event] = []
        for hand, cmd in list(self._waiting.items()):
            if not force and base < self._due(hand) - CLOCK_TICK:
                continue
            del self._waiting[hand]
            reply = self._replies.pop(hand)
            self._last[hand] = base
            try:
                events.extend(table.handle(cmd, now))
            except BaccaratError as exc:
                answers.append(functools.partial(reply, exc))
            else:
                answers.append(functools.partial(reply, OK))
        return events

    def _due(self, hand: str) -> float:
        return self._last.get(hand, -1.0) + self.interval
