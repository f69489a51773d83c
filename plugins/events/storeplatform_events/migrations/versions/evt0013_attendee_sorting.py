"""attendees: the indexes the admin's sorted lists walk

Revision ID: evt0013
Revises: evt0012

The admin's attendee lists (every attendee, an event's) sort by name (the last name), e-mail,
status or check-in time, the id breaking ties: one index of each for all attendees and one for
an event's, so that a sorted page is a walk of an index whatever the number of attendees.
"""
from alembic import op

revision = 'evt0013'
down_revision = 'evt0012'
branch_labels = None
depends_on = None

SORTED = ("last_name", "email", "status", "checked_in_at")


def upgrade():
    for column in SORTED:
        op.create_index(f"ix_evt_attendees_{column}_id", "evt_attendees", [column, "id"])
        op.create_index(f"ix_evt_attendees_event_{column}_id", "evt_attendees", ["event_id", column, "id"])


def downgrade():
    for column in reversed(SORTED):
        op.drop_index(f"ix_evt_attendees_event_{column}_id", table_name="evt_attendees")
        op.drop_index(f"ix_evt_attendees_{column}_id", table_name="evt_attendees")
