"""oauth nonces

Revision ID: oauth0001
Revises:
"""
import sqlalchemy as sa
from alembic import op

revision = "oauth0001"
down_revision = None
branch_labels = ("oauth",)
depends_on = "sp0001"  # consumer_keys


def upgrade():
    op.create_table(
        "oauth_nonces",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("consumer_key_id", sa.Integer(), nullable=False),
        sa.Column("nonce_hash", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["consumer_key_id"], ["consumer_keys.id"],
                                name=op.f("fk_oauth_nonces_consumer_key_id_consumer_keys"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_oauth_nonces")),
        sa.UniqueConstraint("consumer_key_id", "nonce_hash", name=op.f("uq_oauth_nonces_consumer_key_id")),
    )
    op.create_index(op.f("ix_oauth_nonces_expires_at"), "oauth_nonces", ["expires_at"], unique=False)


def downgrade():
    op.drop_index(op.f("ix_oauth_nonces_expires_at"), table_name="oauth_nonces")
    op.drop_table("oauth_nonces")
