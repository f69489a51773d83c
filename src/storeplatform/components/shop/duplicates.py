"""Logins and e-mail addresses shared by several users, whatever their case (#43).

New ones are refused by ``accounts`` (``existing_user_login``, ``existing_user_email``) and, for
two requests at once, by the unique indexes of lower(login) and lower(email) (migration sp0018).
Those the site had before sp0018 are not merged by it: sp0018 leaves out the index whose values
are not unique, the site says so at start-up, ``storeplatform user duplicates`` lists them, and
once the owner has resolved them (``user set-email``, ``user rename``, ``user delete``)
``make_missing_indexes`` (``user duplicates --fix``) makes the index.
"""
from sqlalchemy import func, select, text

from storeplatform.core.db.session import record_write

from .models import UNIQUE_EMAIL_INDEX, UNIQUE_LOGIN_INDEX, User

# The indexes as sp0018 makes them (the same on both backends).
INDEXES = {
    UNIQUE_LOGIN_INDEX: ("login", "CREATE UNIQUE INDEX ux_users_login_lower ON users (lower(login))"),
    UNIQUE_EMAIL_INDEX: ("email", "CREATE UNIQUE INDEX ux_users_email_lower ON users (lower(email)) "
                                  "WHERE email <> ''"),
}
_EXISTING = {
    "postgresql": "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'users'",
    "sqlite": "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'users'",
}


def duplicates(session):
    """``{"login": [[(id, login), ...], ...], "email": [[(id, login, email), ...], ...]}``: each
    group of users sharing a login or an address (any case), in id order."""
    found = {}
    for field, column in (("login", User.login), ("email", User.email)):
        key = func.lower(column)
        shared = select(key).where(column != "").group_by(key).having(func.count() > 1)
        rows = session.execute(select(User.id, User.login, User.email, key.label("key"))
                               .where(key.in_(shared)).order_by(key, User.id)).all()
        groups = {}
        for row in rows:
            groups.setdefault(row.key, []).append((row.id, row.login) if field == "login"
                                                  else (row.id, row.login, row.email))
        found[field] = list(groups.values())
    return found


def missing_indexes(session):
    """The names of the unique indexes of sp0018 this database lacks (left out for duplicates)."""
    dialect = session.get_bind().dialect.name
    present = set(session.execute(text(_EXISTING[dialect])).scalars()) if dialect in _EXISTING else set(INDEXES)
    return [name for name in INDEXES if name not in present]


def make_missing_indexes(session):
    """Make each missing index whose column has no duplicates left; returns (made, still
    blocked): the names."""
    found = duplicates(session)
    made, blocked = [], []
    for name in missing_indexes(session):
        column, create = INDEXES[name]
        if found[column]:
            blocked.append(name)
            continue
        session.execute(text(create))
        record_write(session, "users")  # DDL the session's events do not count: committed, not rolled back
        made.append(name)
    return made, blocked
