"""generations: a counter per kind of data, bumped by every transaction that changes it

Revision ID: sp0004
Revises: sp0003

``content`` counts committed changes of posts, terms and post terms (a plugin's details of a post
touch the post's row: its ``modified_at``). Caches of derived values (list totals, counts) are
keyed by the generation they were computed at, so they never outlive a committed write. On
PostgreSQL the bump runs at commit (a deferred constraint trigger, once per transaction), so the
counter's row lock is the last lock a writer takes and is held for an instant; on SQLite writers
are serialized anyway and a plain row trigger does.
"""
import sqlalchemy as sa
from alembic import op

revision = "sp0004"
down_revision = "sp0003"
branch_labels = None
depends_on = None

TABLES = {"content": ("posts", "terms", "post_terms")}

PG_FUNCTION = """
CREATE FUNCTION sp_bump_generation() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    flag text := 'storeplatform.bumped_' || TG_ARGV[0];
BEGIN
    IF coalesce(current_setting(flag, true), '') = '1' THEN
        RETURN NULL;
    END IF;
    PERFORM set_config(flag, '1', true);
    INSERT INTO generations (name, value) VALUES (TG_ARGV[0], 1)
        ON CONFLICT (name) DO UPDATE SET value = generations.value + 1;
    RETURN NULL;
END $$
"""


def upgrade():
    op.create_table("generations", sa.Column("name", sa.String(40), primary_key=True),
                    sa.Column("value", sa.BigInteger(), nullable=False))
    postgresql = op.get_bind().dialect.name == "postgresql"
    if postgresql:
        op.execute(PG_FUNCTION)
    for name, tables in TABLES.items():
        for table in tables:
            if postgresql:
                op.execute(f"CREATE CONSTRAINT TRIGGER sp_generation_{table} AFTER INSERT OR UPDATE OR DELETE ON "
                           f"{table} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
                           f"EXECUTE FUNCTION sp_bump_generation('{name}')")
                continue
            for operation in ("INSERT", "UPDATE", "DELETE"):
                op.execute(f"CREATE TRIGGER sp_generation_{table}_{operation.lower()} AFTER {operation} ON {table} "
                           f"BEGIN INSERT OR IGNORE INTO generations (name, value) VALUES ('{name}', 0); "
                           f"UPDATE generations SET value = value + 1 WHERE name = '{name}'; END")


def downgrade():
    postgresql = op.get_bind().dialect.name == "postgresql"
    for tables in TABLES.values():
        for table in tables:
            if postgresql:
                op.execute(f"DROP TRIGGER IF EXISTS sp_generation_{table} ON {table}")
            else:
                for operation in ("insert", "update", "delete"):
                    op.execute(f"DROP TRIGGER IF EXISTS sp_generation_{table}_{operation}")
    if postgresql:
        op.execute("DROP FUNCTION IF EXISTS sp_bump_generation()")
    op.drop_table("generations")
