"""sortable admin lists (#40): the indexes their sorts walk

Revision ID: sp0014
Revises: sp0013

The admin's lists sort by a column and then the id (a total order, which the page walk needs):
orders by total (by date and status they had ``ix_orders_created_id`` and
``ix_orders_status_id``), products by name and by regular price (by status:
``ix_products_status_id``), users by name and by the date they joined (the login is unique),
and posts of a type by title (its first 200 characters: a title may be longer than an index
entry; the events plugin's lists sort by it).
Each sort reads its index in order, forwards or backwards, so a page costs what it costs
unsorted whatever the number of rows.
"""
from alembic import op

revision = "sp0014"
down_revision = "sp0013"
branch_labels = None
depends_on = None

INDEXES = (("ix_orders_total_id", "orders", ["total", "id"]),
           ("ix_products_name_id", "products", ["name", "id"]),
           ("ix_products_price_id", "products", ["regular_price", "id"]),
           ("ix_users_display_name_id", "users", ["display_name", "id"]),
           ("ix_users_created_id", "users", ["created_at", "id"]))


def upgrade():
    for name, table, columns in INDEXES:
        op.create_index(name, table, columns)
    op.execute("CREATE INDEX ix_posts_type_title_id ON posts (post_type, substr(title, 1, 200), id)")


def downgrade():
    op.execute("DROP INDEX IF EXISTS ix_posts_type_title_id")
    for name, table, _columns in reversed(INDEXES):
        op.drop_index(name, table_name=table)
