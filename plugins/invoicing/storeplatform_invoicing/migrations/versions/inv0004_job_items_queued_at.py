"""job items: when each was last handed to the queue (the sweep re-queues lost hand-offs)

Revision ID: inv0004
Revises: inv0003

A bulk job started by a web request hands its tasks to the queue when the request commits; a
process that dies between the commit and the hand-off leaves items that no task will ever do.
``queued_at`` lets the periodic sweep find the items not done long after their hand-off. Rows
made before this revision have none, and count as handed off long ago.
"""
import sqlalchemy as sa
from alembic import op

from storeplatform.api import UTCDateTime

revision = 'inv0004'
down_revision = 'inv0003'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("invoicing_job_items") as batch:
        batch.add_column(sa.Column("queued_at", UTCDateTime(), nullable=True))
        batch.create_index("ix_invoicing_job_items_done_queued", ["done", "queued_at"])


def downgrade():
    with op.batch_alter_table("invoicing_job_items") as batch:
        batch.drop_index("ix_invoicing_job_items_done_queued")
        batch.drop_column("queued_at")
