"""documents: the PDF column stored EXTERNAL on PostgreSQL (out of line, never compressed)

Revision ID: inv0005
Revises: inv0004

A PDF is already compressed (its streams are deflated): with the default EXTENDED storage
PostgreSQL tries pglz on every write of the column, fails to shrink it and stores it as it is,
so each UPDATE of a 45 KB PDF paid for a compression attempt that never pays off (pgbench: about
0.5 ms of the server's time per UPDATE). EXTERNAL keeps the out-of-line (TOAST) storage and skips
the attempt; it applies to values written from now on. SQLite has no storage settings: nothing.
"""
from alembic import op

revision = 'inv0005'
down_revision = 'inv0004'
branch_labels = None
depends_on = None


def _set_storage(storage):
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"ALTER TABLE invoicing_documents ALTER COLUMN pdf SET STORAGE {storage}")


def upgrade():
    _set_storage("EXTERNAL")


def downgrade():
    _set_storage("EXTENDED")
