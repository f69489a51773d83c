"""The production topology for real: config/production.ini under gunicorn with several web
processes, and several standalone worker processes, on the run's database and queue
(PostgreSQL + Redis in the server run)."""
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from storeplatform.testing import cli_environ, queue_url, wait_for
from storeplatform.testing_served import bound_port

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def post(port, path, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=30) as res:
        return res.status, json.loads(res.read())


@pytest.mark.production_topology
def test_gunicorn_web_processes_and_worker_processes(make_site, database, tmp_path):
    url = queue_url(tmp_path)
    site = make_site(**{"storeplatform.plugins": "thirdparty_tasks", "huey.url": url})
    ini = tmp_path / "production.ini"
    text = (ROOT / "config" / "production.ini").read_text()
    text = text.replace("storeplatform.plugins = invoicing pricecalc events", "storeplatform.plugins = thirdparty_tasks")
    text = text.replace("[app:main]", f"[app:main]\nhuey.name = {site.settings['huey.name']}")
    ini.write_text(text)
    env = cli_environ()
    env.update(STOREPLATFORM_DATABASE_URL=database.url, STOREPLATFORM_HUEY_URL=url, STOREPLATFORM_SECRET=database.secret)
    procs = [subprocess.Popen([BIN / "pserve", ini, "http_port=0"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)]
    procs += [subprocess.Popen([BIN / "storeplatform", "-c", ini, "worker", "--workers", "2"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(2)]
    try:
        port = bound_port(procs[0])  # the one it bound itself (port 0), read back from its socket

        def up():
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/", timeout=2):
                    return True
            except OSError:
                assert procs[0].poll() is None, procs[0].stderr.read()
                return False

        wait_for(up, timeout=60, interval=0.2)
        values = [f"v{i}" for i in range(48)]
        # Concurrently, so that both web processes use the database at once: each must have
        # connections of its own, none inherited from the process they were forked from.
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda v: post(port, "/api/store/v1/thirdparty/jobs", {"value": v}), values))
        assert answers == [(202, {"queued": value}) for value in values]

        def recorded():
            from sp_thirdparty.tasks import recorded as recorded_values

            with site.session() as s:
                return recorded_values(s)

        # Each task ran exactly once, whichever worker process took it.
        wait_for(lambda: len(recorded()) >= len(values), timeout=60)
        time.sleep(0.5)
        assert sorted(recorded()) == sorted(values)
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=30)
    log = procs[0].stderr.read()
    assert "SIGSEGV" not in log and "Traceback" not in log and '"level": "ERROR"' not in log, log


def test_the_run_uses_the_servers_the_environment_names(database):
    """Guards the PostgreSQL + Redis run: every xdist worker must reach the named servers."""
    from storeplatform.testing import server_database_url, server_huey_url

    if os.environ.get("STOREPLATFORM_DATABASE_URL"):
        assert server_database_url() and database.url.startswith("postgresql")
    else:
        assert database.url.startswith("sqlite")
    if os.environ.get("STOREPLATFORM_HUEY_URL"):
        assert server_huey_url().startswith("redis")
