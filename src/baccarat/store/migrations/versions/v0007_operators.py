"""Operators: a role per account, TOTP secrets, bans and mutes, console sessions, and the
operator log that nothing updates or deletes.

Revision ID: operators
Revises: shoes_by_table
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "operators"
down_revision = "shoes_by_table"
branch_labels = None
depends_on = None

_APPEND_ONLY = "the operator log is append-only"


def upgrade() -> None:
    """Add the columns and tables, log every grant made before, and guard the log."""
    # Plain ADD COLUMNs: SQLite adds them in place (a batch would copy the table that
    # every other table points at).
    op.add_column(
        "users", sa.Column("role", sa.String(16), nullable=False, server_default="player")
    )
    op.add_column("users", sa.Column("totp_secret", sa.String(64), nullable=True))
    op.add_column(
        "users",
        sa.Column("totp_enrolled", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.add_column("users", sa.Column("totp_last", sa.BigInteger, nullable=True))
    op.add_column("users", sa.Column("banned", sa.Text, nullable=True))
    op.add_column("users", sa.Column("muted_until", sa.Float, nullable=True))
    # An operator's closing notice, so that a closed table stays closed on the next node.
    op.add_column("table_epochs", sa.Column("suspended", sa.Text, nullable=True))
    op.create_table(
        "admin_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    log = op.create_table(
        "operator_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("actor_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.String(128), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("before", sa.JSON, nullable=True),
        sa.Column("after", sa.JSON, nullable=True),
        sa.Column("ledger_tx", sa.String(128), nullable=True, unique=True),
    )
    op.create_index("operator_log_at", "operator_log", ["at"])
    # Grants made before the log existed: one entry each, from the ledger's own record.
    bind = op.get_bind()
    earlier = bind.execute(
        sa.text(
            "SELECT t.key, t.created_at, t.memo, p.wallet, p.amount FROM ledger_tx t "
            "JOIN postings p ON p.tx_key = t.key AND p.wallet LIKE 'user:%' "
            "WHERE t.kind = 'grant' ORDER BY t.created_at, t.key"
        )
    ).all()
    if earlier:
        op.bulk_insert(
            log,
            [
                {"at": r.created_at, "actor": "ledger", "action": "grant", "target": r.wallet,
                 "reason": r.memo, "after": {"coins": int(r.amount)}, "ledger_tx": r.key}
                for r in earlier
            ],
        )  # fmt: skip
    _guard()


def _guard() -> None:
    """Refuse every UPDATE and DELETE of the log in the database itself."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"""
            CREATE FUNCTION operator_log_append_only() RETURNS trigger AS $$
            BEGIN RAISE EXCEPTION '{_APPEND_ONLY}'; END $$ LANGUAGE plpgsql
            """
        )
        op.execute(
            "CREATE TRIGGER operator_log_append_only BEFORE UPDATE OR DELETE ON operator_log "
            "FOR EACH ROW EXECUTE FUNCTION operator_log_append_only()"
        )
        return
    for what in ("UPDATE", "DELETE"):
        op.execute(
            f"CREATE TRIGGER operator_log_no_{what.lower()} BEFORE {what} ON operator_log "
            f"BEGIN SELECT RAISE(ABORT, '{_APPEND_ONLY}'); END"
        )


def downgrade() -> None:
    """Drop it all (for development databases only)."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER operator_log_append_only ON operator_log")
        op.execute("DROP FUNCTION operator_log_append_only()")
    op.drop_table("operator_log")
    op.drop_table("admin_sessions")
    with op.batch_alter_table("table_epochs") as batch:
        batch.drop_column("suspended")
    with op.batch_alter_table("users") as batch:
        for column in (
            "muted_until",
            "banned",
            "totp_last",
            "totp_enrolled",
            "totp_secret",
            "role",
        ):
            batch.drop_column(column)
