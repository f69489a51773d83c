"""audit log (#40): who changed what, when, from which address

Revision ID: sp0012
Revises: sp0011

One row per administrative change (``storeplatform.components.audit``): the actor's id and
login as they were (no foreign key: a deleted user's changes stay named), the client address,
kind, action, subject and a small JSON of details. The admin's page, REST and the CLI read the
newest first (by id), filtered by who acted, by kind or by time; the periodic pruning deletes by
time and by id.
"""
import sqlalchemy as sa
from alembic import op

from storeplatform.core.db.types import UTCDateTime

revision = "sp0012"
down_revision = "sp0011"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("actor_id", sa.Integer(), nullable=True),
        sa.Column("actor_login", sa.String(191), nullable=False),
        sa.Column("address", sa.String(64), nullable=True),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("subject", sa.String(191), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
        sqlite_autoincrement=True,  # ids never given twice (db/ids.py), as every table of the host
    )
    op.create_index("ix_audit_log_created_at", "audit_log", ["created_at"])
    op.create_index("ix_audit_log_actor_login_id", "audit_log", ["actor_login", "id"])
    op.create_index("ix_audit_log_actor_id_id", "audit_log", ["actor_id", "id"])
    op.create_index("ix_audit_log_kind_id", "audit_log", ["kind", "id"])


def downgrade():
    op.drop_index("ix_audit_log_kind_id", table_name="audit_log")
    op.drop_index("ix_audit_log_actor_id_id", table_name="audit_log")
    op.drop_index("ix_audit_log_actor_login_id", table_name="audit_log")
    op.drop_index("ix_audit_log_created_at", table_name="audit_log")
    op.drop_table("audit_log")
