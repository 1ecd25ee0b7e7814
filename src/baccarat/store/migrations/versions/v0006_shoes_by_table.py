"""The shoe archive reads a table's shoes newest first: an index on table and start time.

Revision ID: shoes_by_table
Revises: user_prefs
"""

from __future__ import annotations

from alembic import op

revision = "shoes_by_table"
down_revision = "user_prefs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """``shoes_table``: a table's shoes in start order (the id breaks a tie, as pages do)."""
    op.create_index("shoes_table", "shoes", ["table_id", "started_at", "id"])


def downgrade() -> None:
    """Drop the index (for development databases only)."""
    op.drop_index("shoes_table", table_name="shoes")
