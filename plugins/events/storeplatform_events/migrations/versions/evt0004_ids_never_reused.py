"""events ids are never reused (SQLite AUTOINCREMENT)

Revision ID: evt0004
Revises: evt0003

The host's rule for every table with its own ids: a deleted webhook's id must not come back
for a new one while the delivery log still names it (the same for attendees and deliveries).
The detail tables are keyed by their post's id and need nothing.
"""
from storeplatform.api.advanced import never_reuse_ids

revision = 'evt0004'
down_revision = 'evt0003'
branch_labels = None
depends_on = None


def upgrade():
    never_reuse_ids("evt_attendees", "evt_webhooks", "evt_webhook_deliveries")


def downgrade():
    pass
