"""Migrations: applied at open, idempotent, and matching the tables the code queries."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from baccarat.errors import InvalidInput
from baccarat.store import Store, default_db_url, open_store
from baccarat.store.engine import MIGRATIONS
from baccarat.store.schema import metadata
from baccarat.store.url import driver_url


def test_the_migrated_schema_matches_the_tables_the_code_queries(store: Store) -> None:
    with store.engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), metadata)
    # Indexes and check constraints live only in the migration; tables and columns must agree.
    assert [
        d for d in diffs if d[0] in ("add_table", "remove_table", "add_column", "remove_column")
    ] == []


def test_opening_a_migrated_database_again_keeps_its_data(store: Store) -> None:
    store.create_user("Mei", "pw", coins=5)
    again = open_store(store.url)
    try:
        assert again.get_user_by_name("mei").coins == 5
        with again.engine.connect() as conn:
            version = conn.scalar(sa.text("SELECT version_num FROM alembic_version"))
        assert version == _head()
    finally:
        again.close()


def test_the_default_database_lives_under_the_xdg_data_home(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("BACCARAT_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", "/srv/data")
    assert default_db_url() == "sqlite:////srv/data/baccarat/baccarat.db"


def test_a_url_of_another_database_is_refused() -> None:
    with pytest.raises(InvalidInput) as err:
        open_store("mysql://u@h/db")
    assert err.value.code == "bad_db_url"


def test_a_postgresql_url_goes_through_psycopg() -> None:
    assert driver_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert driver_url("sqlite:///x.db") == "sqlite:///x.db"


def _head() -> str:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    assert head is not None
    return head


def test_the_migrations_have_a_single_head() -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    assert len(ScriptDirectory.from_config(cfg).get_heads()) == 1
