"""password reset keys (#41)

Revision ID: sp0017
Revises: sp0016

The key of a lost-password or welcome link, hashed: one row per user (a new link replaces the
last), found by its hash.
"""
import sqlalchemy as sa
from alembic import op

revision = "sp0017"
down_revision = "sp0016"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "password_reset_keys",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("purpose", sa.String(20), nullable=False),
        sa.Column("auth_version", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_password_reset_keys_user_id_users"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_password_reset_keys")),
        sa.UniqueConstraint("key_hash", name=op.f("uq_password_reset_keys_key_hash")),
        sqlite_autoincrement=True,  # as every table's (db/ids.py)
    )


def downgrade():
    op.drop_table("password_reset_keys")
