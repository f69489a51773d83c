"""ticket types: the places and the sale window of a product that is a ticket for an event

Revision ID: evt0012
Revises: evt0011

One row per ticket product (``meta.event_id``), written from the product's ``meta`` whenever the
shop saves it: the event's page lists its ticket types by event (an index), and an order that
takes places locks the row while it counts them. The rows of the ticket products made before
this are made here from their ``meta`` (capacity 0: no limit of their own; no sale window).
"""
import sqlalchemy as sa
from alembic import op

revision = 'evt0012'
down_revision = 'evt0011'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "evt_ticket_types",
        sa.Column("product_id", sa.Integer(), sa.ForeignKey("products.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("capacity", sa.Integer(), nullable=False),
        sa.Column("sales_start", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sales_end", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_evt_ticket_types_event_id", "evt_ticket_types", ["event_id"])
    bind = op.get_bind()
    products = sa.table("products", sa.column("id", sa.Integer), sa.column("meta", sa.JSON))
    rows = []
    for product_id, meta in bind.execute(sa.select(products.c.id, products.c.meta)):
        event_id = (meta or {}).get("event_id") if isinstance(meta, dict) else None
        if isinstance(event_id, str) and event_id.strip().isdigit():
            event_id = int(event_id.strip())
        if isinstance(event_id, int) and not isinstance(event_id, bool) and 0 < event_id < 2 ** 31:
            rows.append({"product_id": product_id, "event_id": event_id, "capacity": 0})
    if rows:
        op.bulk_insert(sa.table("evt_ticket_types", sa.column("product_id", sa.Integer),
                                sa.column("event_id", sa.Integer), sa.column("capacity", sa.Integer)), rows)


def downgrade():
    op.drop_index("ix_evt_ticket_types_event_id", table_name="evt_ticket_types")
    op.drop_table("evt_ticket_types")
