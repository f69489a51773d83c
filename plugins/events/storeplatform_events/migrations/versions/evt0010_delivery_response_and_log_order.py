"""webhook deliveries keep the start of the answer body, name what they send again, and the log
is read by creation time

Revision ID: evt0010
Revises: evt0009

The admin shows each delivery's request (the body is the payload already kept, the headers
``request_headers``) and its response: the status and now the first 4 KiB of the body
(``response_body``, ``response_truncated`` when there was more). "Deliver again" makes a new
delivery of the same payload, ``redelivery_of`` naming the one it repeats. A webhook's log is
newest first by ``created_at`` (the time it shows), ties by id: (webhook_id, created_at, id)
replaces the index on webhook_id alone, which it serves too.
"""
import sqlalchemy as sa
from alembic import op

revision = 'evt0010'
down_revision = 'evt0009'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('evt_webhook_deliveries', schema=None) as batch_op:
        batch_op.add_column(sa.Column('response_body', sa.Text(), nullable=True))
        batch_op.add_column(sa.Column('response_truncated', sa.Boolean(), nullable=True))
        batch_op.add_column(sa.Column('redelivery_of', sa.Integer(), nullable=True))
    op.create_index('ix_evt_webhook_deliveries_webhook_created_id', 'evt_webhook_deliveries',
                    ['webhook_id', 'created_at', 'id'])
    op.drop_index('ix_evt_webhook_deliveries_webhook_id', table_name='evt_webhook_deliveries')


def downgrade():
    op.create_index('ix_evt_webhook_deliveries_webhook_id', 'evt_webhook_deliveries', ['webhook_id'])
    op.drop_index('ix_evt_webhook_deliveries_webhook_created_id', table_name='evt_webhook_deliveries')
    with op.batch_alter_table('evt_webhook_deliveries', schema=None) as batch_op:
        batch_op.drop_column('redelivery_of')
        batch_op.drop_column('response_truncated')
        batch_op.drop_column('response_body')
