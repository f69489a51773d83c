"""Generations: a counter per kind of data (``content``: posts, terms, post terms), bumped in
the database by every transaction that changes that data (migration sp0004), read by each
transaction with the site state (one statement), and the writes a transaction made. The host's
cache (``storeplatform.core.cache``: ``@cached`` values and kept answers) files what it keeps
under the generations of the tables a computation read: a kept value is thus never older than
the generation it is filed under, and a committed write moves the generation on for every
process at once. A transaction that has written data of a generation computes afresh what that
generation keeps: it must see its own writes, which no generation counts before commit (a
delete, or a statement whose table is not known, counts for every generation).
"""
import json

from sqlalchemy import BigInteger, Column, Connection, String, Table, event, inspect, select, text

from .meta import metadata

try:
    from psycopg import errors as psycopg_errors
    from psycopg.pq import DiagnosticField, ExecStatus, PipelineStatus, TransactionStatus
except ImportError:  # SQLite only
    pass

generations = Table("generations", metadata, Column("name", String(40), primary_key=True),
                    Column("value", BigInteger, nullable=False))

_INFO_KEY = "generations"
_WRITTEN = "generations.written"


# The generations and the stored site options travel together: nearly every request needs both
# (a namespace's switch is an option), and one round trip is the cost that counts. The options
# come along only when their generation is not the one whose options the process keeps (the
# statement's one parameter, -1 when it keeps none): while no option changes, a request reads and
# decodes none of them, however many a site stores. Option values are JSON, read as text on both
# databases and decoded here. {kept} is the parameter's place in each form of the statement.
_READ_STATE = {
    "postgresql": "SELECT name, value, NULL FROM generations UNION ALL SELECT key, NULL, value::text FROM options "
                  "WHERE (SELECT value FROM generations WHERE name = 'options') IS DISTINCT FROM {kept}",
    "sqlite": "SELECT name, value, NULL FROM generations UNION ALL SELECT key, NULL, value FROM options "
              "WHERE (SELECT value FROM generations WHERE name = 'options') IS NOT {kept}",
}
_SQLITE_STATE = _READ_STATE["sqlite"].format(kept="?")
_CURSOR_STATE = _READ_STATE["postgresql"].format(kept="%s")
_CACHED_OPTIONS = "db.cached_options"  # registry key: (options generation, {key: value}) of the process
_NOTHING_KEPT = -1  # no generation is negative


def generation(session, name):
    """The committed generation of ``name`` as this transaction sees it; every generation is read
    with one query, once per transaction (with the stored options: ``stored_options``)."""
    return _site_state(session)[0].get(name, 0)


def generations_seen(session):
    """{name: committed generation} as this transaction sees them (a generation never bumped is
    missing): ``generation`` for many names at once."""
    return _site_state(session)[0]


def stored_options(session):
    """{key: value} of the options table: read with the generations (or kept by the process
    while they do not change: shared, never change it), or afresh by a transaction that has
    written (it must see its own writes)."""
    if wrote_generation(session, "options"):
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
    engine's ``before_cursor_execute`` (query counters) still see it (with no cursor). The
    options are the process's kept ones when the statement says they have not changed since
    (they are then shared: read them, never change them)."""
    registry = session.info["registry"]
    kept = registry.get(_CACHED_OPTIONS)
    kept_generation = _NOTHING_KEPT if kept is None else kept[0]
    connection = _state_connection(session)
    dialect = connection.dialect.name
    if connection.dispatch.before_cursor_execute:
        statement = _READ_STATE[dialect].format(kept=kept_generation)
        connection.dispatch.before_cursor_execute(connection, None, statement, (), None, False)
    if dialect == "postgresql":
        rows = _read_state_postgresql(connection.connection, kept_generation,
                                      connection.engine not in UNPREPARED)
    else:
        cursor = connection.connection.dbapi_connection.cursor()
        try:
            cursor.execute(_SQLITE_STATE, (kept_generation,))
            rows = cursor.fetchall()
        finally:
            cursor.close()
    generations_seen, options = {}, {}
    for name, value, option in rows:
        if value is not None:
            generations_seen[name] = value
        else:
            # SQLite's numeric affinity gives a stored JSON number back as a number.
            if isinstance(option, bytes):
                option = option.decode()  # as text: json.loads would first detect its encoding
            options[name] = json.loads(option) if isinstance(option, str) else option
    options_generation = generations_seen.get("options")
    if kept is not None and options_generation == kept_generation:
        return generations_seen, kept[1]  # the statement sent no option: none changed
    if options_generation is not None:
        registry[_CACHED_OPTIONS] = (options_generation, options)
    return generations_seen, options


def _state_connection(session):
    """A read session on its own autocommit connection reads the state there as it is: its
    statements see what is committed when they run, with or without the session's bookkeeping of
    a transaction, which a request answered from what is kept would begin and close for this one
    statement (a third of its database Python). Any other session reads it in its transaction."""
    bind = session.bind
    if isinstance(bind, Connection) and not session.in_transaction() and _autocommits(bind):
        return bind
    return session.connection()


def _autocommits(connection):
    """The driver commits each statement itself: a web thread's own connection serving a read
    (thread_connections.py switches psycopg's flag), or one set to SQLAlchemy's AUTOCOMMIT level. (sqlite3's
    ``autocommit`` of Python 3.12 is -1 in the legacy mode our engine uses, hence ``is True``.)"""
    if connection.invalidated or connection.closed:
        return False
    return getattr(connection.connection.dbapi_connection, "autocommit", False) is True


_STATE_PREPARED = b"sp_site_state"
_STATE_PREPARED_TEXT = _READ_STATE["postgresql"].format(kept="$1::bigint").encode()
_UNDEFINED_STATEMENT = b"26000"  # invalid_sql_statement_name


# The engines behind a pooler in transaction mode (``session.make_engine``): a set of the
# engines themselves, whose membership a request tests without a Python call (psycopg's
# ``prepare_threshold`` is a property: two calls on every request).
UNPREPARED = set()


def _read_state_postgresql(pooled, kept_generation, prepares=True):
    """The state statement on libpq itself (psycopg's cursor costs as much CPU as the round
    trip). Without a transaction (autocommit) the statement runs prepared, prepared again when
    the server forgot it (psycopg deallocates every statement after a ROLLBACK or DDL it ran). A
    transaction that has not begun begins with it, in the same round trip (psycopg would send
    BEGIN on its own first): BEGIN and the prepared statement go as one pipeline
    (``_begin_with_state``); psycopg sees the transaction libpq reports and commits it as its
    own. In a transaction under way, where a failed statement would abort it, psycopg's cursor
    runs it.

    Behind a pooler in transaction mode (``sqlalchemy.transaction_pooling``: the engine is in
    ``UNPREPARED`` and its connections have psycopg's ``prepare_threshold`` None: ``prepares``
    False) nothing is prepared: a statement
    prepared on one server connection is unknown to the next transaction's, or known there
    under the same name as another client's. The statement then goes unnamed (parse, bind and
    execute in one round trip, forgotten at its end)."""
    dbapi = pooled.dbapi_connection
    pgconn = dbapi.pgconn
    if dbapi.autocommit:  # a property: read once
        parameters = [b"%d" % kept_generation]
        if not prepares:
            result = pgconn.exec_params(_STATE_PREPARED_TEXT, parameters)
        else:
            result = pgconn.exec_prepared(_STATE_PREPARED, parameters)
            if result.status == ExecStatus.FATAL_ERROR and _forgotten(result):
                _check(pgconn.prepare(_STATE_PREPARED, _STATE_PREPARED_TEXT), ExecStatus.COMMAND_OK)
                result = pgconn.exec_prepared(_STATE_PREPARED, parameters)
    elif pgconn.transaction_status == TransactionStatus.IDLE:
        result = _begin_with_state(pgconn, [b"%d" % kept_generation], prepares)
    else:
        cursor = dbapi.cursor()
        try:
            return cursor.execute(_CURSOR_STATE, [kept_generation], prepare=prepares).fetchall()
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


def _forgotten(result):
    """A failed result says the server does not know the prepared statement (callers test the
    status first: a successful result, nearly every one, costs them no call)."""
    return result.error_field(DiagnosticField.SQLSTATE) == _UNDEFINED_STATEMENT


def _begin_with_state(pgconn, parameters, prepares):
    """BEGIN and the state statement in one round trip, as a pipeline of libpq's: the statement
    runs prepared, as without a transaction, where a simple query's text (``BEGIN; SELECT ...``)
    is parsed and planned anew by the server on every write (~110 us of its CPU per write on the
    bench's machine: docs/performance.md). Behind a pooler in transaction mode (``prepares``
    False) the statement goes unnamed, in the same pipeline. A server that forgot the prepared
    statement aborts the transaction just begun: it is rolled back, prepared and begun again.
    Returns the statement's result."""
    for attempt in (1, 2):
        pgconn.enter_pipeline_mode()
        try:
            pgconn.send_query_params(b"BEGIN", None)
            if prepares:
                pgconn.send_query_prepared(_STATE_PREPARED, parameters)
            else:
                pgconn.send_query_params(_STATE_PREPARED_TEXT, parameters)
            pgconn.pipeline_sync()
            results = _through_sync(pgconn)
        finally:
            _leave_pipeline(pgconn)
        began, result = results
        if began.status != ExecStatus.COMMAND_OK:
            raise psycopg_errors.error_from_result(began)
        if result.status == ExecStatus.FATAL_ERROR and attempt == 1 and prepares and _forgotten(result):
            _check(pgconn.exec_(b"ROLLBACK"), ExecStatus.COMMAND_OK)
            _check(pgconn.prepare(_STATE_PREPARED, _STATE_PREPARED_TEXT), ExecStatus.COMMAND_OK)
            continue
        return result


def _through_sync(pgconn):
    """The results of a pipeline's statements, read up to its sync. libpq ends each statement's
    results with a None; more than one in a row means the connection is gone."""
    results, ended = [], 0
    while True:
        result = pgconn.get_result()
        if result is None:
            ended += 1
            if ended > 1:
                raise psycopg_errors.OperationalError(
                    pgconn.error_message.decode(errors="replace") or "the connection ended a pipeline early")
            continue
        ended = 0
        if result.status == ExecStatus.PIPELINE_SYNC:
            return results
        results.append(result)


def _leave_pipeline(pgconn):
    """Out of pipeline mode, whatever happened in it: psycopg's own use of the connection knows
    nothing of it. (A connection that failed in the middle cannot leave it: it is broken, and the
    error that broke it is the one raised.)"""
    if pgconn.pipeline_status != PipelineStatus.OFF:
        try:
            pgconn.exit_pipeline_mode()
        except Exception:  # noqa: BLE001 - see above
            pass


def _check(result, status):
    if result.status != status:
        raise psycopg_errors.error_from_result(result)


# What a session has written, as the tables it wrote, or EVERYTHING where it cannot tell (a
# delete, whose ON DELETE CASCADE reaches other tables; a statement written as text).
EVERYTHING = "*"


def track_writes(session_factory):
    """Record in the sessions of ``session_factory`` which tables they wrote."""
    def flushed(session, flush_context):
        # after_flush still sees what the flush wrote as new, dirty and deleted.
        if session.deleted:
            count_write(session, EVERYTHING)
            return
        for instance in (*session.new, *session.dirty):
            mapper = inspect(instance).mapper
            for table in mapper.tables:
                count_write(session, table.name)
            for relationship in mapper.relationships:
                if relationship.secondary is not None:
                    count_write(session, getattr(relationship.secondary, "name", EVERYTHING))

    def executed(state):
        if state.is_select:
            return
        table = getattr(state.statement, "table", None) if (state.is_insert or state.is_update) else None
        count_write(state.session, getattr(table, "name", EVERYTHING))

    def ended(session, transaction):
        if transaction.parent is None:
            session.info.pop(_WRITTEN, None)
            session.info.pop(_INFO_KEY, None)

    event.listen(session_factory, "after_flush", flushed)
    event.listen(session_factory, "do_orm_execute", executed)
    event.listen(session_factory, "after_transaction_end", ended)
    event.listen(session_factory, "before_commit", lock_generations_in_order)


# A generation's row is made by its first bump: two transactions making two new rows in opposite
# orders would wait for each other's insert as they would for each other's update, so the rows
# are made and locked in name order, in one statement (ON CONFLICT DO UPDATE locks the rows that
# exist, and its WHERE false leaves them as they are).
_LOCK_GENERATIONS = text("INSERT INTO generations (name, value) SELECT name, 0 FROM unnest(CAST(:names AS text[])) "
                         "AS seed(name) ORDER BY name ON CONFLICT (name) DO UPDATE SET value = generations.value "
                         "WHERE false")


def lock_generations_in_order(session):
    """On PostgreSQL the generations a transaction moved on are bumped at its commit, each row
    locked in the order the transaction first wrote its tables: two transactions writing two
    generations in opposite orders would each hold the row the other waits for, and one would
    die as a deadlock. A transaction that wrote more than one generation (or cannot tell which:
    then every declared one) makes and locks their rows in name order first; one that wrote a
    single generation, as nearly every request does, costs nothing more."""
    written = session.info.get(_WRITTEN)
    if not written or session.in_nested_transaction():
        return
    if session.get_bind().dialect.name != "postgresql":
        return  # SQLite's writers take turns: there is one lock
    tables = _declared_tables()
    if EVERYTHING in written:
        names = sorted(set(tables.values()))
    else:
        names = sorted({tables[table] for table in written if table in tables})
    if len(names) > 1:
        session.execute(_LOCK_GENERATIONS, {"names": names})


def count_write(session, table):
    """The transaction of ``session`` has written ``table`` (``EVERYTHING``: it cannot tell)."""
    session.info.setdefault(_WRITTEN, set()).add(table)


def wrote_generation(session, name):
    """Whether this transaction wrote data that generation ``name`` counts (it must then see
    its own writes: nothing cached by that generation is good for it)."""
    written = session.info.get(_WRITTEN)
    if not written:
        return False
    if EVERYTHING in written:
        return True
    tables = generation_tables(session)
    return any(tables.get(table) == name for table in written)


def written_tables(session):
    """The tables this transaction has written (``EVERYTHING`` among them when it cannot tell)."""
    return session.info.get(_WRITTEN) or _NONE_WRITTEN


_NONE_WRITTEN = frozenset()


def declared_generations(meta=metadata):
    """{table: (generation, changed columns or ())} as the models declare them:
    ``Table.info["generation"]`` (and ``"generation_columns"``: an UPDATE counts only when one
    of those columns changed). A table that declares none belongs to no generation."""
    declared = {}
    for table in meta.tables.values():
        name = table.info.get("generation")
        if name is not None:
            declared[table.name] = (name, tuple(table.info.get("generation_columns", ())))
    return declared


def generation_tables(session):
    """{table: generation} as the models declare them (``declared_generations``)."""
    return _declared_tables()


def _declared_tables():
    global _DECLARED
    if _DECLARED is None or len(metadata.tables) != _DECLARED[0]:
        _DECLARED = (len(metadata.tables), {t: name for t, (name, _) in declared_generations().items()})
    return _DECLARED[1]


_DECLARED = None

