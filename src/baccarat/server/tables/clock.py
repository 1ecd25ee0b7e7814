"""A table's own time: the loop's clock, less the time the table stood still.

A table's time stands still while a test holds it in a phase (``--test-hooks``) or while its
database does not answer, so a countdown resumes where it stood instead of running out while
nothing could happen. The squeeze moves' pace and the task's timers stay on the base clock.
"""

from __future__ import annotations

from collections.abc import Callable


class TableClock:
    """The table's time: ``clock()`` reads it; ``freeze`` and ``thaw`` stop and restart it."""

    def __init__(self, base: Callable[[], float]) -> None:
        self.base = base
        """The loop's clock, or a test's."""
        self.lag = 0.0
        """How far the table's time lags the base clock: the stops' total so far."""
        self.frozen_at: float | None = None
        """The table's time at which it stands still, None while it runs."""

    def __call__(self) -> float:
        """The table's time now."""
        return self.frozen_at if self.frozen_at is not None else self.base() - self.lag

    def on_base(self, at: float) -> float:
        """The base clock's time at which the table's time reaches ``at`` (if it runs on)."""
        return at + self.lag

    def freeze(self, at: float) -> None:
        """Stop the table's time at ``at`` (at most now)."""
        if self.frozen_at is None:
            self.frozen_at = at

    def thaw(self) -> bool:
        """Let the table's time run on from where it stood; False when it was running."""
        if self.frozen_at is None:
            return False
        self.lag = self.base() - self.frozen_at
        self.frozen_at = None
        return True

    def skip_to(self, at: float) -> None:
        """Move the running table's time on to ``at`` at once (a test's skip): what was due
        by then is due now."""
        now = self()
        if self.frozen_at is None and at > now:
            self.lag -= at - now
