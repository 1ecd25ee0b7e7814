"""An outage of a part a node leans on (the database, the directory): which errors mean one,
and a background task's log of it, a warning when it starts and one when it ends.

A task that retries every second through a Redis restart would otherwise log a traceback a
second; an error that is not an outage (a bug) still logs its traceback every time.
"""

from __future__ import annotations

import logging

import psycopg
import sqlalchemy.exc
from redis import exceptions as redis_errors

from baccarat.store.standby import met_standby

_DATABASE = (
    sqlalchemy.exc.OperationalError,
    sqlalchemy.exc.InterfaceError,
    sqlalchemy.exc.TimeoutError,  # the pool waited for a connection in vain
    psycopg.OperationalError,
)
_DIRECTORY = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.BusyLoadingError,
)


def part_down(exc: BaseException) -> str | None:
    """Which part ``exc`` says is unreachable: ``database``, ``directory``, or None."""
    if isinstance(exc, _DATABASE) or met_standby(exc):
        # A write that met a standby: the database is failing over to it.
        return "database"
    if isinstance(exc, _DIRECTORY):
        return "directory"
    return None


def log_failure(
    log: logging.Logger, what: str, exc: BaseException, extra: dict[str, object] | None = None
) -> None:
    """Log a failure: one line when an outage is the cause (its task or caller retries), a
    traceback when it is anything else."""
    part = part_down(exc)
    if part is None:
        log.error(what, exc_info=exc, extra=extra)
    else:
        why = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
        log.warning(f"{what}: the {part} is unreachable", extra={**(extra or {}), "error": why})


class Outage:
    """One background task's view of the parts it leans on."""

    def __init__(self, what: str, log: logging.Logger) -> None:
        self.what = what
        self.log = log
        self.down: str | None = None
        """The part found down, until the task next succeeds."""

    def failed(self, exc: BaseException) -> None:
        """The task failed: a warning when an outage starts, a traceback for anything else."""
        part = part_down(exc)
        if part is None:
            self.log.exception(f"{self.what} failed")
        elif self.down is None:
            self.down = part
            self.log.warning(
                f"{self.what} failed: the {part} is unreachable; retrying quietly",
                extra={"error": f"{type(exc).__name__}: {exc}"[:300]},
            )

    def passed(self) -> None:
        """The task succeeded: an outage, if any, is over."""
        if self.down is not None:
            self.log.warning(f"{self.what} works again: the {self.down} is back")
            self.down = None
