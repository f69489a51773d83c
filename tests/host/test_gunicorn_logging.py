"""The site under gunicorn (``egg:storeplatform#gunicorn``): gunicorn's own lines go through the
ini's logging, and its access line is built only where something receives it."""
import json
import signal
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from storeplatform.testing import TestDatabase as Database, cli_environ, free_port, queue_url, run_cli, wait_for

pytestmark = pytest.mark.production_topology

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

# production.ini's logging: gunicorn takes it from the ini and gives gunicorn.access no handler.
_LOGGING = (ROOT / "config" / "production.ini").read_text().split("[loggers]", 1)[1]


def _ini(tmp_path, server_lines):
    """development.ini's site (SQLite, embedded worker) under gunicorn with production's logging."""
    app = (ROOT / "development.ini").read_text().split("[server:main]", 1)[0]
    app = app.replace("huey.embedded_consumer = true", "huey.embedded_consumer = false")
    ini = tmp_path / "site.ini"
    ini.write_text(app + "[server:main]\nuse = egg:storeplatform#gunicorn\nhost = 127.0.0.1\nworkers = 1\n"
                   + server_lines + "\n[loggers]" + _LOGGING)
    return ini


def _migrate(ini, env):
    """In-process (cli.main): the server is the process these tests are about."""
    proc = run_cli("-c", str(ini), "migrate", environ=env)
    assert proc.returncode == 0, proc.stderr


def _api_root(server, port):
    """``GET /api/`` of the gunicorn ``server`` (a Popen) on ``port``: its JSON, or None while it
    does not answer yet (a server that exited fails with its error output)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/", timeout=5) as res:
            return json.loads(res.read())
    except OSError:
        assert server.poll() is None, server.stderr.read()
        return None


def test_an_access_log_named_in_the_server_section_gets_every_line(tmp_path):
    access = tmp_path / "gunicorn-access.log"
    ini = _ini(tmp_path, f"accesslog = {access}\n")
    env = cli_environ()
    _migrate(ini, env)
    port = free_port()
    server = subprocess.Popen([BIN / "pserve", ini, f"http_port={port}"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    err = ""
    try:
        def answered():
            return _api_root(server, port)

        try:
            wait_for(answered, timeout=60, interval=0.2)
        except AssertionError:
            server.kill()
            raise AssertionError(f"gunicorn did not answer: {server.communicate(timeout=30)[1]}")
        for _ in range(2):
            answered()

        def lines():
            return [x for x in access.read_text().splitlines() if '"GET /api/ HTTP/1.1" 200' in x] \
                if access.exists() else []

        # gunicorn writes each line after its answer has gone.
        wait_for(lambda: len(lines()) >= 3, timeout=10)
        assert len(lines()) == 3
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            err = server.communicate(timeout=30)[1]
    assert "Traceback" not in err, err


_PROBE = textwrap.dedent("""
    import sys
    from gunicorn.config import Config
    from gunicorn.glogging import Logger
    from storeplatform.core.gunicorn_logging import SiteLogger

    class Unreadable:
        def __getattr__(self, name):
            raise AssertionError("the access line was built")

    cfg = Config()
    cfg.set("logconfig", sys.argv[1])  # as gunicorn's PasteDeploy runner sets it
    if len(sys.argv) > 2:
        cfg.set("accesslog", sys.argv[2])
    for cls in (Logger, SiteLogger):
        try:
            cls(cfg).access(Unreadable(), Unreadable(), {}, Unreadable())
            print(cls.__name__, "built nothing")
        except AssertionError:
            print(cls.__name__, "built the line")
""")


def _probe(*args):
    proc = subprocess.run([sys.executable, "-c", _PROBE, *map(str, args)], capture_output=True, text=True,
                          timeout=60, env=cli_environ())
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split("\n")[:2]


def test_no_access_line_is_built_for_an_access_log_without_a_handler(tmp_path):
    ini = _ini(tmp_path, "")
    # gunicorn's own logger builds it and drops it; the site's builds none.
    assert _probe(ini) == ["Logger built the line", "SiteLogger built nothing"]
    # Given somewhere to go, the line is built by both.
    assert _probe(ini, tmp_path / "access.log") == ["Logger built the line", "SiteLogger built the line"]


def test_every_line_of_production_ini_under_gunicorn_is_one_json_object(tmp_path):
    """``pserve -q config/production.ini`` (the README's command: without ``-q`` pserve prints
    "Starting server in PID ..." itself, before any of the site's code runs): gunicorn's own
    lines (start, listening, workers booting and exiting) are JSON like the site's records."""
    database = Database(tmp_path)
    env = cli_environ()
    env.update(STOREPLATFORM_DATABASE_URL=database.url, STOREPLATFORM_HUEY_URL=queue_url(tmp_path),
               STOREPLATFORM_SECRET=database.secret)
    ini = tmp_path / "production.ini"
    ini.write_text((ROOT / "config" / "production.ini").read_text()
                   .replace("[app:main]\n", f"[app:main]\nhuey.name = sp-json-{uuid.uuid4().hex[:8]}\n", 1))
    port = free_port()
    server = None
    try:
        _migrate(ini, env)
        server = subprocess.Popen([BIN / "pserve", "-q", ini, f"http_port={port}"], env=env, cwd=tmp_path,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

        def status(path):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as res:
                    return res.status
            except urllib.error.HTTPError as exc:
                return exc.code
            except OSError:
                assert server.poll() is None, server.stdout.read()
                return None

        wait_for(lambda: status("/readyz") == 200, timeout=90, interval=0.2)
        assert [status(path) for path in ("/api/", "/healthz", "/api/nothing")] == [200, 200, 404]
    finally:
        if server is not None:
            server.send_signal(signal.SIGTERM)
            try:
                output = server.communicate(timeout=60)[0]
            except subprocess.TimeoutExpired:
                server.kill()
                output = server.communicate(timeout=30)[0]
        database.drop()
    assert server.returncode == 0, output
    records = []
    for line in filter(str.strip, output.splitlines()):
        try:
            record = json.loads(line)
        except ValueError:
            raise AssertionError(f"not JSON: {line!r}\n{output}")
        assert isinstance(record, dict) and {"time", "level", "logger", "message"} <= set(record), line
        records.append(record)
    gunicorn = " | ".join(r["message"] for r in records if r["logger"] == "gunicorn.error")
    for said in ("Starting gunicorn", "Listening at: http://127.0.0.1:", "Booting worker with pid",
                 "Handling signal: term", "Worker exiting", "Shutting down: Master"):
        assert said in gunicorn, (said, output)
    answered = [(r["path"], r["status"]) for r in records if r["logger"] == "storeplatform.access"]
    assert [a for a in answered if a[0] != "/readyz"] == [("/api/", 200), ("/healthz", 200), ("/api/nothing", 404)]
