"""Generations: a counter per kind of data (``content``: posts, terms, post terms), bumped in
the database by every transaction that changes that data (migration sp0004), and what is cached
by them: values derived from the data, such as list totals, kept per process and keyed by the
generation read in the same transaction before the value was computed. A cached value is thus
never older than the generation it is filed under, and a committed write moves the generation
on for every process at once. A transaction that has written anything computes afresh: it must
see its own writes, which no generation counts before commit.
"""
import json
import threading

from sqlalchemy import BigInteger, Column, String, Table, event, select

from .meta import metadata

try:
    from psycopg import errors as psycopg_errors
    from psycopg.pq import DiagnosticField, ExecStatus, TransactionStatus
except ImportError:  # SQLite only
    pass

generations = Table("generations", metadata, Column("name", String(40), primary_key=True),
                    Column("value", BigInteger, nullable=False))

# Entries per process: a cap, not a policy (old generations are never read again).
CACHE_SIZE = 2048
_INFO_KEY = "generations"
_WRITTEN = "generations.written"


# The generations and the stored site options travel together: nearly every request needs both
# (a namespace's switch is an option), and one round trip is the cost that counts.
# Option values are JSON, read as text on both databases and decoded here.
_READ_STATE = {"postgresql": "SELECT name, value, NULL FROM generations UNION ALL SELECT key, NULL, value::text FROM options",
               "sqlite": "SELECT name, value, NULL FROM generations UNION ALL SELECT key, NULL, value FROM options"}


def generation(session, name):
    """The committed generation of ``name`` as this transaction sees it; every generation is read
    with one query, once per transaction (with the stored options: ``stored_options``)."""
    return _site_state(session)[0].get(name, 0)


def stored_options(session):
    """{key: value} of the options table: read with the generations, or afresh by a transaction
    that has written (it must see its own writes)."""
    if session.info.get(_WRITTEN):
        table = metadata.tables["options"]
        return dict(session.execute(select(table.c.key, table.c.value)).all())
    return _site_state(session)[1]


def _site_state(session):
    state = session.info.get(_INFO_KEY)
    if state is None:
        state = session.info[_INFO_KEY] = _read_state(session)
    return state


def _read_state(session):
    """(generations, stored options), on the driver: the statement runs first in nearly every
    request, and through the ORM it costs four times the round trip itself. Listeners of the
    engine's ``before_cursor_execute`` (query counters) still see it (with no cursor)."""
    connection = session.connection()
    dialect = connection.dialect.name
    statement = _READ_STATE[dialect]
    if connection.dispatch.before_cursor_execute:
        connection.dispatch.before_cursor_execute(connection, None, statement, (), None, False)
    if dialect == "postgresql":
        rows = _read_state_postgresql(connection.connection)
    else:
        cursor = connection.connection.dbapi_connection.cursor()
        try:
            cursor.execute(statement)
            rows = cursor.fetchall()
        finally:
            cursor.close()
    generations_seen, options = {}, {}
    for name, value, option in rows:
        if value is not None:
            generations_seen[name] = value
        else:
            # SQLite's numeric affinity gives a stored JSON number back as a number.
            options[name] = json.loads(option) if isinstance(option, (str, bytes)) else option
    return generations_seen, options


_STATE_STATEMENT = _READ_STATE["postgresql"].encode()
_STATE_PREPARED = b"sp_site_state"
_UNDEFINED_STATEMENT = b"26000"  # invalid_sql_statement_name


def _read_state_postgresql(pooled):
    """The state statement on libpq itself (psycopg's cursor costs as much CPU as the round
    trip). A transaction that has not begun begins with it, in the same round trip (psycopg would
    send BEGIN on its own first): psycopg sees the transaction libpq reports and commits it as its
    own. Without a transaction (autocommit) the statement runs prepared, prepared again when the
    server forgot it (psycopg deallocates every statement after a ROLLBACK or DDL it ran). In a
    transaction under way, where a failed statement would abort it, psycopg's cursor runs it."""
    dbapi = pooled.dbapi_connection
    pgconn = dbapi.pgconn
    if dbapi.autocommit:
        result = pgconn.exec_prepared(_STATE_PREPARED, [])
        if result.status == ExecStatus.FATAL_ERROR and \
                result.error_field(DiagnosticField.SQLSTATE) == _UNDEFINED_STATEMENT:
            _check(pgconn.prepare(_STATE_PREPARED, _STATE_STATEMENT), ExecStatus.COMMAND_OK)
            result = pgconn.exec_prepared(_STATE_PREPARED, [])
    elif pgconn.transaction_status == TransactionStatus.IDLE:
        result = pgconn.exec_(b"BEGIN; " + _STATE_STATEMENT)
    else:
        cursor = dbapi.cursor()
        try:
            cursor.execute(_READ_STATE["postgresql"], prepare=True)
            return [(name, value, None if option is None else option.encode()) for name, value, option in cursor]
        finally:
            cursor.close()
    _check(result, ExecStatus.TUPLES_OK)
    value = result.get_value
    rows = []
    for row in range(result.ntuples):
        generation_value = value(row, 1)
        rows.append((value(row, 0).decode(), None if generation_value is None else int(generation_value),
                     value(row, 2)))
    return rows


def _check(result, status):
    if result.status != status:
        raise psycopg_errors.error_from_result(result)


def track_writes(session_factory):
    """Mark the sessions of ``session_factory`` that flushed or executed anything but a SELECT."""
    def flushed(session, flush_context):
        session.info[_WRITTEN] = True

    def executed(state):
        if not state.is_select:
            state.session.info[_WRITTEN] = True

    def ended(session, transaction):
        if transaction.parent is None:
            session.info.pop(_WRITTEN, None)
            session.info.pop(_INFO_KEY, None)

    event.listen(session_factory, "after_flush", flushed)
    event.listen(session_factory, "do_orm_execute", executed)
    event.listen(session_factory, "after_transaction_end", ended)


class GenerationCache:
    """Values computed from the data of a generation, by (generation, key)."""

    def __init__(self, size=CACHE_SIZE):
        self.size = size
        self._values = {}
        self._lock = threading.Lock()

    def get_or_compute(self, session, name, key, compute):
        if session.info.get(_WRITTEN):
            return compute()
        entry = (name, generation(session, name), key)
        try:
            return self._values[entry]
        except KeyError:
            pass
        value = compute()
        with self._lock:
            if len(self._values) >= self.size:
                self._values.clear()
            self._values[entry] = value
        return value


def statement_key(stmt):
    """A hashable key of a statement and its parameter values (SQLAlchemy's own cache key)."""
    cache_key = stmt._generate_cache_key()
    return cache_key.key, tuple(repr(p.effective_value) for p in cache_key.bindparams)


def cached_by_generation(session, name, key, compute):
    """``compute()``, or its value from a transaction that saw the same generation of ``name``."""
    registry = session.info["registry"]
    cache = registry.get("db.generation_cache")
    if cache is None:
        cache = registry.setdefault("db.generation_cache", GenerationCache())
    return cache.get_or_compute(session, name, key, compute)


# --- the triggers that bump them (for migrations) ---------------------------------------------

_PG_FUNCTION = "sp_bump_generation"  # created by sp0004: bumps TG_ARGV[0] once per transaction


def add_generation_triggers(op, name, tables):
    """In a migration: every committed change of ``tables`` moves generation ``name`` on. On
    PostgreSQL at commit (a deferred constraint trigger, once per transaction); on SQLite, whose
    writers are serialized anyway, a row trigger per statement kind."""
    postgresql = op.get_bind().dialect.name == "postgresql"
    for table in tables:
        if postgresql:
            op.execute(f"CREATE CONSTRAINT TRIGGER sp_generation_{table} AFTER INSERT OR UPDATE OR DELETE ON "
                       f"{table} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
                       f"EXECUTE FUNCTION {_PG_FUNCTION}('{name}')")
            continue
        for operation in ("INSERT", "UPDATE", "DELETE"):
            op.execute(f"CREATE TRIGGER sp_generation_{table}_{operation.lower()} AFTER {operation} ON {table} "
                       f"BEGIN INSERT OR IGNORE INTO generations (name, value) VALUES ('{name}', 0); "
                       f"UPDATE generations SET value = value + 1 WHERE name = '{name}'; END")


def drop_generation_triggers(op, tables):
    postgresql = op.get_bind().dialect.name == "postgresql"
    for table in tables:
        if postgresql:
            op.execute(f"DROP TRIGGER IF EXISTS sp_generation_{table} ON {table}")
        else:
            for operation in ("insert", "update", "delete"):
                op.execute(f"DROP TRIGGER IF EXISTS sp_generation_{table}_{operation}")
