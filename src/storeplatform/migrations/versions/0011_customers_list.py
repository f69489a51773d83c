"""customers list (#31): orders by customer, users by role and id

Revision ID: sp0011
Revises: sp0010

The admin's customers list reads a page of users of one role in id order (a walk of
ix_users_role_id) and the order count and total of that page's customers (ix_orders_customer_id:
their orders, not every order of the site). Its total, and the products list's, are counts the
database keeps (declared on the models; ``migrate`` makes their triggers).

The orders list's search of names and e-mail addresses reads a GIN trigram index of the billing
name and address on PostgreSQL (``admin/orders.py`` writes the same expression); SQLite has
none (the models declare it for PostgreSQL only).
"""
from alembic import op

# The models' ORDER_BILLING_TEXT, as it was when this ran (an index is used only for the very
# expression it was made of: admin/orders.py searches with it).
BILLING_TEXT = ("lower((((COALESCE(billing ->> 'first_name', '') || ' ') || COALESCE(billing ->> 'last_name', ''))"
                " || ' ') || COALESCE(billing ->> 'email', ''))")

revision = "sp0011"
down_revision = "sp0010"
branch_labels = None
depends_on = None


def upgrade():
    op.create_index("ix_orders_customer_id", "orders", ["customer_id"])
    op.create_index("ix_users_role_id", "users", ["role", "id"])
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        op.execute(f"CREATE INDEX ix_orders_billing_trgm ON orders USING gin (({BILLING_TEXT}) gin_trgm_ops)")


def downgrade():
    op.execute("DROP INDEX IF EXISTS ix_orders_billing_trgm")
    op.drop_index("ix_users_role_id", table_name="users")
    op.drop_index("ix_orders_customer_id", table_name="orders")
