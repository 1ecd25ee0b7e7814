"""Accounts, sessions, the double-entry ledger, shoes and rounds.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_LEDGER_TABLES = ("ledger_tx", "postings")


def upgrade() -> None:
    """Create every table, its constraints, and the append-only guard on the ledger."""
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("username_key", sa.String(64), nullable=False, unique=True),
        sa.Column("password_hash", sa.Text, nullable=False),
        sa.Column("display_name", sa.String(64), nullable=False),
        sa.Column("level", sa.Integer, nullable=False),
        sa.Column("coins", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.CheckConstraint("coins >= 0", name="users_coins_not_negative"),
        sa.CheckConstraint("level >= 0", name="users_level_not_negative"),
    )
    op.create_table(
        "system_wallets",
        sa.Column("name", sa.String(16), primary_key=True),
        sa.Column("balance", sa.BigInteger, nullable=False),
    )
    op.bulk_insert(
        sa.table(
            "system_wallets", sa.column("name", sa.String), sa.column("balance", sa.BigInteger)
        ),
        [{"name": "house", "balance": 0}, {"name": "mint", "balance": 0}],
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("sessions_user", "sessions", ["user_id"])
    op.create_table(
        "ledger_tx",
        sa.Column("key", sa.String(128), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("memo", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "postings",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tx_key", sa.String(128), sa.ForeignKey("ledger_tx.key"), nullable=False),
        sa.Column("wallet", sa.String(80), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.CheckConstraint("amount <> 0", name="postings_amount_not_zero"),
    )
    op.create_index("postings_tx", "postings", ["tx_key"])
    op.create_index("postings_wallet", "postings", ["wallet"])
    op.create_table(
        "shoes",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("seed", sa.String(64), nullable=True),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("ended_at", sa.Float, nullable=True),
    )
    op.create_table(
        "rounds",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("shoe_id", sa.String(64), nullable=False),
        sa.Column("round_no", sa.Integer, nullable=False),
        sa.Column("dealer_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("escrow", sa.BigInteger, nullable=False),
        sa.Column("cards", sa.JSON, nullable=True),
        sa.Column("outcome", sa.JSON, nullable=True),
        sa.Column("house", sa.BigInteger, nullable=True),
        sa.Column("escrowed_at", sa.Float, nullable=False),
        sa.Column("closed_at", sa.Float, nullable=True),
        sa.CheckConstraint("escrow >= 0", name="rounds_escrow_not_negative"),
        sa.CheckConstraint(
            "status IN ('escrowed', 'settled', 'voided')", name="rounds_status_known"
        ),
        sa.CheckConstraint("status = 'escrowed' OR escrow = 0", name="rounds_closed_escrow_empty"),
    )
    op.create_index("rounds_status", "rounds", ["status"])
    op.create_index("rounds_shoe", "rounds", ["shoe_id", "round_no"])
    op.create_table(
        "bets",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("round_id", sa.String(64), sa.ForeignKey("rounds.id"), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("area", sa.String(16), nullable=False),
        sa.Column("chips", sa.Integer, nullable=False),
        sa.Column("coins", sa.BigInteger, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.CheckConstraint("chips > 0 AND coins > 0", name="bets_positive"),
    )
    op.create_index("bets_round", "bets", ["round_id"])
    op.create_index("bets_user", "bets", ["user_id"])
    op.create_table(
        "round_results",
        sa.Column("round_id", sa.String(64), sa.ForeignKey("rounds.id"), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("delta", sa.BigInteger, nullable=False),
        sa.Column("commission", sa.BigInteger, nullable=False),
    )
    op.create_index("round_results_user", "round_results", ["user_id"])
    _forbid_ledger_changes()


def _forbid_ledger_changes() -> None:
    # The ledger is evidence: the database itself refuses to rewrite or erase it.
    if op.get_context().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'the ledger is append-only (% on %)', TG_OP, TG_TABLE_NAME; END $$"
        )
        for table in _LEDGER_TABLES:
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION ledger_append_only()"
            )
            op.execute(
                f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only()"
            )
    else:
        for table in _LEDGER_TABLES:
            for action in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END"
                )


def downgrade() -> None:
    """Drop everything (for development databases only)."""
    for table in (
        "round_results",
        "bets",
        "rounds",
        "shoes",
        "postings",
        "ledger_tx",
        "sessions",
        "system_wallets",
        "users",
    ):
        op.drop_table(table)
    if op.get_context().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS ledger_append_only()")
