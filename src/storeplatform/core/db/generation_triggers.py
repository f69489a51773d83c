"""The triggers that bump the generations (``generations.py``) on every write of a table that
declares one: emitted by ``storeplatform migrate`` for the tables the models declare
(``__table_args__ = {"info": {"generation": name}}``), checked by the readiness probe, and
written by migrations of their own (``add_generation_triggers``)."""
import re

from sqlalchemy import inspect, text

from .generations import declared_generations
from .meta import metadata


_PG_FUNCTION = "sp_bump_generation"  # created by sp0004: bumps TG_ARGV[0] once per transaction
_TRIGGERS = {
    # The changed columns travel as the trigger's second argument: the function ignores it,
    # the sync reads it back.
    "postgresql": "SELECT c.relname, t.tgname, t.tgargs FROM pg_trigger t "
                  "JOIN pg_class c ON c.oid = t.tgrelid WHERE t.tgname LIKE 'sp\\_generation\\_%'",
    "sqlite": "SELECT tbl_name, name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'sp_generation_%'",
}
_SQLITE_GENERATION = re.compile(r"SELECT '([^']+)', 0 WHERE NOT EXISTS")
_SQLITE_COLUMN = re.compile(r"OLD\.(\w+) IS NOT NEW\.")
_INCOMPLETE = "(some of its triggers are missing)"


def emitted_generations(connection):
    """{table: (generation, changed columns)} as the database's triggers say (a table missing
    some of the triggers its generation needs: a generation that names it)."""
    dialect = connection.dialect.name
    emitted, names = {}, {}
    for table, name, argument in connection.execute(text(_TRIGGERS[dialect])).all():
        names.setdefault(table, set()).add(name)
        if dialect == "postgresql":
            args = bytes(argument).split(b"\x00")  # NUL-separated, NUL-terminated
            columns = tuple(c for c in args[1].decode().split(",") if c) if len(args) > 2 else ()
            emitted[table] = (args[0].decode(), columns)
        else:
            match = _SQLITE_GENERATION.search(argument or "")
            if match is None:  # a trigger of an older form: made again
                names[table].add(None)
            elif table not in emitted:
                emitted[table] = (match.group(1), ())
            if match and " UPDATE ON " in argument:
                emitted[table] = (match.group(1), tuple(_SQLITE_COLUMN.findall(argument)))
    for table in names:
        emitted.setdefault(table, (_INCOMPLETE, ()))
    for table, (generation_name, columns) in list(emitted.items()):
        if names[table] != _trigger_names(dialect, table, columns):
            emitted[table] = (_INCOMPLETE, ())
    return emitted


def _trigger_names(dialect, table, columns):
    if dialect == "postgresql":
        return {f"sp_generation_{table}"} | ({f"sp_generation_{table}_update"} if columns else set())
    return {f"sp_generation_{table}_{operation}" for operation in ("insert", "update", "delete")}


def triggers_to_change(connection, meta=metadata):
    """The tables whose generation triggers are not what the models declare, of the tables both
    the database and the models of this process have (a disabled plugin's tables are left as
    they are), with {table: declaration} and {table: what the triggers count} of those."""
    known = set(inspect(connection).get_table_names()) & set(meta.tables)
    declared = {t: v for t, v in declared_generations(meta).items() if t in known}
    emitted = {t: v for t, v in emitted_generations(connection).items() if t in known}
    return sorted(t for t in set(declared) | set(emitted) if declared.get(t) != emitted.get(t)), declared, emitted


def emit_generation_triggers(connection, meta=metadata):
    """Make the database's generation triggers what the models declare: those of a table whose
    declaration changed are made again, those of a table that declares none are dropped.
    Returns the tables whose triggers changed."""
    changed, declared, emitted = triggers_to_change(connection, meta)
    execute = connection.exec_driver_sql
    for table in changed:
        if table in emitted:
            _drop_triggers(execute, connection.dialect.name, table)
        if table in declared:
            name, columns = declared[table]
            _create_triggers(execute, connection.dialect.name, name, table, columns)
    return changed


def add_generation_triggers(op, name, tables, changed_columns=None):
    """In a migration (the host's history; models now declare their generation): every
    committed change of ``tables`` moves generation ``name`` on."""
    dialect = op.get_bind().dialect.name
    for table in tables:
        _create_triggers(op.execute, dialect, name, table, tuple(changed_columns or ()))


def drop_generation_triggers(op, tables):
    dialect = op.get_bind().dialect.name
    for table in tables:
        _drop_triggers(op.execute, dialect, table)


def _create_triggers(execute, dialect, name, table, columns):
    """On PostgreSQL at commit (a deferred constraint trigger, once per transaction); on SQLite,
    whose writers are serialized anyway, a row trigger per statement kind. With ``columns``, an
    UPDATE counts only when one of those columns changed (what the generation keeps reads only
    them, and the table's other columns change often)."""
    postgresql = dialect == "postgresql"
    when = None
    if columns:
        distinct = "IS DISTINCT FROM" if postgresql else "IS NOT"
        when = " OR ".join(f"OLD.{column} {distinct} NEW.{column}" for column in columns)
    if postgresql:
        kinds = [("", "INSERT OR UPDATE OR DELETE", "")] if when is None else \
            [("", "INSERT OR DELETE", ""), ("_update", "UPDATE", f"WHEN ({when}) ")]
        for suffix, operations, condition in kinds:
            execute(f"CREATE CONSTRAINT TRIGGER sp_generation_{table}{suffix} AFTER {operations} ON "
                    f"{table} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW {condition}"
                    f"EXECUTE FUNCTION {_PG_FUNCTION}('{name}', '{','.join(columns)}')")
        return
    for operation in ("INSERT", "UPDATE", "DELETE"):
        condition = f"WHEN {when} " if when and operation == "UPDATE" else ""
        # Not INSERT OR IGNORE: in a trigger fired by a foreign key's action (ON DELETE SET NULL
        # of event details) SQLite does not ignore the conflict.
        execute(f"CREATE TRIGGER sp_generation_{table}_{operation.lower()} AFTER {operation} ON {table} "
                f"{condition}BEGIN INSERT INTO generations (name, value) SELECT '{name}', 0 WHERE NOT EXISTS "
                f"(SELECT 1 FROM generations WHERE name = '{name}'); "
                f"UPDATE generations SET value = value + 1 WHERE name = '{name}'; END")


def _drop_triggers(execute, dialect, table):
    if dialect == "postgresql":
        execute(f"DROP TRIGGER IF EXISTS sp_generation_{table} ON {table}")
        execute(f"DROP TRIGGER IF EXISTS sp_generation_{table}_update ON {table}")
    else:
        for operation in ("insert", "update", "delete"):
            execute(f"DROP TRIGGER IF EXISTS sp_generation_{table}_{operation}")
