"""A write that meets a read-only server (a standby, in a failover): it counts as a database
outage, and the pool drops the connection, so the next write goes where writes are taken."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from baccarat.cluster.outage import part_down
from baccarat.store import Grant, Store, open_store
from baccarat.store.standby import met_standby
from pgschema import private_schema


def _read_only_pool(store: Store) -> int:
    """Leave the pool one connection, its session read-only as a standby's; its backend."""
    store.engine.dispose()
    with store.engine.connect() as conn:
        pid = int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())
        conn.exec_driver_sql("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        conn.commit()
    return pid


def _backend(store: Store) -> int:
    with store.engine.connect() as conn:
        return int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())


@pytest.mark.postgres
def test_a_write_refused_as_read_only_is_an_outage_and_its_connection_is_dropped() -> None:
    with private_schema("standby") as url:
        store = open_store(url)
        try:
            stale = _read_only_pool(store)
            with pytest.raises(sa.exc.InternalError) as err:
                store.create_user("mei", "password1")
            assert met_standby(err.value)
            assert part_down(err.value) == "database"
            store.create_user("mei", "password1")
            assert _backend(store) != stale
        finally:
            store.close()


@pytest.mark.postgres
def test_a_ledger_write_that_meets_a_read_only_connection_lands_on_a_fresh_one() -> None:
    with private_schema("standby") as url:
        store = open_store(url)
        try:
            user = store.create_user("mei", "password1")
            _read_only_pool(store)
            store.submit(Grant(user.user_id, 300, "welcome", "grant:standby")).result(30)
            assert store.balance(user.user_id) == 300
            assert store.audit().ok
        finally:
            store.close()
