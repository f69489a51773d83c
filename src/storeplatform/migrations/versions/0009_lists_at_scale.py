"""lists at scale (#30): counts kept by the database, indexes in each list's order, trigram search

Revision ID: sp0009
Revises: sp0008

- ``list_counts``: the counts the models declare (``Table.info["counts"]``), kept by triggers
  that ``storeplatform migrate`` makes after the migrations (and which count the rows already
  there), as it does the generation triggers.
- Posts are listed per type and status in the order of creation, of modification or of id: an
  index for each ends with the id, the lists' tie-break, so that a page (first, middle or
  last, read from the nearer end) is a walk of the index, not a sort; (post_type, status,
  created_at) is replaced by its form with the id.
- Search (a case-insensitive substring of title, content or excerpt) is served on PostgreSQL by
  GIN trigram indexes (``pg_trgm``, a trusted extension from PostgreSQL 13: the database's owner
  may create it; before 13 a superuser creates it once). SQLite has no trigram index: there the
  same indexes are empty partial ones (``WHERE 0``), so both backends have the tables the models
  declare, and a search scans.
"""
import sqlalchemy as sa
from alembic import op

revision = "sp0009"
down_revision = "sp0008"
branch_labels = None
depends_on = None

ORDER_INDEXES = {
    "ix_posts_type_status_created_id": ["post_type", "status", "created_at", "id"],
    "ix_posts_type_status_modified_id": ["post_type", "status", "modified_at", "id"],
    "ix_posts_type_status_id": ["post_type", "status", "id"],
}
SEARCHED = ("title", "content", "excerpt")


def upgrade():
    op.create_table(
        "list_counts",
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("k1", sa.String(200), nullable=False),
        sa.Column("k2", sa.String(200), nullable=False),
        sa.Column("slot", sa.BigInteger(), nullable=False),
        sa.Column("n", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", "k1", "k2", "slot", name=op.f("pk_list_counts")),
    )
    for name, columns in ORDER_INDEXES.items():
        op.create_index(name, "posts", columns)
    op.drop_index("ix_posts_type_status_created", table_name="posts")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for column in SEARCHED:
        op.create_index(f"ix_posts_{column}_trgm", "posts", [column], postgresql_using="gin",
                        postgresql_ops={column: "gin_trgm_ops"}, sqlite_where=sa.text("0"))


def downgrade():
    for column in SEARCHED:
        op.drop_index(f"ix_posts_{column}_trgm", table_name="posts")
    op.create_index("ix_posts_type_status_created", "posts", ["post_type", "status", "created_at"])
    for name in ORDER_INDEXES:
        op.drop_index(name, table_name="posts")
    op.drop_table("list_counts")
