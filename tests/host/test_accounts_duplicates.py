"""Logins and e-mail addresses that several users shared before #43 (``X_EDITOR`` beside
``x_editor``): migration sp0018 merges nothing and does not fail; it leaves out the unique index
whose column has duplicates and names them, the site says so at start-up, ``user duplicates``
lists them, and once the owner has resolved them (``user rename``, ``user set-email``) ``user
duplicates --fix`` makes the index."""
import importlib.util
import logging
from pathlib import Path

from sqlalchemy import func, select, text

import storeplatform.migrations
from storeplatform.components.shop import duplicates
from storeplatform.components.shop.models import User
from storeplatform.core.startup import ready_summary

SP0018 = Path(storeplatform.migrations.__file__).parent / "versions" / "0018_users_profile_unique.py"


def sp0018():
    spec = importlib.util.spec_from_file_location("sp0018", SP0018)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_index_step(engine):
    """The step of sp0018 that makes the unique indexes, as the migration runs it."""
    from alembic.migration import MigrationContext
    from alembic.operations import Operations

    with engine.begin() as connection:
        with Operations.context(MigrationContext.configure(connection)):
            return sp0018().make_unique_indexes()


def add_user(connection, login, email):
    connection.execute(text("INSERT INTO users (login, email, display_name, role, created_at, disabled, auth_version) "
                            "VALUES (:login, :email, :login, 'editor', CURRENT_TIMESTAMP, false, 0)"),
                       {"login": login, "email": email})


def test_duplicates_are_reported_not_merged_and_resolved_with_the_cli(cli, caplog):
    site = cli.site
    engine = site.engine
    names = list(duplicates.INDEXES)
    with engine.begin() as connection:  # a site as it was before sp0018
        for name in names:
            connection.execute(text(f"DROP INDEX {name}"))
        for login, email in (("x_editor", "a@example.com"), ("X_EDITOR", "b@example.com"),
                             ("ann", "Shared@example.com"), ("bob", "shared@EXAMPLE.com"), ("cid", "")):
            add_user(connection, login, email)
    try:
        with caplog.at_level(logging.WARNING, logger="alembic.runtime.migration"):
            assert run_index_step(engine) == names
        warned = caplog.text
        assert "x_editor (2 users)" in warned and "shared@example.com (2 users)" in warned
        assert "user duplicates" in warned and "nothing was merged" in warned
        with site.session() as s:
            assert s.execute(select(func.count()).select_from(User)).scalar_one() == 5  # nothing merged
            assert duplicates.missing_indexes(s) == names
        # said at start-up
        assert any("user duplicates" in line for line in ready_summary(site.registry, "http://127.0.0.1", None))
        listed = cli("user", "duplicates").stdout
        assert "x_editor" in listed and "X_EDITOR" in listed and "Shared@example.com" in listed
        assert "missing unique index(es)" in listed
        # a login written exactly names that user, however many share it in another case
        cli("user", "rename", "X_EDITOR", "x_editor_2")
        assert cli("user", "duplicates", "--fix", ok=False).returncode == 1  # the addresses are still shared
        cli("user", "set-email", "bob", "bob@example.com")
        fixed = cli("user", "duplicates", "--fix").stdout
        assert "made the unique index ux_users_email_lower" in fixed and "no login" in fixed
        with site.session() as s:
            assert duplicates.missing_indexes(s) == []
            assert s.execute(select(User.login).order_by(User.login)).scalars().all()[-2:] == ["x_editor", "x_editor_2"]
        # and refused from now on, by the database too
        assert cli("user", "rename", "x_editor_2", "X_Editor", ok=False).returncode == 1
    finally:
        with engine.begin() as connection:  # the next test's database has its indexes, whatever happened
            connection.execute(text("UPDATE users SET login = login || '-' || id, email = ''"))
        with site.session() as s:
            duplicates.make_missing_indexes(s)
