"""Migrations: applied at open, idempotent, and matching the tables the code queries."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from baccarat.errors import Conflict, InvalidInput
from baccarat.store import Store, default_db_url, open_store
from baccarat.store.engine import MIGRATIONS, make_engine
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


def test_upgrading_gives_existing_accounts_canonical_keys_and_unique_clean_display_names(
    empty_db_url: str,
) -> None:
    # A database as the first revision left it, with display names the new rules refuse
    # or that collide once folded.
    engine = make_engine(empty_db_url, create=True)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
        for name, display in [
            ("mei", "Mei"),
            ("mei2", "MEI"),
            ("eve", "e\u202eve"),
            ("sam", "<b>Sam</b>"),
            ("strasse", "Straße"),
            ("strasse2", "STRASSE"),
        ]:
            conn.execute(
                sa.text(
                    "INSERT INTO users (username, username_key, password_hash, display_name,"
                    " level, coins, created_at) VALUES (:u, :k, 'x', :d, 50, 0, :t)"
                ),
                {"u": name, "k": name.casefold(), "d": display, "t": time.time()},
            )
    engine.dispose()
    store = open_store(empty_db_url)
    try:
        shown = {u.username: u.display_name for u in store.list_users()}
        assert shown == {
            "mei": "Mei",
            "mei2": "MEI 2",
            "eve": "eve",
            "sam": "sam",
            "strasse": "Straße",
            "strasse2": "STRASSE 2",
        }
        # The new rule holds from now on: a folded copy of a migrated name is refused.
        with pytest.raises(Conflict) as err:
            store.create_user("other", "pw", display_name="mei 2")
        assert err.value.code == "display_name_taken"
        assert store.get_user_by_name("ſtrasse").username == "strasse"
    finally:
        store.close()
