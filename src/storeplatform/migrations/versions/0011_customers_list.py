"""customers list (#31): orders by customer, users by role and id

Revision ID: sp0011
Revises: sp0010

The admin's customers list reads a page of users of one role in id order (a walk of
ix_users_role_id) and the order count and total of that page's customers (ix_orders_customer_id:
their orders, not every order of the site). Its total, and the products list's, are counts the
database keeps (declared on the models; ``migrate`` makes their triggers).
"""
from alembic import op

revision = "sp0011"
down_revision = "sp0010"
branch_labels = None
depends_on = None


def upgrade():
    op.create_index("ix_orders_customer_id", "orders", ["customer_id"])
    op.create_index("ix_users_role_id", "users", ["role", "id"])


def downgrade():
    op.drop_index("ix_users_role_id", table_name="users")
    op.drop_index("ix_orders_customer_id", table_name="orders")
