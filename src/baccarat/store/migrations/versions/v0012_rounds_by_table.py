"""The console finds a table's rounds by time: an index on table and escrow time.

Revision ID: rounds_by_table
Revises: login_addresses
"""

from __future__ import annotations

from alembic import op

revision = "rounds_by_table"
down_revision = "login_addresses"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """``rounds_table``: a table's rounds in escrow order (the id breaks a tie, as pages do)."""
    op.create_index("rounds_table", "rounds", ["table_id", "escrowed_at", "id"])


def downgrade() -> None:
    """Drop the index (for development databases only)."""
    op.drop_index("rounds_table", table_name="rounds")
