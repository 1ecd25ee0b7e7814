"""Shoes that outlive their node, and the commitment log.

Each shoe keeps its seed sealed (encrypted with a key the nodes hold, never the database's),
how far it was dealt, and why it ended; each round where its cards start in the shoe. Every
new shoe's commitment is appended to ``shoe_log``, a Merkle tree (RFC 6962) whose compact
state is ``log_state`` and whose signed heads are ``log_heads``. The log and its heads are
append-only.

Revision ID: commitment_log
Revises: operators
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "commitment_log"
down_revision = "operators"
branch_labels = None
depends_on = None

_APPEND_ONLY = "the commitment log is append-only"
_GUARDED = ("shoe_log", "log_heads")


def upgrade() -> None:
    """Add the columns and the log's tables, and guard the log."""
    op.add_column("shoes", sa.Column("sealed_seed", sa.Text, nullable=True))
    op.add_column("shoes", sa.Column("next_card", sa.Integer, nullable=True))
    op.add_column("shoes", sa.Column("end_reason", sa.String(16), nullable=True))
    op.add_column("shoes", sa.Column("log_index", sa.Integer, nullable=True))
    op.add_column("rounds", sa.Column("first_card", sa.Integer, nullable=True))
    op.create_index("shoes_unended", "shoes", ["table_id", "ended_at"])
    op.create_table(
        "shoe_log",
        sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("shoe_id", sa.String(64), nullable=False, unique=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("logged_at", sa.BigInteger, nullable=False),
        sa.Column("leaf_hash", sa.String(64), nullable=False),
    )
    op.create_table(
        "log_state",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("frontier", sa.JSON, nullable=False),
    )
    op.execute("INSERT INTO log_state (id, size, frontier) VALUES (1, 0, '[]')")
    op.create_table(
        "log_heads",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tree_size", sa.Integer, nullable=False),
        sa.Column("timestamp", sa.BigInteger, nullable=False),
        sa.Column("root_hash", sa.String(64), nullable=False),
        sa.Column("key_id", sa.String(16), nullable=False),
        sa.Column("signature", sa.String(128), nullable=False),
    )
    op.create_index("log_heads_size", "log_heads", ["tree_size", "timestamp"])
    _guard()


def _guard() -> None:
    """Refuse every UPDATE and DELETE of the log and its heads in the database itself."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"""
            CREATE FUNCTION commitment_log_append_only() RETURNS trigger AS $$
            BEGIN RAISE EXCEPTION '{_APPEND_ONLY}'; END $$ LANGUAGE plpgsql
            """
        )
        for table in _GUARDED:
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION commitment_log_append_only()"
            )
        return
    for table in _GUARDED:
        for what in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {table}_no_{what.lower()} BEFORE {what} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{_APPEND_ONLY}'); END"
            )


def downgrade() -> None:
    """Drop it all (for development databases only)."""
    if op.get_bind().dialect.name == "postgresql":
        for table in _GUARDED:
            op.execute(f"DROP TRIGGER {table}_append_only ON {table}")
        op.execute("DROP FUNCTION commitment_log_append_only()")
    op.drop_table("log_heads")
    op.drop_table("log_state")
    op.drop_table("shoe_log")
    op.drop_index("shoes_unended", table_name="shoes")
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("first_card")
    with op.batch_alter_table("shoes") as batch:
        for column in ("log_index", "end_reason", "next_card", "sealed_seed"):
            batch.drop_column(column)
