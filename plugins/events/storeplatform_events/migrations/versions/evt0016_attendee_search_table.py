"""attendees: the search's text in a table of its own, kept by triggers

Revision ID: evt0016
Revises: evt0015

evt0011's trigram index was an index of ``evt_attendees``. An UPDATE that changes an indexed
column (a check-in's status and time; PostgreSQL 15 keeps no such update "heap-only") writes a
new entry into every index of the table, the trigram index's among them: 80-140 us of a
check-in's UPDATE of 350-430 us (#39, docs/performance.md). The text moves to
``evt_attendee_search`` (one row per attendee) and the index with it. The database writes it: on
an attendee's INSERT and on an UPDATE that sets one of the four texts; the foreign key's cascade
deletes it with the attendee. A check-in sets none of the four: it writes no search row and no
trigram entry.
"""
import sqlalchemy as sa
from alembic import op

revision = 'evt0016'
down_revision = 'evt0015'
branch_labels = None
depends_on = None

# The four texts as one lower-case text, as evt0011's index expression had them.
WORDS = "lower({row}.first_name || ' ' || {row}.last_name || ' ' || {row}.email || ' ' || {row}.ticket_code)"
TEXTS = "first_name, last_name, email, ticket_code"

POSTGRESQL = [
    f"""CREATE FUNCTION evt_attendee_search_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO evt_attendee_search (attendee_id, words) VALUES (NEW.id, {WORDS.format(row="NEW")})
    ON CONFLICT (attendee_id) DO UPDATE SET words = EXCLUDED.words;
    RETURN NULL;
END $$""",
    f"""CREATE TRIGGER evt_attendee_search_words AFTER INSERT OR UPDATE OF {TEXTS} ON evt_attendees
FOR EACH ROW EXECUTE FUNCTION evt_attendee_search_words()""",
]

# SQLite's lower() is the site's (Python's str.lower, registered on each connection), as its
# searches compare with.
SQLITE = [
    f"""CREATE TRIGGER evt_attendee_search_{name} AFTER {event} ON evt_attendees BEGIN
    INSERT OR REPLACE INTO evt_attendee_search (attendee_id, words) VALUES (NEW.id, {WORDS.format(row="NEW")});
END""" for name, event in (("insert", "INSERT"), ("update", f"UPDATE OF {TEXTS}"))
]


def upgrade():
    postgresql = op.get_bind().dialect.name == "postgresql"
    op.create_table(
        "evt_attendee_search",
        sa.Column("attendee_id", sa.Integer(), nullable=False),
        sa.Column("words", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["attendee_id"], ["evt_attendees.id"],
                                name=op.f("fk_evt_attendee_search_attendee_id_evt_attendees"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("attendee_id", name=op.f("pk_evt_attendee_search")),
    )
    op.execute(f"INSERT INTO evt_attendee_search (attendee_id, words) "
               f"SELECT id, {WORDS.format(row='evt_attendees')} FROM evt_attendees")
    for statement in POSTGRESQL if postgresql else SQLITE:
        op.execute(statement)
    if postgresql:
        op.execute("CREATE INDEX ix_evt_attendee_search_words ON evt_attendee_search USING gin (words gin_trgm_ops)")
        op.execute("DROP INDEX IF EXISTS ix_evt_attendees_search_trgm")


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS evt_attendee_search_words ON evt_attendees")
        op.execute("DROP FUNCTION IF EXISTS evt_attendee_search_words()")
        op.execute("CREATE INDEX ix_evt_attendees_search_trgm ON evt_attendees USING gin ((lower((((((first_name "
                   "|| ' ') || last_name) || ' ') || email) || ' ') || ticket_code)) gin_trgm_ops)")
    else:
        op.execute("DROP TRIGGER IF EXISTS evt_attendee_search_insert")
        op.execute("DROP TRIGGER IF EXISTS evt_attendee_search_update")
    op.drop_table("evt_attendee_search")
