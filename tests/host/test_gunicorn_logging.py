"""The site under gunicorn (``egg:storeplatform#gunicorn``): gunicorn's own access line is built
only where something receives it."""
import json
import signal
import subprocess
import sys
import textwrap
import urllib.request
from pathlib import Path

from storeplatform.testing import cli_environ, free_port, wait_for

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


def test_an_access_log_named_in_the_server_section_gets_every_line(tmp_path):
    access = tmp_path / "gunicorn-access.log"
    ini = _ini(tmp_path, f"accesslog = {access}\n")
    env = cli_environ()
    subprocess.run([BIN / "storeplatform", "-c", ini, "migrate"], env=env, check=True, capture_output=True,
                   timeout=120)
    port = free_port()
    server = subprocess.Popen([BIN / "pserve", ini, f"http_port={port}"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    err = ""
    try:
        def answered():
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/", timeout=5) as res:
                    return json.loads(res.read())
            except OSError:
                assert server.poll() is None, server.stderr.read()
                return None

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
    from storeplatform.gunicorn_logging import SiteLogger

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
