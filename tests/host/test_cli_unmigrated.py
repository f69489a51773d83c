"""The command line on a database that was never migrated, or only in part (issue #26): every
command but ``migrate`` answers one line naming the ``migrate`` command to run, exit status 1,
instead of the first missing table's database error; ``migrate`` then brings the schema there."""
import pytest

from storeplatform import testing

PLUGINS = "events invoicing pricecalc"
# One check in the command line's entry point (cli.main, run in-process) covers every command but
# migrate: a host command that writes, one that reads, the worker and a plugin's command stand
# for the rest (the worker's queue is memory://: past the check it would stop with an error of
# its own, never run).
COMMANDS = [
    ("user", "create", "alice", "--role", "customer"),
    ("option", "get", "store.name"),
    ("worker", "--workers", "1"),
    ("events", "category", "create", "Concerts"),
]


@pytest.fixture
def empty_database(tmp_path):
    """A fresh database with no table at all: a new SQLite file, or a new PostgreSQL database
    in the PostgreSQL pass."""
    db = testing.TestDatabase(tmp_path)
    yield db
    db.drop()


def _ini(tmp_path, database, plugins, name="site.ini"):
    ini = tmp_path / name
    ini.write_text(f"""[app:main]
use = egg:storeplatform
sqlalchemy.url = {database.url}
huey.url = memory://
storeplatform.plugins = {plugins}
storeplatform.secret = {database.secret}
""")
    return ini


def _run(ini, *args):
    return testing.run_cli("-c", str(ini), *args)


def _says_to_migrate(proc, ini):
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    line = lines[0]
    assert line.startswith("storeplatform: error: the database schema is not at head (missing "), line
    assert line.endswith(f": run storeplatform -c {ini} migrate"), line
    assert "OperationalError" not in line and "ProgrammingError" not in line and "no such table" not in line
    return line


def test_every_command_on_a_never_migrated_database_says_to_migrate(tmp_path, empty_database):
    ini = _ini(tmp_path, empty_database, PLUGINS)
    for command in COMMANDS:
        _says_to_migrate(_run(ini, *command), ini)
    migrated = _run(ini, "migrate")
    assert migrated.returncode == 0 and migrated.stdout.strip() == "database is up to date", migrated.stderr
    assert _run(ini, "option", "set", "store.name", "Shop").returncode == 0
    assert _run(ini, "option", "get", "store.name").stdout.strip() == "Shop"


def test_a_plugin_enabled_after_the_last_migrate_names_its_missing_revisions(tmp_path, empty_database):
    host_only = _ini(tmp_path, empty_database, "", "host.ini")
    assert _run(host_only, "migrate").returncode == 0
    assert _run(host_only, "option", "get", "store.name").returncode == 0
    with_events = _ini(tmp_path, empty_database, "events", "events.ini")
    line = _says_to_migrate(_run(with_events, "events", "webhooks", "list"), with_events)
    assert line.split("(missing ", 1)[1].split(")")[0].startswith("evt")  # the events plugin's chain
    assert _run(with_events, "migrate").returncode == 0
    assert _run(with_events, "events", "webhooks", "list").returncode == 0
