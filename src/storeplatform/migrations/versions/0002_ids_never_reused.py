"""ids are never reused (SQLite AUTOINCREMENT)

Revision ID: sp0002
Revises: sp0001
"""
from storeplatform.core.db.ids import never_reuse_ids

revision = "sp0002"
down_revision = "sp0001"
branch_labels = None
depends_on = None


def upgrade():
    never_reuse_ids("users", "app_passwords", "consumer_keys", "auth_sessions", "terms", "posts", "products",
                    "orders", "order_items")


def downgrade():
    pass
