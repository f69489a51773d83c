"""guest buyers on the customers list (#40)

Revision ID: sp0015
Revises: sp0014

The admin's Customers page lists the buyers without an account (orders whose ``customer_id`` is
NULL) by their billing e-mail address, lower-cased and trimmed; the Orders list finds a guest's
orders by it. ix_orders_guest_email indexes that very expression (the same on both backends), so
that a page of guests is a walk of the index and a guest's orders are read alone.

Not a partial index (``WHERE customer_id IS NULL``): PostgreSQL does not use a partial index's
statistics of its expression when it estimates, and without them it took the guests for 200 and
read every order (a seq scan and a sort, 0.4 s at 100,000 orders) for a page the full index
serves in milliseconds; it also chose to walk every order by id for one guest's orders.
"""
from alembic import op

# The models' ORDER_GUEST_EMAIL, as it was when this ran (an index serves only the expression it
# was made of: shop/customers.py groups guests with it).
GUEST_EMAIL = "lower(trim(billing ->> 'email'))"

revision = "sp0015"
down_revision = "sp0014"
branch_labels = None
depends_on = None


def upgrade():
    op.execute(f"CREATE INDEX ix_orders_guest_email ON orders (({GUEST_EMAIL}))")


def downgrade():
    op.execute("DROP INDEX IF EXISTS ix_orders_guest_email")
