"""orders by date (#31): an index on (created_at, id)

Revision ID: sp0010
Revises: sp0009

The admin's dashboard reads the paid orders of the last 30 days per day: with the index that
is a range of it, whatever the number of orders the site has had before.
"""
from alembic import op

revision = "sp0010"
down_revision = "sp0009"
branch_labels = None
depends_on = None


def upgrade():
    op.create_index("ix_orders_created_id", "orders", ["created_at", "id"])


def downgrade():
    op.drop_index("ix_orders_created_id", table_name="orders")
