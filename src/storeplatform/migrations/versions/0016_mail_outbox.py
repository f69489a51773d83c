"""mail outbox (#41): messages recorded with the change, sent by the queue

Revision ID: sp0016
Revises: sp0015

One row per message (``storeplatform.components.mail``): the whole message as built (the bytes
every attempt sends), its envelope, status and attempts, the server's last answer. The worker
takes a row by id; the sweep reads the waiting rows by status and due time; the admin's mail log
reads newest first by id, all or by status.
"""
import sqlalchemy as sa
from alembic import op

from storeplatform.core.db.types import UTCDateTime

revision = "sp0016"
down_revision = "sp0015"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "mail_outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("sender", sa.String(320), nullable=False),
        sa.Column("recipients", sa.JSON(), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("message_id", sa.String(255), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", UTCDateTime(), nullable=False),
        sa.Column("queued_at", UTCDateTime(), nullable=False),
        sa.Column("attempted_at", UTCDateTime(), nullable=True),
        sa.Column("finished_at", UTCDateTime(), nullable=True),
        sa.Column("response_code", sa.Integer(), nullable=True),
        sa.Column("response", sa.Text(), nullable=True),
        sa.Column("resend_of", sa.Integer(), nullable=True),
        sa.Column("context", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail_outbox")),
        sqlite_autoincrement=True,  # ids never given twice (db/ids.py), as every table of the host
    )
    op.create_index("ix_mail_outbox_status_id", "mail_outbox", ["status", "id"])
    op.create_index("ix_mail_outbox_status_next_attempt_at", "mail_outbox", ["status", "next_attempt_at"])


def downgrade():
    op.drop_index("ix_mail_outbox_status_next_attempt_at", table_name="mail_outbox")
    op.drop_index("ix_mail_outbox_status_id", table_name="mail_outbox")
    op.drop_table("mail_outbox")
