"""Counts the database keeps: how many rows of a table have each value of a few columns (posts
per type and status, orders per status, attendees per event and status), maintained by
triggers in the transaction of every write, so that a list's total is a lookup instead of a
count over the table.

A model declares them next to its columns: ``Table.info["counts"] = (("post_type", "status"),)``,
each a grouping of one or two NOT NULL integer or text columns; ``storeplatform migrate`` makes
the triggers what the declarations say (and counts the rows already there), and readiness
refuses a database whose triggers differ. ``count_rows(session, Model, post_type=..., status=...)``
reads one; ``count_rows_by(session, Model, column)`` every value's count of a one-column grouping.

The rows live in ``list_counts`` (name = ``table:columns``, the grouping's values as text in
``k1``/``k2``, ``slot``, ``n``):

- On PostgreSQL each database connection (server process) keeps its own delta row per key
  (``slot`` = its backend's pid), added to in place by statement triggers that read the
  statement's transition tables (one ``INSERT ... ON CONFLICT DO UPDATE`` per statement, one row
  per key however many rows it wrote). A server process runs one transaction at a time, so no
  writer ever waits for another's counter row, and none can deadlock on one: a single row per
  key would serialize every sale and check-in of the site on it until commit. The update changes
  no indexed column: it is a HOT update, whose old versions the next visit of the page prunes,
  so a key's index entries stay one per process however many writes it takes (a new row per
  transaction left thousands of dead index entries per key between two autovacuum runs under a
  door rush: docs/performance.md). A reader sums the rows of its key. The rows of processes
  that ended are folded into one (``slot`` 0) by a periodic task (``fold_ended_slots``), which
  takes only rows no transaction holds (``SKIP LOCKED``): a key keeps a row per connection.
- On SQLite, whose writers take turns anyway, row triggers keep one row per key (``slot`` 0).

Reading a count is reading the table it counts, for the host's cache: the counts change only
with the rows they count, in the same transaction, so the read is filed under the counted
table's generation (``list_counts`` itself belongs to none, and nothing else may read it).
"""
from sqlalchemy import BigInteger, Column, Integer, String, Table, bindparam, func, inspect, select, text

from .meta import metadata
from .session import record_write
from .statements import DriverStatement

list_counts = Table(
    "list_counts", metadata,
    Column("name", String(80), primary_key=True),
    Column("k1", String(200), primary_key=True),
    Column("k2", String(200), primary_key=True),
    Column("slot", BigInteger, primary_key=True),
    Column("n", BigInteger, nullable=False))

_PG_FUNCTION = "sp_counts_{table}"
_PG_OLD_FOLD = "sp_fold_count(text, text, text)"  # what writers called before slots were per process
_TRIGGER = "sp_counts_{table}_{operation}"
_OPERATIONS = ("insert", "update", "delete")


def _columns_of(grouping):
    return (grouping,) if isinstance(grouping, str) else tuple(grouping)


def count_name(table, columns):
    return f"{table}:{','.join(columns)}"


def declared_counts(meta=metadata):
    """{table: ((column, ...), ...)} as the models declare them (``Table.info["counts"]``)."""
    declared = {}
    for table in meta.tables.values():
        groupings = table.info.get("counts")
        if groupings:
            declared[table.name] = tuple(_columns_of(g) for g in groupings)
    return declared


def _check_grouping(table, columns):
    if not 1 <= len(columns) <= 2:
        raise ValueError(f"{table.name}: a count groups by one or two columns, not {columns}")
    for name in columns:
        column = table.c[name]
        if column.nullable:
            raise ValueError(f"{table.name}.{name}: a counted column must be NOT NULL")
        if not isinstance(column.type, (Integer, String)):
            raise ValueError(f"{table.name}.{name}: a counted column is an integer or text")


# --- reading ----------------------------------------------------------------------------------------

_READS = {}  # (table, columns, shape) -> DriverStatement


def count_rows(session, model, **equal):
    """How many rows of ``model`` (a model class or a table) have the given values: each keyword
    a declared counted column, its value one value or a tuple/list of values (any of them). The
    declared grouping with the fewest columns that has every keyword is read."""
    table = getattr(model, "__table__", model)
    groupings = declared_counts().get(table.name, ())
    wanted = set(equal)
    fitting = [g for g in groupings if wanted <= set(g)]
    if not fitting:
        raise ValueError(f"{table.name} declares no count by {sorted(wanted)} (Table.info['counts'])")
    columns = min(fitting, key=len)
    values = {}
    shape = []
    for index, column in enumerate(columns):
        given = equal.get(column)
        if given is None:
            shape.append(None)
            continue
        given = tuple(given) if isinstance(given, (tuple, list, set, frozenset)) else (given,)
        if not given:
            return 0
        shape.append(len(given))
        for n, value in enumerate(given):
            values[f"k{index + 1}_{n}"] = value if isinstance(value, str) else str(int(value))
    key = (table.name, columns, tuple(shape))
    statement = _READS.get(key)
    if statement is None:
        statement = _READS.setdefault(key, _read_statement(table, columns, shape))
    return int(statement.first(session, name=count_name(table.name, columns), **values)[0])


def count_rows_by(session, model, column):
    """``{value: n}``: how many rows of ``model`` have each value of ``column`` (a declared count
    by that column alone), read in one statement (the admin's "All (5) | administrator (1)");
    a value no row has is absent. The values are text, as the counts keep them."""
    table = getattr(model, "__table__", model)
    if (column,) not in declared_counts().get(table.name, ()):
        raise ValueError(f"{table.name} declares no count by {column!r} alone (Table.info['counts'])")
    key = (table.name, (column,), "by")
    statement = _READS.get(key)
    if statement is None:
        c = list_counts.c
        statement = DriverStatement(select(c.k1, func.sum(c.n)).where(c.name == bindparam("name")).group_by(c.k1))
        statement._tables = frozenset({table.name})  # read under the counted table's generation
        statement = _READS.setdefault(key, statement)
    rows = statement.all(session, name=count_name(table.name, (column,)))
    return {value: int(n) for value, n in rows if int(n)}


def _read_statement(table, columns, shape):
    c = list_counts.c
    stmt = select(func.coalesce(func.sum(c.n), 0)).where(c.name == bindparam("name"))
    for index, arity in enumerate(shape):
        if arity is None:
            continue
        column = c[f"k{index + 1}"]
        names = [bindparam(f"k{index + 1}_{n}") for n in range(arity)]
        stmt = stmt.where(column == names[0] if arity == 1 else column.in_(names))
    statement = DriverStatement(stmt)
    # Read under the counted table's generation (see the module's text).
    statement._tables = frozenset({table.name})
    return statement


# --- the triggers (emitted by ``storeplatform migrate``) ---------------------------------------------

def _pg_key(columns, alias):
    keys = [f"{alias}.{column}::text" for column in columns]
    return keys + ["''"] * (2 - len(keys))


def _pg_deltas(table, groupings, alias, sign):
    parts = []
    for columns in groupings:
        k1, k2 = _pg_key(columns, "r")
        parts.append(f"SELECT '{count_name(table, columns)}'::text AS name, {k1} AS k1, {k2} AS k2, "
                     f"{sign}::bigint AS n FROM {alias} r")
    return " UNION ALL ".join(parts)


def _pg_upsert(deltas):
    return ("INSERT INTO list_counts AS c (name, k1, k2, slot, n) "
            f"SELECT d.name, d.k1, d.k2, pg_backend_pid(), sum(d.n) FROM ({deltas}) d "
            "GROUP BY d.name, d.k1, d.k2 HAVING sum(d.n) <> 0 ORDER BY d.name, d.k1, d.k2 "
            "ON CONFLICT (name, k1, k2, slot) DO UPDATE SET n = c.n + excluded.n;")


def _pg_function_body(table, groupings):
    inserted = _pg_upsert(_pg_deltas(table, groupings, "new_rows", 1))
    deleted = _pg_upsert(_pg_deltas(table, groupings, "old_rows", -1))
    updated = _pg_upsert(_pg_deltas(table, groupings, "old_rows", -1) + " UNION ALL "
                         + _pg_deltas(table, groupings, "new_rows", 1))
    return ("\nBEGIN\n"
            f"IF TG_OP = 'INSERT' THEN {inserted}\nELSIF TG_OP = 'DELETE' THEN {deleted}\nELSE {updated}\nEND IF;\n"
            "RETURN NULL;\nEND\n")


# The rows of server processes that ended, each key's added into its slot 0 in one statement. A row
# some transaction holds (a process that reuses an ended one's pid, another fold) is left for the
# next fold: a fold never waits for a writer, and a writer waits for a fold only when its new
# process took an ended one's pid in the fold's few milliseconds.
_PG_FOLD_ENDED = (
    "WITH gone AS (DELETE FROM list_counts WHERE ctid IN ("
    "SELECT ctid FROM list_counts WHERE slot <> 0 "
    "AND slot NOT IN (SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL) FOR UPDATE SKIP LOCKED) "
    "RETURNING name, k1, k2, n), "
    "folded AS (INSERT INTO list_counts AS c (name, k1, k2, slot, n) "
    "SELECT name, k1, k2, 0, sum(n) FROM gone GROUP BY name, k1, k2 ORDER BY name, k1, k2 "
    "ON CONFLICT (name, k1, k2, slot) DO UPDATE SET n = c.n + excluded.n) "
    "SELECT count(*) FROM gone")


def fold_ended_slots(connection):
    """Fold the delta rows of server processes that ended into their keys' slot 0, in the
    caller's transaction; returns how many rows were folded (0 on SQLite, which keeps one row
    per key). The counts read the same before and after."""
    if connection.dialect.name != "postgresql":
        return 0
    return int(connection.execute(text(_PG_FOLD_ENDED)).scalar())


def fold_counts_task(ctx):
    """Periodic task: ``fold_ended_slots`` in a transaction of its own."""
    if fold_ended_slots(ctx.session.connection()):
        record_write(ctx.session, list_counts.name)  # the transaction commits it (it belongs to no generation)


def _sqlite_key(columns, alias):
    keys = [f"CAST({alias}.{column} AS TEXT)" for column in columns]
    return keys + ["''"] * (2 - len(keys))


def _sqlite_add(table, columns, alias, sign):
    k1, k2 = _sqlite_key(columns, alias)
    name = count_name(table, columns)
    where = f"name = '{name}' AND k1 = {k1} AND k2 = {k2} AND slot = 0"
    return (f"INSERT INTO list_counts (name, k1, k2, slot, n) SELECT '{name}', {k1}, {k2}, 0, 0 "
            f"WHERE NOT EXISTS (SELECT 1 FROM list_counts WHERE {where}); "
            f"UPDATE list_counts SET n = n + ({sign}) WHERE {where};")


def _sqlite_triggers(table, groupings):
    counted = sorted({column for columns in groupings for column in columns})
    changed = " OR ".join(f"OLD.{column} IS NOT NEW.{column}" for column in counted)
    bodies = {
        "insert": " ".join(_sqlite_add(table, g, "NEW", 1) for g in groupings),
        "delete": " ".join(_sqlite_add(table, g, "OLD", -1) for g in groupings),
        "update": " ".join(_sqlite_add(table, g, "OLD", -1) + " " + _sqlite_add(table, g, "NEW", 1)
                           for g in groupings),
    }
    triggers = {}
    for operation in _OPERATIONS:
        event = f"UPDATE OF {', '.join(counted)}" if operation == "update" else operation.upper()
        when = f"WHEN {changed} " if operation == "update" else ""
        triggers[_TRIGGER.format(table=table, operation=operation)] = (
            f"CREATE TRIGGER {_TRIGGER.format(table=table, operation=operation)} AFTER {event} ON {table} "
            f"FOR EACH ROW {when}BEGIN {bodies[operation]} END")
    return triggers


def _pg_triggers(table):
    function = _PG_FUNCTION.format(table=table)
    triggers = {}
    for operation in _OPERATIONS:
        transitions = {"insert": "NEW TABLE AS new_rows", "delete": "OLD TABLE AS old_rows",
                       "update": "OLD TABLE AS old_rows NEW TABLE AS new_rows"}[operation]
        name = _TRIGGER.format(table=table, operation=operation)
        triggers[name] = (f"CREATE TRIGGER {name} AFTER {operation.upper()} ON {table} REFERENCING {transitions} "
                          f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()")
    return triggers


_PG_EMITTED = ("SELECT c.relname, t.tgname, p.prosrc FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
               "JOIN pg_proc p ON p.oid = t.tgfoid WHERE t.tgname LIKE 'sp\\_counts\\_%'")
_SQLITE_EMITTED = "SELECT tbl_name, name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'sp_counts_%'"


def _emitted(connection):
    """{table: signature} of the count triggers the database has (the function's source on
    PostgreSQL, the triggers' text on SQLite, with the triggers' names)."""
    postgresql = connection.dialect.name == "postgresql"
    found = {}
    for table, name, source in connection.execute(text(_PG_EMITTED if postgresql else _SQLITE_EMITTED)).all():
        found.setdefault(table, {})[name] = source
    return {table: tuple(sorted(triggers.items())) for table, triggers in found.items()}


def _wanted(connection, table, groupings):
    if connection.dialect.name == "postgresql":
        body = _pg_function_body(table, groupings)
        return tuple(sorted((name, body) for name in _pg_triggers(table)))
    return tuple(sorted(_sqlite_triggers(table, groupings).items()))


def counts_to_change(connection, meta=metadata):
    """The tables whose count triggers are not what the models declare (of the tables both the
    database and the models of this process have), with their declarations."""
    known = set(inspect(connection).get_table_names()) & set(meta.tables)
    declared = {t: g for t, g in declared_counts(meta).items() if t in known}
    for table, groupings in declared.items():
        for columns in groupings:
            _check_grouping(meta.tables[table], columns)
    emitted = {t: s for t, s in _emitted(connection).items() if t in known}
    changed = sorted(t for t in set(declared) | set(emitted)
                     if t not in declared or emitted.get(t) != _wanted(connection, t, declared[t]))
    return changed, declared


def emit_count_triggers(connection, meta=metadata):
    """Make the database's count triggers what the models declare, and count the rows of each
    table whose triggers changed afresh (in the caller's transaction). Returns those tables."""
    if "list_counts" not in inspect(connection).get_table_names():
        return []
    changed, declared = counts_to_change(connection, meta)
    postgresql = connection.dialect.name == "postgresql"
    execute = connection.exec_driver_sql
    if changed and postgresql:
        execute(f"DROP FUNCTION IF EXISTS {_PG_OLD_FOLD}")
    for table in changed:
        for operation in _OPERATIONS:
            name = _TRIGGER.format(table=table, operation=operation)
            execute(f"DROP TRIGGER IF EXISTS {name} ON {table}" if postgresql else f"DROP TRIGGER IF EXISTS {name}")
        execute(f"DELETE FROM list_counts WHERE substr(name, 1, {len(table) + 1}) = '{table}:'")
        if table not in declared:
            if postgresql:
                execute(f"DROP FUNCTION IF EXISTS {_PG_FUNCTION.format(table=table)}()")
            continue
        groupings = declared[table]
        if postgresql:
            execute(f"CREATE OR REPLACE FUNCTION {_PG_FUNCTION.format(table=table)}() RETURNS trigger "
                    f"LANGUAGE plpgsql AS $body${_pg_function_body(table, groupings)}$body$")
            triggers = _pg_triggers(table)
        else:
            triggers = _sqlite_triggers(table, groupings)
        for statement in triggers.values():
            execute(statement)
        _count_afresh(execute, table, groupings, postgresql)
    return changed


def _count_afresh(execute, table, groupings, postgresql):
    for columns in groupings:
        k1, k2 = (_pg_key if postgresql else _sqlite_key)(columns, table)
        execute(f"INSERT INTO list_counts (name, k1, k2, slot, n) SELECT '{count_name(table, columns)}', {k1}, {k2}, "
                f"0, count(*) FROM {table} GROUP BY {', '.join(columns)}")


def true_counts(connection, table, columns):
    """{(k1, k2): n} counted from the table itself (what the kept counts must say: tests)."""
    k1, k2 = (_pg_key if connection.dialect.name == "postgresql" else _sqlite_key)(columns, table)
    rows = connection.execute(text(f"SELECT {k1}, {k2}, count(*) FROM {table} GROUP BY {', '.join(columns)}"))
    return {(a, b): n for a, b, n in rows if n}


def kept_counts(connection, table, columns):
    """{(k1, k2): n} as the kept counts say (zeros left out)."""
    rows = connection.execute(text("SELECT k1, k2, sum(n) FROM list_counts WHERE name = :name GROUP BY k1, k2"),
                              {"name": count_name(table, columns)})
    return {(a, b): int(n) for a, b, n in rows if n}

