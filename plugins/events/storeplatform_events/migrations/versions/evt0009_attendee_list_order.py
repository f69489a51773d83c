"""attendees: the list's order indexes end with the id (#30)

Revision ID: evt0009
Revises: evt0008

The attendee list is newest first with the id breaking ties, of every attendee or of one
event's: (created_at, id) and (event_id, created_at, id) make any page of it a walk of an index
(read from the nearer end), where (created_at) and (event_id, created_at) needed each row's id
from the table. The counts of attendees per status and per event and status are declared on the
model and kept by triggers ``storeplatform migrate`` makes, in sp0009's ``list_counts``, after every
migration (so this revision needs nothing of sp0009).
"""
from alembic import op

revision = 'evt0009'
down_revision = 'evt0008'
branch_labels = None
depends_on = None


def upgrade():
    op.create_index('ix_evt_attendees_created_id', 'evt_attendees', ['created_at', 'id'])
    op.create_index('ix_evt_attendees_event_created_id', 'evt_attendees', ['event_id', 'created_at', 'id'])
    op.drop_index('ix_evt_attendees_created', table_name='evt_attendees')
    op.drop_index('ix_evt_attendees_event_created', table_name='evt_attendees')


def downgrade():
    op.create_index('ix_evt_attendees_event_created', 'evt_attendees', ['event_id', 'created_at'])
    op.create_index('ix_evt_attendees_created', 'evt_attendees', ['created_at'])
    op.drop_index('ix_evt_attendees_event_created_id', table_name='evt_attendees')
    op.drop_index('ix_evt_attendees_created_id', table_name='evt_attendees')
