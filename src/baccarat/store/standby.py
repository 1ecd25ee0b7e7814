"""A standby met by a write: what a PostgreSQL failover looks like from a pooled connection.

While a standby is being promoted, a connection may reach a server that takes no writes (one
made through a URL without ``target_session_attrs=read-write``, or a primary an operator set
read-only to hand over): its write fails with ``ReadOnlySqlTransaction``. That connection is
of no use for writing again, so the pool drops every connection it holds, as it does when a
server goes away, and the write is retried as in any database outage: the next connection
goes to whichever host takes writes now.
"""

from __future__ import annotations

import psycopg
import sqlalchemy as sa


def met_standby(exc: BaseException) -> bool:
    """Whether ``exc`` is a write refused by a server that is read-only (a standby)."""
    orig = exc.orig if isinstance(exc, sa.exc.DBAPIError) else exc
    return isinstance(orig, psycopg.errors.ReadOnlySqlTransaction)


def drop_on_standby(engine: sa.Engine) -> None:
    """Make ``engine``'s pool drop its connections once one of them meets a standby."""

    @sa.event.listens_for(engine, "handle_error")
    def _on_error(context: sa.engine.ExceptionContext) -> None:
        if met_standby(context.original_exception):
            context.is_disconnect = True
