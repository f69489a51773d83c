"""attendees: drop the two indexes that evt0013's sorted-list indexes repeat

Revision ID: evt0015
Revises: evt0014

``ix_evt_attendees_event_status`` (event_id, status) and ``ix_evt_attendees_event_checked_in``
(event_id, checked_in_at) are the leading columns of evt0013's ``ix_evt_attendees_event_status_id``
and ``ix_evt_attendees_event_checked_in_at_id``: every lookup or walk they serve, those serve.
A check-in changes both columns, so each of its UPDATEs wrote an entry into both twice over
(#39: the database's side of check-in).
"""
from alembic import op

revision = 'evt0015'
down_revision = 'evt0014'
branch_labels = None
depends_on = None


def upgrade():
    op.drop_index("ix_evt_attendees_event_status", table_name="evt_attendees")
    op.drop_index("ix_evt_attendees_event_checked_in", table_name="evt_attendees")


def downgrade():
    op.create_index("ix_evt_attendees_event_checked_in", "evt_attendees", ["event_id", "checked_in_at"])
    op.create_index("ix_evt_attendees_event_status", "evt_attendees", ["event_id", "status"])
