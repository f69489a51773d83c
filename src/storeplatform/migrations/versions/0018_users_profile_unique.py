"""users as WordPress has them, application passwords' names and use, unique logins and e-mail
addresses (#43)

Revision ID: sp0018
Revises: sp0017

- users: first_name, last_name, nickname, url, description, locale ("" when not given);
- app_passwords: uuid (a random UUID, filled here for the passwords issued before), app_id,
  last_ip (last_used_at was there, never written until now);
- logins and e-mail addresses unique whatever their case: unique indexes of lower(login) and of
  lower(email) where an address is given (the same on both backends).

Duplicates already stored (``X_EDITOR`` beside ``x_editor``, two users with one address) are
neither merged nor a reason to fail: the columns are added, the index whose values are not unique
is left out, and a warning names the duplicates and the commands that resolve them. The site
reports the missing index at start-up (shop/duplicates.py) and ``storeplatform user duplicates
--fix`` makes it once the owner has resolved them (docs/decisions.md, #43).
"""
import logging
import uuid

import sqlalchemy as sa
from alembic import op

revision = "sp0018"
down_revision = "sp0017"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")

# As they were when this ran (shop/duplicates.py makes the same later, when this could not).
INDEXES = {
    "ux_users_login_lower": ("login", "CREATE UNIQUE INDEX ux_users_login_lower ON users (lower(login))"),
    "ux_users_email_lower": ("email", "CREATE UNIQUE INDEX ux_users_email_lower ON users (lower(email)) "
                                      "WHERE email <> ''"),
}
PROFILE = (("first_name", sa.String(250)), ("last_name", sa.String(250)), ("nickname", sa.String(250)),
           ("url", sa.String(200)), ("description", sa.Text()), ("locale", sa.String(20)))


def upgrade():
    for name, type_ in PROFILE:
        op.add_column("users", sa.Column(name, type_, nullable=False, server_default=""))
    op.add_column("app_passwords", sa.Column("last_ip", sa.String(45), nullable=True))
    op.add_column("app_passwords", sa.Column("uuid", sa.String(36), nullable=True))
    op.add_column("app_passwords", sa.Column("app_id", sa.String(36), nullable=False, server_default=""))
    conn = op.get_bind()
    ids = conn.execute(sa.text("SELECT id FROM app_passwords WHERE uuid IS NULL")).scalars().all()
    for password_id in ids:
        conn.execute(sa.text("UPDATE app_passwords SET uuid = :uuid WHERE id = :id"),
                     {"uuid": str(uuid.uuid4()), "id": password_id})
    op.create_index("ux_app_passwords_uuid", "app_passwords", ["uuid"], unique=True)
    make_unique_indexes()


def make_unique_indexes():
    """Each unique index whose column holds no duplicates; a warning naming those of the others.
    Returns the names of the indexes left out."""
    conn = op.get_bind()
    left_out = []
    for name, (column, create) in INDEXES.items():
        duplicates = conn.execute(sa.text(
            f"SELECT lower({column}), count(*) FROM users WHERE {column} <> '' GROUP BY lower({column}) "
            f"HAVING count(*) > 1 ORDER BY 1")).all()
        if duplicates:
            listed = ", ".join(f"{value} ({count} users)" for value, count in duplicates[:20])
            log.warning(
                "sp0018: %d %s(s) are shared by several users (any case): %s%s. The unique index %s was not "
                "made and nothing was merged. List them with `storeplatform -c INI user duplicates`, resolve each "
                "(user set-email, user rename, user delete --reassign), then `storeplatform -c INI user duplicates "
                "--fix` makes the index.", len(duplicates), column, listed, " ..." if len(duplicates) > 20 else "",
                name)
            left_out.append(name)
            continue
        op.execute(create)
    return left_out


def downgrade():
    for name in INDEXES:
        op.execute(f"DROP INDEX IF EXISTS {name}")
    op.drop_index("ux_app_passwords_uuid", table_name="app_passwords")
    with op.batch_alter_table("app_passwords") as batch:
        for name in ("app_id", "uuid", "last_ip"):
            batch.drop_column(name)
    with op.batch_alter_table("users") as batch:
        for name, _ in reversed(PROFILE):
            batch.drop_column(name)
