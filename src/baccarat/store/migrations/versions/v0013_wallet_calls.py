"""The seamless wallet: every call to the platform's wallet and every answer.

Revision ID: wallet_calls
Revises: rounds_by_table
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "wallet_calls"
down_revision = "rounds_by_table"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """``wallet_calls`` (one row a call, by the game's id) and ``wallet_answers``."""
    op.create_table(
        "wallet_calls",
        sa.Column("call_id", sa.String(96), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("round_id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("platform_user", sa.String(128), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("refers_to", sa.String(96), nullable=True),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("answered_at", sa.Float, nullable=True),
    )
    op.create_index("wallet_calls_by_round", "wallet_calls", ["round_id"])
    op.create_index("wallet_calls_by_state", "wallet_calls", ["state"])
    op.create_table(
        "wallet_answers",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("call_id", sa.String(96), sa.ForeignKey("wallet_calls.call_id"), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("status", sa.Integer, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
    )
    op.create_index("wallet_answers_by_call", "wallet_answers", ["call_id"])


def downgrade() -> None:
    """Drop both (for development databases only)."""
    op.drop_table("wallet_answers")
    op.drop_table("wallet_calls")
