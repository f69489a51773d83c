"""the ``invoicing`` generation: bumped by every committed change of the documents

Revision ID: inv0003
Revises: inv0002

Document metadata is kept per process by this generation and the host's ``store`` generation
(orders), so that reading a document's metadata costs no query of its own while nothing changed.
It depends on sp0004, which made the generations table and the function the triggers call (not on
a host head: a head another branch depends on leaves alembic_version).
"""
from alembic import op

from storeplatform.api import add_generation_triggers, drop_generation_triggers

revision = 'inv0003'
down_revision = 'inv0002'
branch_labels = None
depends_on = 'sp0004'


def upgrade():
    add_generation_triggers(op, "invoicing", ("invoicing_documents",))


def downgrade():
    drop_generation_triggers(op, ("invoicing_documents",))
