"""generations of options, of who can authenticate, and of the store

Revision ID: sp0005
Revises: sp0004

``options`` counts committed changes of the options table, ``auth`` those of users, application
passwords, consumer keys and cookie sessions, ``store`` those of products, orders and order
lines: the site options, the identities behind credentials and what plugins derive from store
rows are kept per process by these generations (storeplatform.core.db.generations), read with the
content generation in the one query a transaction makes for them. Same triggers as sp0004.
"""
from alembic import op

revision = "sp0005"
down_revision = "sp0004"
branch_labels = None
depends_on = None

TABLES = {"options": ("options",), "auth": ("users", "app_passwords", "consumer_keys", "auth_sessions"),
          "store": ("products", "orders", "order_items")}


def upgrade():
    from storeplatform.core.db.generation_triggers import add_generation_triggers

    for name, tables in TABLES.items():
        add_generation_triggers(op, name, tables)


def downgrade():
    from storeplatform.core.db.generation_triggers import drop_generation_triggers

    for tables in TABLES.values():
        drop_generation_triggers(op, tables)
