"""When a live table's time stands still: while its database does not answer, and in the
phase a browser test holds it in (``baccarat serve --test-hooks``).

A table waiting on its database keeps its time, so a squeeze's countdown resumes with the
database rather than running out while nothing could happen. A test's hold is a breakpoint:
the table is driven to the moment the test needs instead of waiting for a time window.
"""

from __future__ import annotations

from collections.abc import Callable

from baccarat.server.tables.clock import TableClock
from baccarat.server.tables.ledger import TableLedger
from baccarat.table import Table


class Hold:
    """Freezes and thaws a table's clock; ``wake`` tells the table's task its time runs again."""

    def __init__(
        self, table: Table, clock: TableClock, ledger: TableLedger, wake: Callable[[], None]
    ) -> None:
        self.table = table
        self.clock = clock
        self.ledger = ledger
        self.wake = wake
        self.phase: str | None = None
        """The phase a test holds the table in, if any."""
        self.stepped_at = 0.0
        """The table's time the current step began at (when its write may have to wait)."""
        ledger.on_paused = self.check

    @property
    def held(self) -> bool:
        """Whether the table's time stands still."""
        return self.clock.frozen_at is not None

    def at(self, phase: str | None) -> None:
        """Hold the table whenever it is in ``phase`` (now, or when it next comes to it): its
        time stands still there, so the phase lasts, with the time it had left, until
        released (None). Commands and peel moves go on as usual; one that moves the table on
        (a card opened) lets its time run until it comes to ``phase`` again."""
        self.phase = phase
        self.check()

    def skip(self) -> None:
        """End the phase now: the table's time jumps to its next deadline (not while held)."""
        due = self.table.next_deadline
        if due is not None and not self.held:
            self.clock.skip_to(due)
            self.wake()

    def check(self, *, stepped: bool = False) -> None:
        """After every step (``stepped``), and when the ledger starts or stops waiting for the
        database: freeze the table's time in the held phase or while the database does not
        answer, thaw it otherwise. After a step, or while its write waits, the time stands
        still from the step's own time: what the step's write took is not the phase's (on a
        slow machine it could use up a short betting before the test's first bet)."""
        paused = self.ledger.paused
        holding = paused or (self.phase is not None and self.table.phase == self.phase)
        if holding:
            since_step = paused or stepped
            self.clock.freeze(min(self.clock(), self.stepped_at) if since_step else self.clock())
        elif self.clock.thaw():
            self.wake()
