"""Statements of a hot path (a webhook worker's delivery, a check-in at the door), compiled
once per dialect and executed on the database driver's own connection.

SQLAlchemy's work for each execution (cache key, parameters, result set-up) costs a few tenths
of a millisecond per statement, more than the round trip to the database; a worker making two
statements per delivery pays it once per process instead. SQLAlchemy still provides the
connection, its pool and its transaction state; the SQL text and the parameter conversions
(time stamps on SQLite) are its own, compiled from the same constructs as everywhere else.
Each execution runs in a session's transaction, whatever it does: a write is the transaction's
own (recorded as one through the session is), a read is named to the host's cache.
"""
from sqlalchemy import Delete, Insert, Update
from sqlalchemy.orm import Session
from sqlalchemy.sql import visitors

from ..cache import note_tables, refuse, statement_tables
from .generations import EVERYTHING
from .session import record_write, session_using


_CURSOR = "db.driver_cursor"


def _cursor(connection):
    """A cursor of ``connection``'s driver connection. psycopg's is kept with the connection (the
    pool's ``info`` of a driver connection lasts as long as it, and is cleared when a new one
    replaces it): psycopg copies its adapters for every new cursor, which cost a check-in more
    than the statement's own Python; its results are in memory, each execution replacing the
    last. A connection serves one thread at a time, and so does its cursor. sqlite3's cursors
    are cheap and one left with unread rows would keep its statement open: a new one each time,
    freed with its caller's reference."""
    pooled = connection.connection
    if connection.dialect.driver != "psycopg":
        return pooled.driver_connection.cursor()
    cursor = pooled.info.get(_CURSOR)
    if cursor is None:
        cursor = pooled.info[_CURSOR] = pooled.driver_connection.cursor()
    return cursor


def written_tables(statement):
    """The names of the tables ``statement`` writes: an INSERT's, UPDATE's or DELETE's own, and
    those of the ones in its CTEs (``WITH moved AS (UPDATE ...) SELECT ...`` writes as an
    UPDATE does); ``EVERYTHING`` for a DELETE, whose foreign keys may cascade anywhere."""
    names = set()
    for element in visitors.iterate(statement):
        if isinstance(element, Delete):
            return frozenset((EVERYTHING,))
        if isinstance(element, (Insert, Update)):
            names.add(element.table.name)
    return frozenset(names)


def _converted(row, processors):
    row = list(row)
    for index, convert in processors:
        value = row[index]
        if value is not None:
            row[index] = convert(value)
    return tuple(row)


class DriverStatement:
    """A Core statement whose parameters are named with ``bindparam(name)``. An INSERT or UPDATE
    sets every column that has a default or an onupdate computed in Python (a ``ValueError``
    says which, on the first execution): SQLAlchemy computes them per execution, the driver
    cannot."""

    def __init__(self, statement):
        self.statement = statement
        self._compiled = {}  # dialect name -> (sql, positional names or None, defaults, converters)
        self._processors = {}  # dialect name -> (index, conversion) of the returned columns that convert
        self._tables = None  # the tables it reads or writes (EVERYTHING: written as text)
        self._writes = None  # the tables it writes, its CTEs' too (EVERYTHING: a DELETE's cascades)

    def _compile(self, dialect):
        compiled = self._compiled.get(dialect.name)
        if compiled is None:
            form = self.statement.compile(dialect=dialect)
            computed = [column.name for column in (*form.insert_prefetch, *form.update_prefetch)]
            if computed:
                # SQLAlchemy computes them for each execution; the driver would send NULL.
                raise ValueError(f"a DriverStatement must set the columns with Python defaults: {computed}")
            defaults, converters = {}, {}
            for bind, name in form.bind_names.items():
                defaults[name] = bind.effective_value  # the statement's own constants
                convert = bind.type.dialect_impl(dialect).bind_processor(dialect)
                if convert is not None:
                    converters[name] = convert
            compiled = self._compiled[dialect.name] = (
                str(form), tuple(form.positiontup) if form.positional else None, defaults, converters)
        return compiled

    def _run_in(self, target):
        """The connection to run on. ``target``: a session (its transaction's connection, and the
        statement counts as the session's own: a write is recorded as one through the session is
        — a read request's session refuses it, the transaction commits it, what is cached of the
        tables it wrote is computed afresh for the rest of the transaction — and a read is named
        to the host's cache); or a connection no session is using (a worker's own)."""
        if isinstance(target, Session):
            session, connection = target, target.connection()
        else:
            session, connection = None, target
            if session_using(connection) is not None:
                raise TypeError("this connection belongs to a session's transaction: pass the session, "
                                "so that the transaction knows what the statement wrote")
        tables = self._tables
        if tables is None:
            tables = self._tables = statement_tables(self.statement)
            self._writes = written_tables(self.statement)
        if self._writes:
            if session is not None:
                record_write(session, *self._writes)
        elif tables is EVERYTHING:
            refuse("a statement written as text")
        else:
            note_tables(tables)
        return connection

    def first(self, target, **values):
        """The first row (a tuple) with each column's type applied
        as a query through the session would give it, or None. Query counters
        (``before_cursor_execute``) see the statement."""
        connection = self._run_in(target)
        row = self._execute(connection, values).fetchone()
        if row is None:
            return None
        processors = self._result_processors(connection.dialect)
        return _converted(row, processors) if processors else row

    def all(self, target, **values):
        """Every row (tuples), each column's type applied as ``first`` does."""
        connection = self._run_in(target)
        processors = self._result_processors(connection.dialect)
        rows = self._execute(connection, values).fetchall()
        return [_converted(row, processors) for row in rows] if processors else rows

    def _result_processors(self, dialect):
        """(column index, conversion) of the returned columns whose type converts what the driver
        gives (most convert nothing: a row of them is the driver's own tuple)."""
        processors = self._processors.get(dialect.name)
        if processors is None:
            processors = self._processors[dialect.name] = tuple(
                (index, convert) for index, convert in enumerate(
                    column.type.dialect_impl(dialect).result_processor(dialect, None)
                    for column in self.statement.exported_columns) if convert is not None)
        return processors

    def rowcount(self, target, **values):
        """How many rows the statement changed."""
        return self._execute(self._run_in(target), values).rowcount

    def returned_each(self, target, rows):
        """Run once per dict of ``rows``; for each, whether it returned a row (a statement with
        RETURNING: whether it changed one). psycopg sends them all in one round trip."""
        return [row is not None for row in self.returned_rows(target, rows)]

    def returned_rows(self, target, rows):
        """Run once per dict of ``rows``; for each, the row it returned (a tuple) or None.
        psycopg sends them all in one round trip."""
        connection = self._run_in(target)
        sql, names, defaults, converters = self._compile(connection.dialect)
        params = [self._params(names, defaults, converters, values) for values in rows]
        self._counted(connection, sql, params)
        cursor = _cursor(connection)
        if connection.dialect.driver == "psycopg" and len(params) > 1:
            cursor.executemany(sql, params, returning=True)
            returned = []
            while True:
                returned.append(cursor.fetchone())
                if not cursor.nextset():
                    return returned
        returned = []
        for one in params:
            cursor.execute(sql, one)
            returned.append(cursor.fetchone())
        return returned

    def many(self, target, rows):
        """Run once per dict of ``rows`` (the driver sends them together where it can)."""
        connection = self._run_in(target)
        sql, names, defaults, converters = self._compile(connection.dialect)
        params = [self._params(names, defaults, converters, values) for values in rows]
        self._counted(connection, sql, params)
        _cursor(connection).executemany(sql, params)

    @staticmethod
    def _counted(connection, sql, params):
        # Shown to ``before_cursor_execute`` listeners first (query counters), as a statement
        # through the session is.
        if connection.dispatch.before_cursor_execute:
            connection.dispatch.before_cursor_execute(connection, None, sql, params, None, True)

    def _execute(self, connection, values):
        """The cursor after one execution."""
        sql, names, defaults, converters = self._compile(connection.dialect)
        params = self._params(names, defaults, converters, values)
        if connection.dispatch.before_cursor_execute:
            connection.dispatch.before_cursor_execute(connection, None, sql, params, None, False)
        cursor = _cursor(connection)
        cursor.execute(sql, params)
        return cursor

    @staticmethod
    def _params(names, defaults, converters, values):
        params = {**defaults, **values}
        for name, convert in converters.items():
            params[name] = convert(params[name])
        return tuple(params[name] for name in names) if names is not None else params
