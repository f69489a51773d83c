"""webhook deliveries record when they were attempted

Revision ID: evt0006
Revises: evt0005

A delivery now leaves ``pending`` only when its request is about to be written (the connection
to the receiver is open), and ``attempted_at`` says when. A row ``sending`` before this
revision was claimed by an older worker before it connected, so whether a request left is
unknown: it counts as attempted at its claim (closed as failed if its worker is gone, never
sent twice).
"""
import sqlalchemy as sa
from alembic import op

from storeplatform.api import UTCDateTime

revision = 'evt0006'
down_revision = 'evt0005'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('evt_webhook_deliveries', schema=None) as batch_op:
        batch_op.add_column(sa.Column('attempted_at', UTCDateTime(timezone=True), nullable=True))
    op.execute("UPDATE evt_webhook_deliveries SET attempted_at = claimed_at WHERE status = 'sending'")


def downgrade():
    with op.batch_alter_table('evt_webhook_deliveries', schema=None) as batch_op:
        batch_op.drop_column('attempted_at')
