"""Opening a database: what a command may find at the URL it was given, said in one line.

Only ``baccarat serve`` (or an explicit ``--create``) makes a database; every other command
opens one that exists and holds this program's tables, so a mistyped path or URL is refused
by name instead of being answered from an empty new database.
"""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa

from baccarat.errors import BaccaratError, InvalidInput, NotFound

SCHEMA_MARK = "alembic_version"
"""The table every database this program made holds (the migrations' own)."""


def verify_ours(engine: sa.Engine) -> None:
    """Refuse a database that exists but holds none of this program's tables (``no_database``):
    a PostgreSQL database or schema never served, or an SQLite file of another program."""
    with engine.connect() as conn:
        ours = sa.inspect(conn).has_table(SCHEMA_MARK)
    if not ours:
        raise NotFound(
            "no_database",
            f"{_shown(engine)} holds no baccarat database: check the URL (only baccarat serve "
            "creates a database).",
        )


def refusal(engine: sa.Engine, exc: sa.exc.SQLAlchemyError) -> BaccaratError:
    """The one-line refusal of a database that could not be opened or read."""
    orig = getattr(exc, "orig", None)
    why = (str(orig or exc).strip().splitlines() or [type(exc).__name__])[0]
    if isinstance(orig, sqlite3.DatabaseError) and not isinstance(orig, sqlite3.OperationalError):
        return InvalidInput(
            "not_a_database", f"{_shown(engine)} is not a baccarat database ({why})."
        )
    return BaccaratError(
        "db_unreachable",
        f"The database {_shown(engine)} cannot be opened: {why}. Check --db and that the "
        "database is running.",
    )


def _shown(engine: sa.Engine) -> str:
    """The database as a person named it: the SQLite file, or the URL without its password."""
    if engine.dialect.name == "sqlite":
        return str(engine.url.database)
    # The driver's name is the program's business, not the person's: show the URL as given.
    return engine.url.render_as_string(hide_password=True).replace("+psycopg", "", 1)
