"""failed credential guesses per throttle key and window (login throttling)

Revision ID: sp0008
Revises: sp0007
"""
import sqlalchemy as sa
from alembic import op

revision = "sp0008"
down_revision = "sp0007"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "login_attempts",
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("window_start", sa.Integer(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key", "window_start", name=op.f("pk_login_attempts")),
    )


def downgrade():
    op.drop_table("login_attempts")
