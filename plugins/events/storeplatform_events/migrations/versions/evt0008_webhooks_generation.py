"""the ``webhooks`` generation: bumped when a webhook is added, removed, or changes topic or status

Revision ID: evt0008
Revises: evt0007

Every change the events plugin announces looks up the active webhooks of its topic; they are
kept per process by this generation, so that a check-in (which writes attendees, not webhooks)
asks the database nothing about them while they did not change. Delivery bookkeeping (failure
counters, last delivery) updates webhooks all the time and does not count. Depends on sp0004,
which made the generations table and the function the triggers call.

The triggers are now made by ``storeplatform migrate`` from the model's declaration
(``Table.info["generation"]``, next to the model): this revision stays in the history and does
nothing.
"""

revision = 'evt0008'
down_revision = 'evt0007'
branch_labels = None
depends_on = 'sp0004'


def upgrade():
    pass


def downgrade():
    pass
