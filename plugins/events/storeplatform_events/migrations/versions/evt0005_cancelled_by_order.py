"""tickets remember whether their order cancelled them

Revision ID: evt0005
Revises: evt0004

A ticket cancelled before this revision counts as cancelled by its order when that order is
cancelled or refunded now; any other cancelled ticket was cancelled on purpose.
"""
from alembic import op
import sqlalchemy as sa

revision = 'evt0005'
down_revision = 'evt0004'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('evt_attendees', schema=None) as batch_op:
        batch_op.add_column(sa.Column('cancelled_by_order', sa.Boolean(), nullable=False, server_default=sa.false()))
    op.execute("UPDATE evt_attendees SET cancelled_by_order = true WHERE status = 'cancelled' AND order_id IN "
               "(SELECT id FROM orders WHERE status IN ('cancelled', 'refunded'))")


def downgrade():
    with op.batch_alter_table('evt_attendees', schema=None) as batch_op:
        batch_op.drop_column('cancelled_by_order')
