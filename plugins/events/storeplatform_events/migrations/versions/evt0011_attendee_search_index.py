"""attendees: the search of names, e-mail addresses and ticket codes reads a trigram index

Revision ID: evt0011
Revises: evt0010

The attendee search (REST's ``search``, the admin's lists) matches first name, last name, e-mail
or ticket code anywhere in them: on every attendee of the site it was a scan of the table (960 ms
at 1,000,000 attendees). On PostgreSQL a GIN trigram index of the four as one lower-case text
gives the candidates (a text holding the search holds it in one of the four, or across two); each
candidate is then checked column by column, so the matches are exactly the contract's. SQLite
has none (the models declare it for PostgreSQL only).
"""
from alembic import op

revision = 'evt0011'
down_revision = 'evt0010'
branch_labels = None
depends_on = None

# The models' ATTENDEE_SEARCH_TEXT, as it was when this ran (an index is used only for the very
# expression it was made of).
SEARCH_TEXT = "lower((((((first_name || ' ') || last_name) || ' ') || email) || ' ') || ticket_code)"


def upgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        op.execute(f"CREATE INDEX ix_evt_attendees_search_trgm ON evt_attendees USING gin (({SEARCH_TEXT}) gin_trgm_ops)")


def downgrade():
    op.execute("DROP INDEX IF EXISTS ix_evt_attendees_search_trgm")
