"""The operators' bounds: grants waiting for a second operator, the console's lockout after
wrong codes, the one-minute tokens of ``baccarat admin``, and where the running servers
answer.

Revision ID: operator_bounds
Revises: commitment_log
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "operator_bounds"
down_revision = "commitment_log"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the columns and tables."""
    op.add_column(
        "users", sa.Column("code_failures", sa.Integer, nullable=False, server_default="0")
    )
    op.add_column("users", sa.Column("console_locked", sa.Float, nullable=True))
    op.create_table(
        "grant_requests",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("coins", sa.BigInteger, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("why", sa.String(16), nullable=False),
        sa.Column("requested_by", sa.String(64), nullable=False),
        sa.Column("requested_by_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("decided_by", sa.String(64), nullable=True),
        sa.Column("decided_by_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("decided_at", sa.Float, nullable=True),
        sa.Column("decision", sa.Text, nullable=True),
        sa.Column("ledger_tx", sa.String(128), nullable=True),
    )
    op.create_index("grant_requests_status", "grant_requests", ["status", "id"])
    op.create_table(
        "cli_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_table(
        "console_endpoints",
        sa.Column("node_id", sa.String(128), primary_key=True),
        sa.Column("url", sa.String(512), nullable=False),
        sa.Column("seen_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    """Drop it all (for development databases only)."""
    op.drop_table("console_endpoints")
    op.drop_table("cli_tokens")
    op.drop_table("grant_requests")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("console_locked")
        batch.drop_column("code_failures")
