"""Kept counts checked against their rows, and repaired (#42): the counts of ``counts.py`` are
right as long as every write of a counted table fires its triggers. Rows written with the
triggers off (``pg_restore --disable-triggers``, a bulk load under ``session_replication_role =
replica``, a logical replica promoted, a ``TRUNCATE``) leave them wrong for good: nothing moves
them back but this.

``count_differences(connection)`` compares, for every declared count (each table and grouping),
the kept counts with a count of the rows; ``repair_counts(connection)`` writes, in the caller's
transaction, what each differing key lacks, and returns what it changed. Both read a grouping's
rows and its kept counts in one statement, so one snapshot on PostgreSQL.

A repair beside live writes ends exact without stopping them. On PostgreSQL the kept count of a
key is a sum of delta rows, one per server process that wrote it (``slot``): the repair is one
more writer, adding the difference it saw (rows minus kept, both in its statement's snapshot) to
its own process's row, in the same statement. A transaction that commits after that snapshot adds
its own delta to rows the snapshot did not count, and both stay right once both commit; no other
process's row is written, so no writer waits for the repair nor the repair for a writer. The
periodic fold (``counts.fold_ended_slots``) folds the repair's row once its process has ended. On
SQLite the transaction's write lock (``BEGIN IMMEDIATE``) keeps every writer out: the key's row is
rewritten to the count of its rows.

The repair moves on the generations of the tables it repaired: a list answer kept by the host's
cache holds the total it read, filed under its table's generation, which the trigger-less writes
did not move either.
"""
from collections import namedtuple

from sqlalchemy import inspect, text

from .counts import _pg_key, _sqlite_key, count_name, declared_counts
from .generations import declared_generations
from .meta import metadata

# key: the grouping's values as the counts keep them (text), one per column
CountDifference = namedtuple("CountDifference", "table columns key kept rows")


def _counted(connection, meta):
    """[(table, columns)] of every declared count whose table this database has."""
    known = set(inspect(connection).get_table_names())
    if "list_counts" not in known:
        return []
    declared = declared_counts(meta)
    return [(table, columns) for table in sorted(declared) if table in known for columns in declared[table]]


def _differing(connection, table, columns):
    """The SELECT of the keys of one grouping whose kept count is not the count of its rows:
    (k1, k2, kept, rows), the rows and the kept counts read by one statement."""
    k1, k2 = (_pg_key if connection.dialect.name == "postgresql" else _sqlite_key)(columns, table)
    return (f"SELECT k1, k2, sum(kept) AS kept, sum(actual) AS actual FROM ("
            f"SELECT {k1} AS k1, {k2} AS k2, 0 AS kept, count(*) AS actual FROM {table} GROUP BY {', '.join(columns)} "
            "UNION ALL SELECT k1, k2, sum(n) AS kept, 0 AS actual FROM list_counts WHERE name = :name GROUP BY k1, k2"
            ") d GROUP BY k1, k2 HAVING sum(kept) <> sum(actual)")


def _differences(table, columns, rows):
    return [CountDifference(table, columns, (k1, k2)[:len(columns)], int(kept), int(actual))
            for k1, k2, kept, actual in sorted(rows, key=lambda r: (r[0], r[1]))]


def count_differences(connection, meta=metadata):
    """[CountDifference(table, columns, key, kept, rows)] of every declared count whose kept
    value is not the number of its rows (a key no row has any more: ``rows`` 0; a key the counts
    never heard of: ``kept`` 0), by table, grouping and key; [] when every one matches."""
    found = []
    for table, columns in _counted(connection, meta):
        rows = connection.execute(text(_differing(connection, table, columns)), {"name": count_name(table, columns)})
        found.extend(_differences(table, columns, rows))
    return found


def repair_counts(connection, meta=metadata):
    """Make every kept count the number of its rows, in the caller's transaction (commit it:
    one transaction for every table), and return the differences it repaired (as
    ``count_differences`` saw them). Safe beside live writers (the module's text)."""
    postgresql = connection.dialect.name == "postgresql"
    repaired = []
    for table, columns in _counted(connection, meta):
        name = count_name(table, columns)
        if postgresql:
            # The correction is written by the statement that saw the difference: one snapshot.
            rows = connection.execute(text(
                f"WITH d AS MATERIALIZED ({_differing(connection, table, columns)}), "
                "fixed AS (INSERT INTO list_counts AS c (name, k1, k2, slot, n) "
                "SELECT :name, k1, k2, pg_backend_pid(), actual - kept FROM d ORDER BY k1, k2 "
                "ON CONFLICT (name, k1, k2, slot) DO UPDATE SET n = c.n + excluded.n) "
                "SELECT k1, k2, kept, actual FROM d"), {"name": name}).all()
        else:  # the transaction holds SQLite's write lock (BEGIN IMMEDIATE): no writer in between
            rows = connection.execute(text(_differing(connection, table, columns)), {"name": name}).all()
            for k1, k2, _, actual in rows:
                key = {"name": name, "k1": k1, "k2": k2}
                connection.execute(text("DELETE FROM list_counts WHERE name = :name AND k1 = :k1 AND k2 = :k2"), key)
                if actual:
                    connection.execute(text("INSERT INTO list_counts (name, k1, k2, slot, n) "
                                            "VALUES (:name, :k1, :k2, 0, :n)"), {**key, "n": int(actual)})
        repaired.extend(_differences(table, columns, rows))
    _move_generations(connection, {d.table for d in repaired}, meta)
    return repaired


def _move_generations(connection, tables, meta):
    """Bump the generations of ``tables`` (those that declare one), in name order as writers
    that bump several lock them (generations.lock_generations_in_order)."""
    declared = declared_generations(meta)
    for name in sorted({declared[t][0] for t in tables if t in declared}):
        connection.execute(text("INSERT INTO generations (name, value) VALUES (:name, 1) "
                                "ON CONFLICT (name) DO UPDATE SET value = generations.value + 1"), {"name": name})


def differences_summary(differences):
    """``3 kept counts of orders, posts`` (a report's subject)."""
    tables = sorted({d.table for d in differences})
    n = len(differences)
    return f"{n} kept count{'s' if n != 1 else ''} of {', '.join(tables)}"


def differ_line(differences):
    """``3 kept counts of orders, posts differ from their rows`` (``differs from its rows``)."""
    verb = "differs from its rows" if len(differences) == 1 else "differ from their rows"
    return f"{differences_summary(differences)} {verb}"
