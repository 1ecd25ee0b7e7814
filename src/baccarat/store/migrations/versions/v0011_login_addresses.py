"""The addresses each account logged in from, for the risk view (``baccarat.risk``: a
hedging pair from one address weighs more). Kept apart from the sessions, which end.

Revision ID: login_addresses
Revises: platform
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "login_addresses"
down_revision = "platform"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the table."""
    op.create_table(
        "login_addresses",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("address", sa.String(64), primary_key=True),
        sa.Column("first_at", sa.Float, nullable=False),
        sa.Column("last_at", sa.Float, nullable=False),
    )
    op.create_index("login_addresses_by_address", "login_addresses", ["address"])


def downgrade() -> None:
    """Drop it (for development databases only)."""
    op.drop_table("login_addresses")
