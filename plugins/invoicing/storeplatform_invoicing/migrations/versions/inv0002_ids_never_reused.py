"""invoicing ids are never reused (SQLite AUTOINCREMENT)

Revision ID: inv0002
Revises: inv0001

The host's rule for every table with its own ids; the other invoicing tables are keyed by what
they count.
"""
from storeplatform.api.advanced import never_reuse_ids

revision = 'inv0002'
down_revision = 'inv0001'
branch_labels = None
depends_on = None


def upgrade():
    never_reuse_ids("invoicing_documents", "invoicing_jobs")


def downgrade():
    pass
