"""A site that cannot serve stops at start-up with one line naming the setting or the command to
run, exit status 1, no traceback: under pserve (waitress and gunicorn) as in the CLI."""
import subprocess
import sys
from pathlib import Path

import pytest

from storeplatform.testing import cli_environ, free_port, run_cli

BIN = Path(sys.executable).parent
WAITRESS = "use = egg:storeplatform#waitress\nhost = 127.0.0.1\nport = 6543\n"
GUNICORN = "use = egg:storeplatform#gunicorn\nhost = 127.0.0.1\nport = 6543\nworkers = 2\n"


def start(tmp_path, app_lines, server=WAITRESS):
    settings = {"sqlalchemy.url": f"sqlite:///{tmp_path}/db.sqlite", "huey.url": "memory://"}
    settings.update(line.split(" = ", 1) for line in app_lines.splitlines() if line.strip())
    ini = tmp_path / "site.ini"
    ini.write_text("[app:main]\nuse = egg:storeplatform\n" + "".join(f"{k} = {v}\n" for k, v in settings.items())
                   + "\n[server:main]\n" + server)
    proc = subprocess.run([BIN / "pserve", ini, f"http_port={free_port()}"], capture_output=True, text=True,
                          timeout=60, env=cli_environ())
    return proc, ini


def one_line(proc):
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


@pytest.mark.parametrize("lines,expected", [
    ("sqlalchemy.url = postgersql://postgres@127.0.0.1/x",
     "storeplatform: error: sqlalchemy.url must start with sqlite:/// or postgresql://, not "
     "'postgersql://postgres@127.0.0.1/x'"),
    ("huey.url = reddis://127.0.0.1:6379/0",
     "storeplatform: error: huey.url must start with sqlite:///, redis:// or memory://, not 'reddis://127.0.0.1:6379/0'"),
    ("huey.embedded_consumer = yess", "storeplatform: error: huey.embedded_consumer must be true or false, not 'yess'"),
    ("huey.workers = two", "storeplatform: error: huey.workers must be a whole number of at least 1, not 'two'"),
    ("storeplatform.plugins = nosuch", "storeplatform: error: unknown plugin 'nosuch' in storeplatform.plugins"),
])
def test_a_bad_setting_is_named(tmp_path, lines, expected):
    proc, _ = start(tmp_path, lines)
    assert one_line(proc).startswith(expected)


def test_a_database_never_migrated_names_the_command(tmp_path):
    proc, _ = start(tmp_path, f"sqlalchemy.url = sqlite:///{tmp_path}/db.sqlite\nhuey.url = memory://\n"
                              "storeplatform.plugins = events")
    line = one_line(proc)
    assert line.startswith("storeplatform: error: the database schema is not at head (missing ")
    assert line.endswith("run storeplatform -c INI migrate")


def test_an_unreachable_database_and_queue_under_gunicorn(tmp_path):
    proc, _ = start(tmp_path, "sqlalchemy.url = postgresql://postgres@127.0.0.1:1/nothing\n"
                              "storeplatform.secret = " + "s" * 32 + "\nhuey.url = memory://", server=GUNICORN)
    assert one_line(proc).startswith("storeplatform: error: sqlalchemy.url: the database is unreachable: "
                                     "OperationalError: ")
    proc, _ = start(tmp_path, f"sqlalchemy.url = sqlite:///{tmp_path}/db.sqlite\nhuey.url = redis://127.0.0.1:1/0\n"
                              "huey.embedded_consumer = false", server=GUNICORN)
    line = one_line(proc)
    assert line.startswith("storeplatform: error: ")  # the schema comes first: never migrated
    assert run_cli("-c", str(tmp_path / "site.ini"), "migrate").returncode == 0  # in-process (cli.main)
    proc, _ = start(tmp_path, f"sqlalchemy.url = sqlite:///{tmp_path}/db.sqlite\nhuey.url = redis://127.0.0.1:1/0\n"
                              "huey.embedded_consumer = false", server=GUNICORN)
    assert one_line(proc).startswith("storeplatform: error: huey.url: the task queue is unreachable: ConnectionError: ")
