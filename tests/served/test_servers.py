"""The real servers as the README starts them, driven over sockets by concurrent clients on
every namespace (store/v1, pricecalc/v1, invoicing/v1, events/v1, and OAuth where the ini enables
it), on the run's backend: SQLite + Huey on SQLite by default, PostgreSQL + Redis when the
environment names them (.ci/run: development.ini on SQLite, the production.ini runs on
PostgreSQL + Redis, each on the backends it is for; markers embedded_defaults and
production_topology). Each configuration gets at least twice as many clients as it has
server threads. Nothing may fail: every answer has the status chosen for its request, none
takes longer than 5 s, no traceback is logged, and afterwards every row a client created is
read back and the list totals equal what was created (helpers.py). Under development.ini the
events created and updated are also delivered to a webhook receiver on 127.0.0.1, each exactly
once and logged ``delivered`` (issue #26). Each run leaves its report
(failures, requests per kind with errors and durations, timings) and the processes' output in
its tmp_path: report.txt, server.log, worker.log."""
import pytest

from .helpers import DEVELOPMENT_INI, PRODUCTION_INI, serve_and_drive


@pytest.mark.embedded_defaults
def test_pserve_development_ini_waitress_with_embedded_worker(tmp_path):
    # waitress, threads = 8, the embedded consumer's 2 threads, oauth enabled: 16 clients.
    # Webhooks on event.created and event.updated to a receiver on 127.0.0.1 (development.ini
    # sets events.webhooks.allow_private_targets = true): every delivery made under the load
    # must reach it once and be recorded delivered (issue #26: pending and sending ones stayed).
    found, text = serve_and_drive(tmp_path, "pserve development.ini (waitress, 8 threads)", DEVELOPMENT_INI, [],
                                  clients=16, oauth=True, webhooks=True)
    print(text.split("\n\n--- last lines")[0])  # the numbers (pytest -s, -rP); the logs' tails on failure
    assert not found, text


# The production.ini runs have no webhooks: config/production.ini refuses private targets
# (events.webhooks.allow_private_targets = false, trusted_networks empty), so a webhook to a
# receiver on 127.0.0.1 is refused there; the development.ini run covers deliveries under load.
@pytest.mark.production_topology
def test_pserve_production_ini_gunicorn_sync_workers_and_a_worker_process(tmp_path):
    # gunicorn, 4 sync workers (one request at a time each), `storeplatform worker` beside: 8 clients.
    found, text = serve_and_drive(tmp_path, "pserve -q config/production.ini (gunicorn sync, 4 workers)",
                                  PRODUCTION_INI, ["-q"], clients=8, worker=True)
    print(text.split("\n\n--- last lines")[0])  # the numbers (pytest -s, -rP); the logs' tails on failure
    assert not found, text


@pytest.mark.production_topology
def test_pserve_production_ini_gunicorn_gthread_workers_and_a_worker_process(tmp_path):
    # [server:gthread]: 2 gthread workers x 8 threads = 16 server threads: 32 clients.
    found, text = serve_and_drive(tmp_path, "pserve -q --server-name gthread config/production.ini (2 x 8 threads)",
                                  PRODUCTION_INI, ["-q", "--server-name", "gthread"], clients=32, worker=True)
    print(text.split("\n\n--- last lines")[0])  # the numbers (pytest -s, -rP); the logs' tails on failure
    assert not found, text
