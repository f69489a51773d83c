"""A site that cannot serve stops at start-up with one line naming the setting or the command to
run, exit status 1, no traceback: under pserve (waitress and gunicorn) as in the CLI."""
import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pyramid.paster import get_app

from storeplatform.testing import cli_environ, run_cli

BIN = Path(sys.executable).parent
WAITRESS = "use = egg:storeplatform#waitress\nhost = 127.0.0.1\nport = 6543\n"
GUNICORN = "use = egg:storeplatform#gunicorn\nhost = 127.0.0.1\nport = 6543\nworkers = 2\n"


def write_ini(tmp_path, app_lines, server=WAITRESS):
    settings = {"sqlalchemy.url": f"sqlite:///{tmp_path}/db.sqlite", "huey.url": "memory://"}
    settings.update(line.split(" = ", 1) for line in app_lines.splitlines() if line.strip())
    ini = tmp_path / "site.ini"
    ini.write_text("[app:main]\nuse = egg:storeplatform\n" + "".join(f"{k} = {v}\n" for k, v in settings.items())
                   + "\n[server:main]\n" + server)
    return ini


def start(tmp_path, app_lines, server=WAITRESS):
    ini = write_ini(tmp_path, app_lines, server)
    proc = subprocess.run([BIN / "pserve", ini, "http_port=0"], capture_output=True, text=True,
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
def test_a_bad_setting_is_named(tmp_path, monkeypatch, lines, expected):
    """The line and the exit of the app factory (``storeplatform.main``) as pserve and gunicorn
    load it from the ini, in-process (the process as the shell sees it: the next test)."""
    for name in [name for name in os.environ if name.startswith("STOREPLATFORM_")]:
        monkeypatch.delenv(name)  # as cli_environ() for a subprocess: the ini's settings only
    ini = write_ini(tmp_path, lines)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as stopped:
        get_app(str(ini))
    lines = [line for line in err.getvalue().splitlines() if line.strip()]
    assert stopped.value.code == 1 and len(lines) == 1 and "Traceback" not in err.getvalue(), err.getvalue()
    assert lines[0].startswith(expected)


def test_a_bad_setting_stops_pserve_with_one_line_and_exit_status_1(tmp_path):
    proc, _ = start(tmp_path, "huey.embedded_consumer = yess")
    assert one_line(proc) == "storeplatform: error: huey.embedded_consumer must be true or false, not 'yess'"


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
