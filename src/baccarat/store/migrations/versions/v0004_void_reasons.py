"""Why each voided round was voided, so the audit can tell a crash from a bug.

Rounds voided before this revision kept no reason: they are marked ``unrecorded``.

Revision ID: void_reasons
Revises: canonical_names
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "void_reasons"
down_revision = "canonical_names"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """``rounds.void_reason``: set when a round is voided, empty otherwise."""
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("void_reason", sa.String(32), nullable=True))
    op.execute("UPDATE rounds SET void_reason = 'unrecorded' WHERE status = 'voided'")


def downgrade() -> None:
    """Drop the reasons (for development databases only)."""
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("void_reason")
