"""the ``invoicing`` generation: bumped by every committed change of the documents

Revision ID: inv0003
Revises: inv0002

Document metadata is kept per process by this generation and the host's ``store`` generation
(orders), so that reading a document's metadata costs no query of its own while nothing changed.
It depends on sp0004, which made the generations table and the function the triggers call (not on
a host head: a head another branch depends on leaves alembic_version).

The triggers are now made by ``storeplatform migrate`` from the model's declaration
(``Table.info["generation"]``, next to the model): this revision stays in the history and does
nothing.
"""

revision = 'inv0003'
down_revision = 'inv0002'
branch_labels = None
depends_on = 'sp0004'


def upgrade():
    pass


def downgrade():
    pass
