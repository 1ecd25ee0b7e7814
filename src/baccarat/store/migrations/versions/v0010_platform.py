"""The operator's platform: its users linked to accounts, the launch tokens already used,
the transfers in and out of the game's wallet, and the platform's wallet in the ledger.

Revision ID: platform
Revises: operator_bounds
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "platform"
down_revision = "operator_bounds"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the tables and the ``platform`` system wallet."""
    op.create_table(
        "platform_users",
        sa.Column("platform_user", sa.String(128), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, unique=True),
        sa.Column("linked_at", sa.Float, nullable=False),
        sa.Column("launched_at", sa.Float, nullable=False),
    )
    op.create_table(
        "platform_tokens",
        sa.Column("jti", sa.String(128), primary_key=True),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_table(
        "platform_transfers",
        sa.Column("transfer_id", sa.String(64), primary_key=True),
        sa.Column("platform_user", sa.String(128), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("balance", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("platform_transfers_by_time", "platform_transfers", ["created_at"])
    wallets = sa.table("system_wallets", sa.column("name"), sa.column("balance"))
    op.bulk_insert(wallets, [{"name": "platform", "balance": 0}])


def downgrade() -> None:
    """Drop it all (for development databases only)."""
    op.execute("DELETE FROM system_wallets WHERE name = 'platform'")
    op.drop_table("platform_transfers")
    op.drop_table("platform_tokens")
    op.drop_table("platform_users")
