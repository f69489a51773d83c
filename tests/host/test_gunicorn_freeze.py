"""The site under gunicorn: what the master made before it forks is out of its workers' garbage
collection (``gc.freeze`` before each fork), and an owner's own ``pre_fork`` hook still runs."""
import signal
import subprocess
import textwrap

import pytest

from storeplatform.testing import cli_environ, free_port, wait_for

from .test_gunicorn_logging import BIN, _api_root, _ini, _migrate

pytestmark = pytest.mark.production_topology

_HOOKS = """
import gc
import os

OUT = {out!r}


def pre_fork(server, worker):
    with open(os.path.join(OUT, "pre_fork"), "a") as f:
        f.write(f"{{gc.get_freeze_count()}}\\n")


def post_fork(server, worker):
    # Written whole, then named: the test reads it as soon as the name appears.
    written = os.path.join(OUT, f"writing.{{os.getpid()}}")
    with open(written, "w") as f:
        f.write(f"{{gc.get_freeze_count()}}\\n")
    os.replace(written, os.path.join(OUT, f"post_fork.{{os.getpid()}}"))
"""


def test_workers_start_with_the_masters_objects_frozen_after_the_owners_pre_fork(tmp_path):
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "owner_hooks.py").write_text(textwrap.dedent(_HOOKS.format(out=str(tmp_path))))
    ini = _ini(tmp_path, "workers = 2\npre_fork = owner_hooks.pre_fork\npost_fork = owner_hooks.post_fork\n")
    ini.write_text(ini.read_text().replace("workers = 1\n", ""))
    env = {**cli_environ(), "PYTHONPATH": str(hooks)}
    _migrate(ini, env)
    port = free_port()
    server = subprocess.Popen([BIN / "pserve", ini, f"http_port={port}"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        wait_for(lambda: _api_root(server, port), timeout=60, interval=0.2)
        wait_for(lambda: len(list(tmp_path.glob("post_fork.*"))) == 2, timeout=30)
        # The owner's hook ran once per worker, the first time before anything was frozen.
        counts = (tmp_path / "pre_fork").read_text().split()
        assert len(counts) == 2 and counts[0] == "0", counts
        # Each worker began with the app the master made out of the collector's sight.
        frozen = [int(p.read_text()) for p in tmp_path.glob("post_fork.*")]
        assert min(frozen) > 50_000, frozen
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            err = server.communicate(timeout=30)[1]
            assert "Traceback" not in err, err
