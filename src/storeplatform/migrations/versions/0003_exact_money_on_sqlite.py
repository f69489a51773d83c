"""money is exact on SQLite (ten-thousandths as integers)

Revision ID: sp0003
Revises: sp0002

SQLite keeps every number of a NUMERIC column as a double; the host's Money type now stores
ten-thousandths as integers there. Amounts already stored are converted (PostgreSQL: nothing).
"""
from alembic import op

revision = "sp0003"
down_revision = "sp0002"
branch_labels = None
depends_on = None

COLUMNS = {"products": ("regular_price", "sale_price"), "orders": ("total",), "order_items": ("unit_price", "total")}


def upgrade():
    if op.get_bind().dialect.name != "sqlite":
        return
    for table, columns in COLUMNS.items():
        for column in columns:
            op.execute(f"UPDATE {table} SET {column} = CAST(ROUND({column} * 10000) AS INTEGER) "
                       f"WHERE {column} IS NOT NULL")


def downgrade():
    pass
