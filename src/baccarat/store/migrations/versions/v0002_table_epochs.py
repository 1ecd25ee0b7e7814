"""Each table's epoch: who may move its money now, and who sat there.

Revision ID: table_epochs
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "table_epochs"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """One row per table ever taken: its epoch, the node that took it, its seats."""
    op.create_table(
        "table_epochs",
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("epoch", sa.BigInteger, nullable=False),
        sa.Column("node_id", sa.String(128), nullable=False),
        sa.Column("taken_at", sa.Float, nullable=False),
        sa.Column("seats", sa.JSON, nullable=True),
        sa.CheckConstraint("epoch > 0", name="table_epochs_epoch_positive"),
    )


def downgrade() -> None:
    """Drop the epochs (for development databases only)."""
    op.drop_table("table_epochs")
