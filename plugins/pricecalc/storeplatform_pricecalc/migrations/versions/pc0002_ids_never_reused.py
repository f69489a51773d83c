"""pricecalc ids are never reused (SQLite AUTOINCREMENT)

Revision ID: pc0002
Revises: pc0001
"""
from storeplatform.api.advanced import never_reuse_ids

revision = 'pc0002'
down_revision = 'pc0001'
branch_labels = None
depends_on = None


def upgrade():
    never_reuse_ids("pricecalc_calculators")


def downgrade():
    pass
