"""webhook deliveries carry their timestamp

Revision ID: evt0003
Revises: evt0002
Create Date: 2026-12-02 10:00:00.000000

The envelope's timestamp was read back from the stored body when sending; it is now a column
filled when the delivery is written. Rows already there get it from their body, once.
"""
import json

from alembic import op
import sqlalchemy as sa


revision = 'evt0003'
down_revision = 'evt0002'
branch_labels = None
depends_on = None

deliveries = sa.table('evt_webhook_deliveries', sa.column('id', sa.Integer), sa.column('body', sa.Text),
                      sa.column('timestamp', sa.String))


def upgrade():
    with op.batch_alter_table('evt_webhook_deliveries', schema=None) as batch_op:
        batch_op.add_column(sa.Column('timestamp', sa.String(length=19), nullable=True))
    conn = op.get_bind()
    for delivery_id, body in conn.execute(sa.select(deliveries.c.id, deliveries.c.body)).all():
        conn.execute(deliveries.update().where(deliveries.c.id == delivery_id)
                     .values(timestamp=json.loads(body)["timestamp"]))
    with op.batch_alter_table('evt_webhook_deliveries', schema=None) as batch_op:
        batch_op.alter_column('timestamp', existing_type=sa.String(length=19), nullable=False)


def downgrade():
    with op.batch_alter_table('evt_webhook_deliveries', schema=None) as batch_op:
        batch_op.drop_column('timestamp')
