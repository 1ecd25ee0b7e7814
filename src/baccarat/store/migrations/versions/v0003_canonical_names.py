"""Canonical names: username keys in NFKC case-folded form, unique display names.

Every row's ``username_key`` is recomputed in the canonical form of ``baccarat.names``
(the same as before for the ASCII names the server has always required). Each display name
is normalised by the display-name rules; one that breaks them falls back to the username,
and one whose folded form an older account already holds gets a number (``Mei 2``), so
the oldest account keeps its name. ``display_key`` holds the folded form, unique.

Revision ID: canonical_names
Revises: table_epochs
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from baccarat.errors import InvalidInput
from baccarat.names import DISPLAY_MAX, display_key, username_key, verify_display_name

revision = "canonical_names"
down_revision = "table_epochs"
branch_labels = None
depends_on = None

_users = sa.table(
    "users",
    sa.column("id", sa.Integer),
    sa.column("username", sa.String),
    sa.column("username_key", sa.String),
    sa.column("display_name", sa.String),
    sa.column("display_key", sa.String),
)


def _clean(display: str, username: str) -> str:
    try:
        return verify_display_name(display)
    except InvalidInput:
        return verify_display_name(username)


def _free(base: str, taken: set[str]) -> str:
    if display_key(base) not in taken:
        return base
    n = 2
    while True:
        tail = f" {n}"
        candidate = verify_display_name(base[: DISPLAY_MAX - len(tail)] + tail)
        if display_key(candidate) not in taken:
            return candidate
        n += 1


def upgrade() -> None:
    """Add ``display_key``, fill it and the canonical username keys, make it unique."""
    op.add_column(
        "users",
        sa.Column("display_key", sa.String(128), nullable=False, server_default=""),
    )
    conn = op.get_bind()
    rows = conn.execute(
        sa.select(
            _users.c.id, _users.c.username, _users.c.username_key, _users.c.display_name
        ).order_by(_users.c.id)
    ).all()
    names: dict[str, int] = {}
    taken: set[str] = set()
    for row in rows:
        key = username_key(row.username)
        if key in names:
            raise RuntimeError(
                f"users {names[key]} and {row.id} have the same canonical username {key!a}; "
                "rename one before upgrading"
            )
        names[key] = row.id
        display = _free(_clean(row.display_name, row.username), taken)
        taken.add(display_key(display))
        conn.execute(
            sa.update(_users)
            .where(_users.c.id == row.id)
            .values(
                username_key=key,
                display_name=display,
                display_key=display_key(display),
            )
        )
    op.create_index("users_display_key", "users", ["display_key"], unique=True)


def downgrade() -> None:
    """Drop ``display_key`` (display names stay as normalised)."""
    op.drop_index("users_display_key", table_name="users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("display_key")
