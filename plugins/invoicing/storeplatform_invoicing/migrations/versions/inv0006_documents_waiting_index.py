"""documents: a partial index of those still waiting for their PDF (#31)

Revision ID: inv0006
Revises: inv0005

The admin's dashboard shows the documents waiting to be rendered (how many, the oldest), and
the sweep looks for those whose hand-off was lost: both read ``generated_at IS NULL`` oldest
first, which without an index is a scan of every document the site ever made. The partial
index holds the waiting ones only (both backends have partial indexes).
"""
import sqlalchemy as sa
from alembic import op

revision = 'inv0006'
down_revision = 'inv0005'
branch_labels = None
depends_on = None


def upgrade():
    op.create_index("ix_invoicing_documents_waiting", "invoicing_documents", ["created_at", "id"],
                    postgresql_where=sa.text("generated_at IS NULL"), sqlite_where=sa.text("generated_at IS NULL"))


def downgrade():
    op.drop_index("ix_invoicing_documents_waiting", table_name="invoicing_documents")
