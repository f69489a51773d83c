"""Engines and sessions: one transaction per request or task, joined to a zope transaction."""
import contextlib
import os
import time
import weakref

import transaction
from sqlalchemy import create_engine, event, exc
from sqlalchemy.engine import make_url
from sqlalchemy.orm import sessionmaker
from transaction._transaction import Status as ZopeStatus
from zope.sqlalchemy.datamanager import STATUS_ACTIVE, join_transaction, mark_changed

from ..private_files import keep_private
from .generations import UNPREPARED, count_write, track_writes
from .pool import SitePool, initial_size

# Seconds a pooled connection may rest before it is pinged at checkout (setting
# ``sqlalchemy.ping_after_idle``). A hot connection is not pinged: that would be one round trip
# more on every request, and a server that went away under load fails those requests anyway.
PING_AFTER_IDLE = 10.0


def ping_after_idle(settings):
    """Seconds a connection may rest before it is pinged (``sqlalchemy.ping_after_idle``)."""
    return float(settings.get("sqlalchemy.ping_after_idle", PING_AFTER_IDLE))


def database_url(url):
    """psycopg 3 is the driver for PostgreSQL URLs written without one."""
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            return "postgresql+psycopg://" + url[len(plain):]
    return url


def make_engine(settings):
    url = database_url(settings["sqlalchemy.url"])
    # Every connection the process may need, kept open once made (pool.py).
    pool = {"poolclass": SitePool, "pool_size": initial_size(settings), "max_overflow": 0,
            "pool_timeout": settings["storeplatform.parsed"]["pool_timeout"]}
    if url.startswith("sqlite"):
        keep_private(make_url(url).database)
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False}, **pool)
        event.listen(engine, "connect", _sqlite_pragmas)
        # Let SQLAlchemy emit BEGIN so that a write transaction takes its lock up front
        # (BEGIN IMMEDIATE) instead of failing to upgrade a read lock under concurrency.
        event.listen(engine, "begin", _sqlite_begin)
    else:
        engine = create_engine(url, connect_args=_server_connect_args(settings), **pool)
        if settings["storeplatform.parsed"].get("transaction_pooling"):
            UNPREPARED.add(engine)
        event.listen(engine, "checkout", _pinger(engine.dialect, ping_after_idle(settings)))
        event.listen(engine, "checkin", _rested_since)
    _forget_pool_in_forked_children(engine)
    return engine


def _server_connect_args(settings):
    """psycopg's arguments. Behind a pooler in transaction mode (PgBouncer's ``pool_mode =
    transaction``: ``sqlalchemy.transaction_pooling = true``) each transaction may run on another
    server connection, so the site keeps no state in a server session: psycopg prepares nothing
    (it would prepare a statement run five times on a connection, under names two clients of one
    server connection would share), and the site's own prepared statement goes unnamed
    (``generations._read_state_postgresql``). The site sets nothing else per session: no
    ``SET``, no advisory lock (the kept counts' rows are per server connection: one transaction
    at a time, whichever client it serves), no temporary table, no ``LISTEN``; isolation levels
    and read-only go with each ``BEGIN`` (docs/operations.md, "Several machines")."""
    if settings["storeplatform.parsed"].get("transaction_pooling"):
        return {"prepare_threshold": None}
    return {}


def _forget_pool_in_forked_children(engine):
    """gunicorn forks its workers after the app is made, and start-up has used the pool (the
    readiness check). A child must never use a connection of its parent's: two processes on one
    socket interleave their statements (seen: foreign-key errors, closed results, SIGSEGV). The
    child drops the inherited pool without closing it (closing would end the parent's session)."""
    ref = weakref.ref(engine)

    def in_child():
        engine = ref()
        if engine is not None:
            engine.dispose(close=False)

    os.register_at_fork(after_in_child=in_child)


def _pinger(dialect, ping_after):
    """Pessimistic disconnect handling for connections that rested: a failed ping makes the pool
    throw the connection away and check out a new one (SQLAlchemy retries up to three times)."""
    def ping_if_rested(dbapi_connection, record, proxy):
        rested = record.info.get("checked_in_at")
        if rested is not None and time.monotonic() - rested < ping_after:
            return
        try:
            dialect.do_ping(dbapi_connection)
        except Exception as error:
            raise exc.DisconnectionError() from error
    return ping_if_rested


def _rested_since(dbapi_connection, record):
    if record is not None:
        record.info["checked_in_at"] = time.monotonic()


def _sqlite_pragmas(dbapi_connection, connection_record):
    dbapi_connection.isolation_level = None
    # SQLite's lower() (and so ILIKE) folds ASCII only; PostgreSQL folds every letter. Python's
    # lower() makes "ÅRHUS" find "Århus" on both.
    dbapi_connection.create_function("lower", 1, _lower, deterministic=True)
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _lower(value):
    return value.lower() if isinstance(value, str) else value


def _sqlite_begin(conn):
    # Every transaction, a GET's too: a GET may still write on its connection (the oauth plugin
    # spends a nonce), and a deferred transaction that upgrades to write can fail at once with
    # SQLITE_BUSY (no waiting) when another connection wrote since it began.
    conn.exec_driver_sql("BEGIN IMMEDIATE")


class ReadOnlyRequest(Exception):
    """A GET or HEAD request tried to write: safe methods read (their statements are not in a
    transaction that could be rolled back)."""


# In the info of a read request's sessions: they refuse every write.
READ_ONLY = "db.read_only"


def record_write(session, *tables):
    """A statement run on ``session``'s connection without going through the session (on the
    driver: ``DriverStatement``) wrote ``tables`` (``EVERYTHING`` when it cannot tell): the write
    counts as the session's own, as the session's events count a statement it ran. A read
    session refuses it; the transaction commits it (an unchanged one rolls back); the
    generations' kept values are computed afresh for the rest of the transaction."""
    if session.info.get(READ_ONLY):
        raise ReadOnlyRequest("a GET or HEAD request must not write")
    for table in tables:
        count_write(session, table)
    manager = session.info.get("tm")
    if manager is not None:
        mark_changed(session, manager)


_SESSION_ATTRIBUTE = "_storeplatform_session"


def _mark_session_connections(factory):
    """Each connection a session's transaction runs on names its session while the transaction
    lasts (``session_using``)."""
    def began(session, transaction, connection):
        setattr(connection, _SESSION_ATTRIBUTE, weakref.ref(session))

    event.listen(factory, "after_begin", began)


def session_using(connection):
    """The session whose transaction runs on ``connection`` now, or None."""
    ref = getattr(connection, _SESSION_ATTRIBUTE, None)
    session = None if ref is None else ref()
    if session is None or not session.in_transaction():
        return None
    try:
        return session if session.connection() is connection else None
    except Exception:
        return None


def make_read_session_factory(engine):
    """Sessions for GET and HEAD requests: a write raises ``ReadOnlyRequest`` on every database;
    on a database server they autocommit (no BEGIN, no ROLLBACK round trips), each statement
    seeing what is committed when it runs. SQLite keeps its transactions: they cost nothing."""
    if engine.dialect.name != "sqlite":
        engine = engine.execution_options(isolation_level="AUTOCOMMIT")
    factory = make_session_factory(engine, info={READ_ONLY: True})

    def refuse_flush(session, flush_context, instances):
        raise ReadOnlyRequest("a GET or HEAD request must not write")

    def refuse_statement(state):
        if state.is_insert or state.is_update or state.is_delete:
            raise ReadOnlyRequest("a GET or HEAD request must not write")

    event.listen(factory, "before_flush", refuse_flush)
    event.listen(factory, "do_orm_execute", refuse_statement)
    return factory


def make_session_factory(engine, info=None):
    factory = sessionmaker(bind=engine, expire_on_commit=False, info=info or {})
    track_writes(factory)
    _mark_session_connections(factory)
    _join_transaction_managers(factory)
    return factory


def _join_transaction_managers(factory):
    """zope.sqlalchemy's session events, listened to once on the factory: each session joins the
    transaction manager in its ``info["tm"]``. (``zope.sqlalchemy.register`` listens on every new
    session, seven listeners each time: a tenth of a millisecond per request.)"""
    def join(session):
        manager = session.info.get("tm")
        if manager is not None:
            join_transaction(session, STATUS_ACTIVE, manager)

    def changed(session):
        manager = session.info.get("tm")
        if manager is not None:
            mark_changed(session, manager)

    def before_commit(session):
        manager = session.info.get("tm")
        assert manager is None or session.in_nested_transaction() or \
            manager.get().status == ZopeStatus.COMMITTING, "Transaction must be committed using the transaction manager"

    def orm_execute(state):
        # Core statements through the session too (zope.sqlalchemy counts ORM ones only): a
        # session that ran an UPDATE must commit, not roll back as an unchanged one does.
        if state.is_update or state.is_insert or state.is_delete:
            changed(state.session)

    event.listen(factory, "after_begin", lambda session, transaction, connection: join(session))
    event.listen(factory, "after_attach", lambda session, instance: join(session))
    event.listen(factory, "after_flush", lambda session, flush_context: changed(session))
    event.listen(factory, "after_bulk_update", lambda context: changed(context.session))
    event.listen(factory, "after_bulk_delete", lambda context: changed(context.session))
    event.listen(factory, "before_commit", before_commit)
    event.listen(factory, "do_orm_execute", orm_execute)


def get_tm_session(session_factory, transaction_manager, registry=None, request=None, bind=None):
    """A session joined to ``transaction_manager``; commit and abort belong to it. ``bind``: a
    connection to run on instead of one from the pool (a web thread's own connection).

    ``session.info`` carries what code holding only a session needs: the transaction
    manager (for after-commit work), the registry and, in a web request, the request.
    """
    info = {"tm": transaction_manager, "registry": registry, "request": request}
    return session_factory(info=info) if bind is None else session_factory(info=info, bind=bind)


@contextlib.contextmanager
def site_transaction(registry):
    """A session in a transaction of its own, outside any web request (tasks, the CLI, tests):
    committed when the block ends, aborted when it raises."""
    tm = transaction.TransactionManager(explicit=True)
    with tm:
        # zope.sqlalchemy closes the session when the transaction ends.
        yield get_tm_session(registry["db.session_factory"], tm, registry)
