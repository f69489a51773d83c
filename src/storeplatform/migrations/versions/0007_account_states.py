"""users can be disabled, and end every session and token issued before (auth_version)

Revision ID: sp0007
Revises: sp0006
"""
import sqlalchemy as sa
from alembic import op

revision = "sp0007"
down_revision = "sp0006"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("disabled", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch.add_column(sa.Column("auth_version", sa.Integer(), server_default="0", nullable=False))


def downgrade():
    with op.batch_alter_table("users") as batch:
        batch.drop_column("auth_version")
        batch.drop_column("disabled")
