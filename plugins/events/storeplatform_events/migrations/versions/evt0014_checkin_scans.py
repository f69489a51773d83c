"""check-in scans waiting for the order's history (#40)

Revision ID: evt0014
Revises: evt0013

Each check-in or check-out of a ticket of an order leaves a row here, written by the statement
that moves the ticket; a periodic task turns the rows into the order's notes and deletes them.
Read in id order and deleted by id: the primary key is the only index it needs.
"""
import sqlalchemy as sa
from alembic import op

revision = 'evt0014'
down_revision = 'evt0013'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "evt_checkin_scans",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("attendee_id", sa.Integer(), nullable=False),
        sa.Column("order_id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(20), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("user_name", sa.String(250), nullable=True),
        sqlite_autoincrement=True,  # as every table's (db/ids.py)
    )


def downgrade():
    op.drop_table("evt_checkin_scans")
