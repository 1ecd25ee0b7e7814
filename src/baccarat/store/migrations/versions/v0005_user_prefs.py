"""Each user's table preferences, remembered across sessions (for now: 自動開牌).

Revision ID: user_prefs
Revises: void_reasons
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "user_prefs"
down_revision = "void_reasons"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """``user_prefs``: one row per user who changed a preference; no row means the defaults."""
    op.create_table(
        "user_prefs",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("auto_open", sa.Boolean, nullable=False),
    )


def downgrade() -> None:
    """Drop the preferences (for development databases only)."""
    op.drop_table("user_prefs")
