"""order notes and refunds (#40)

Revision ID: sp0013
Revises: sp0012

- ``order_notes``: an order's history, one row per line (a status change, a refund, a plugin's
  document, a note a person wrote), private or for the customer.
- ``order_refunds`` and ``order_refund_lines``: money given back on an order, and what of each of
  its lines (units, money).

The refunds count in the ``store`` generation, as the orders do; the notes in a generation of
their own, so that a note leaves the shop's kept answers kept (the models declare them;
``storeplatform migrate`` makes their triggers after the migrations). Ids are never given twice
(AUTOINCREMENT on SQLite, as sp0002 made every host table).
"""
import sqlalchemy as sa
from alembic import op

import storeplatform.core.db.types

revision = "sp0013"
down_revision = "sp0012"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "order_notes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("order_id", sa.Integer(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("customer_note", sa.Boolean(), nullable=False),
        sa.Column("added_by_user", sa.Boolean(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=True),
        sa.Column("author", sa.String(length=250), nullable=False),
        sa.Column("created_at", storeplatform.core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["author_id"], ["users.id"], name=op.f("fk_order_notes_author_id_users"),
                                ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["order_id"], ["orders.id"], name=op.f("fk_order_notes_order_id_orders"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_order_notes")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_order_notes_order_id"), "order_notes", ["order_id"])
    op.create_table(
        "order_refunds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("order_id", sa.Integer(), nullable=False),
        sa.Column("amount", storeplatform.core.db.types.Money(precision=18, scale=4), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("refunded_by", sa.Integer(), nullable=True),
        sa.Column("created_at", storeplatform.core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["order_id"], ["orders.id"], name=op.f("fk_order_refunds_order_id_orders"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["refunded_by"], ["users.id"], name=op.f("fk_order_refunds_refunded_by_users"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_order_refunds")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_order_refunds_order_id"), "order_refunds", ["order_id"])
    op.create_table(
        "order_refund_lines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("refund_id", sa.Integer(), nullable=False),
        sa.Column("order_item_id", sa.Integer(), nullable=False),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.Column("refund_total", storeplatform.core.db.types.Money(precision=18, scale=4), nullable=False),
        sa.ForeignKeyConstraint(["order_item_id"], ["order_items.id"],
                                name=op.f("fk_order_refund_lines_order_item_id_order_items"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["refund_id"], ["order_refunds.id"],
                                name=op.f("fk_order_refund_lines_refund_id_order_refunds"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_order_refund_lines")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_order_refund_lines_refund_id"), "order_refund_lines", ["refund_id"])
    op.create_index(op.f("ix_order_refund_lines_order_item_id"), "order_refund_lines", ["order_item_id"])


def downgrade():
    # Dropping a table drops its generation triggers with it.
    op.drop_table("order_refund_lines")
    op.drop_table("order_refunds")
    op.drop_table("order_notes")
