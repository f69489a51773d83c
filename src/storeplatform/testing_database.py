"""The tests' database: a fresh one per test run (SQLite, or a database made on the server the
environment names), migrated once, emptied between tests."""
import os
import uuid

from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import make_url

from . import make_config
from .core.db.session import database_url


def server_database_url():
    """The database server named by the environment, or None for SQLite."""
    url = os.environ.get("STOREPLATFORM_DATABASE_URL", "")
    return url if url and not url.startswith("sqlite") else None


def server_huey_url():
    url = os.environ.get("STOREPLATFORM_HUEY_URL", "")
    return url if url.startswith("redis") else None


class TestDatabase:
    """A fresh database for one test run (one per xdist worker), migrated once, emptied
    between tests."""

    def __init__(self, tmp_dir):
        server = server_database_url()
        if server:
            name = f"sp_test_{uuid.uuid4().hex[:12]}"
            admin = create_engine(database_url(server), isolation_level="AUTOCOMMIT")
            with admin.connect() as conn:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
                # A commit does not wait for its WAL to reach the disk (a throwaway database:
                # the suite commits some thousand times, each an fsync on the run's two cores).
                conn.execute(text(f'ALTER DATABASE "{name}" SET synchronous_commit = off'))
            admin.dispose()
            self.admin_url = server
            self.url = make_url(database_url(server)).set(database=name).render_as_string(hide_password=False)
            self.name = name
        else:
            self.admin_url = None
            self.url = f"sqlite:///{tmp_dir}/test.sqlite"
            self.name = None
        self.tmp_dir = tmp_dir
        self.secret = "test-secret-" + uuid.uuid4().hex
        self._pg_clean_statements = {}

    def settings(self, **overrides):
        settings = {
            "here": str(self.tmp_dir),
            "sqlalchemy.url": self.url,
            "huey.url": "memory://",
            "huey.embedded_consumer": "false",
            "huey.name": "sp-test-" + uuid.uuid4().hex[:8],
            "storeplatform.plugins": "",
            "storeplatform.secret": self.secret,
            "storeplatform.allow_http_consumer_keys": "true",
        }
        # Mail records nothing on the suite's sites (each paid order would compose its messages,
        # PDFs among them, in the test's thread: a sixth of the suite's time), except on those of
        # the tests that set any mail.* key: the tests of mail.
        settings["mail.enabled"] = "true" if any(key.startswith("mail.") for key in overrides) else "false"
        settings.update(overrides)
        return settings

    def migrate(self, plugins):
        from .core.migrate import upgrade

        config = make_config(environ={}, **self.settings(**{"storeplatform.plugins": plugins}))
        upgrade(config.registry)
        config.registry["db.engine"].dispose()

    def clean(self, engine):
        if engine.dialect.name == "postgresql":
            self._clean_postgresql(engine)
            return
        tables = [t for t in inspect(engine).get_table_names() if t != "alembic_version"]
        with engine.begin() as conn:
            conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
            # The kept counts last: deleting the rows they count moves them (db/counts.py).
            for t in sorted(tables, key=lambda t: t == "list_counts"):
                conn.exec_driver_sql(f'DELETE FROM "{t}"')
            conn.exec_driver_sql("DELETE FROM sqlite_sequence") if "sqlite_sequence" in _sqlite_tables(conn) else None
            conn.exec_driver_sql("PRAGMA foreign_keys=ON")

    def _clean_postgresql(self, engine):
        """Every table emptied and every sequence used started again, as ``TRUNCATE ... RESTART
        IDENTITY`` of all tables would, at a fraction of its cost: a TRUNCATE makes each table's
        (and index's) files anew, ~2 ms of the server's CPU and an fsync per table, while most
        tests write a few of them (measured: 0.74 s and 145 ms of the server's CPU per test, now
        4 ms and 1.5 ms). Rows are deleted children first (the foreign keys' order), until the
        triggers the deletes fire (generations, counts) have left nothing either, then the
        sequences that handed out a value restart."""
        with engine.begin() as conn:
            rows = conn.exec_driver_sql(_PG_TABLES_AND_REFERENCES).all()
            statement = self._pg_clean_statements.get(frozenset(rows))
            if statement is None:
                statement = self._pg_clean_statements[frozenset(rows)] = _pg_clean_statement(rows)
            conn.exec_driver_sql(statement)

    def drop(self):
        if self.name:
            admin = create_engine(database_url(self.admin_url), isolation_level="AUTOCOMMIT")
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)'))
            admin.dispose()


# Each table of the schema with a table it references (NULL: none), for clean's order.
_PG_TABLES_AND_REFERENCES = (
    "SELECT c.relname, r.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "LEFT JOIN pg_constraint k ON k.conrelid = c.oid AND k.contype = 'f' LEFT JOIN pg_class r ON r.oid = k.confrelid "
    "WHERE c.relkind IN ('r', 'p') AND n.nspname = current_schema() AND c.relname <> 'alembic_version'")


def _pg_clean_statement(rows):
    """One DO block that empties the tables of ``rows`` (table, referenced table), children
    first, until the triggers that the deletes fire (generations, counts: at SET CONSTRAINTS
    for the deferred ones) have left nothing either, and restarts the sequences that handed out
    a value."""
    from graphlib import CycleError, TopologicalSorter

    references = {}
    for table, referenced in rows:
        references.setdefault(table, set())
        if referenced is not None and referenced != table:
            references[table].add(referenced)
    try:
        parents_first = list(TopologicalSorter(references).static_order())
    except CycleError:  # no order deletes them all: TRUNCATE does
        return "TRUNCATE " + ", ".join(f'"{t}"' for t in sorted(references)) + " RESTART IDENTITY CASCADE"
    deletes = " ".join(f'DELETE FROM "{t}";' for t in reversed(parents_first))
    left = " OR ".join(f'EXISTS (SELECT FROM "{t}")' for t in parents_first) or "false"
    return f"""DO $$
DECLARE used record;
BEGIN
    FOR attempt IN 1..5 LOOP
        {deletes}
        SET CONSTRAINTS ALL IMMEDIATE;
        IF NOT ({left}) THEN
            EXIT;
        ELSIF attempt = 5 THEN
            RAISE EXCEPTION 'the triggers keep writing rows: the tables cannot be emptied';
        END IF;
    END LOOP;
    FOR used IN SELECT schemaname, sequencename FROM pg_sequences
            WHERE schemaname = current_schema() AND last_value IS NOT NULL LOOP
        EXECUTE 'ALTER SEQUENCE ' || quote_ident(used.schemaname) || '.' || quote_ident(used.sequencename)
            || ' RESTART';
    END LOOP;
END $$"""


def _sqlite_tables(conn):
    return {row[0] for row in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type='table'")}
