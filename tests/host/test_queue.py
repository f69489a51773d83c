"""The task queue: enqueued only after commit, run by real consumers in their own transaction."""
import os
import signal
import subprocess
import sys
from pathlib import Path

from storeplatform.testing import assert_error, queue_url, running_worker, wait_for

JOBS = "/api/store/v1/thirdparty/jobs"


def log_of(site):
    return log_in(site.registry)


def log_in(registry):
    import transaction

    from sp_thirdparty.tasks import recorded
    from storeplatform.db import get_tm_session

    tm = transaction.TransactionManager(explicit=True)
    with tm:
        return " ".join(recorded(get_tm_session(registry["db.session_factory"], tm, registry)))


def test_immediate_queue_runs_after_commit_only(make_site):
    site = make_site(**{"storeplatform.plugins": "thirdparty_tasks"})
    site.app.post_json(JOBS, {"value": "one"}, status=202)
    assert log_of(site) == "one"
    assert_error(site.app.post_json(JOBS, {"value": "two", "fail": True}, status=409), 409, "thirdparty_failed")
    assert log_of(site) == "one"  # the aborted request sent nothing


def test_real_consumer_runs_tasks_in_their_own_transaction(make_site, tmp_path):
    site = make_site(**{"storeplatform.plugins": "thirdparty_tasks", "huey.url": queue_url(tmp_path)})
    site.app.post_json(JOBS, {"value": "a"}, status=202)
    site.app.post_json(JOBS, {"value": "b", "fail": True}, status=409)
    assert log_of(site) == ""  # nothing runs without a consumer
    with running_worker(site.registry, workers=1):
        wait_for(lambda: log_of(site) == "a")
        site.app.post_json(JOBS, {"value": "c"}, status=202)
        wait_for(lambda: log_of(site) == "a c")
    assert len(site.registry["queue.huey"]) == 0


def test_embedded_consumer_starts_with_the_app_without_signal_handlers(site, database, tmp_path):
    # ``site`` empties the database; the app under test is made by the real factory.
    from storeplatform import main

    before = signal.getsignal(signal.SIGTERM)
    settings = database.settings(**{"storeplatform.plugins": "thirdparty_tasks", "huey.url": queue_url(tmp_path),
                                    "huey.embedded_consumer": "true"})
    app = main({}, **settings)
    consumer = app.registry["queue.consumer"]
    try:
        assert signal.getsignal(signal.SIGTERM) is before
        from webtest import TestApp

        TestApp(app).post_json(JOBS, {"value": "embedded"}, status=202)
        wait_for(lambda: log_in(app.registry) == "embedded")
    finally:
        consumer.stop(graceful=True)
        app.registry["db.engine"].dispose()
    assert consumer.stop_flag.is_set()


def test_periodic_tasks_are_registered(make_site, tmp_path):
    site = make_site(**{"huey.url": queue_url(tmp_path)})
    huey = site.registry["queue.huey"]
    periodic = [t.name for t in huey._registry.periodic_tasks]
    assert "storeplatform.purge_expired_sessions" in periodic


def test_purge_expired_sessions_task(site):
    from datetime import timedelta

    from sqlalchemy import func, select

    from storeplatform.db.types import utcnow
    from storeplatform.store.models import AuthSession

    uid = site.create_user("old", "editor")
    with site.session() as s:
        s.add(AuthSession(user_id=uid, token_hash="a" * 64, expires_at=utcnow() - timedelta(days=1)))
        s.add(AuthSession(user_id=uid, token_hash="b" * 64, expires_at=utcnow() + timedelta(days=1)))
    site.registry["queue.tasks"]["storeplatform.purge_expired_sessions"].call_local()
    with site.session() as s:
        assert s.execute(select(func.count()).select_from(AuthSession)).scalar() == 1


def test_standalone_worker_process(make_site, database, tmp_path):
    url = queue_url(tmp_path)
    site = make_site(**{"storeplatform.plugins": "thirdparty_tasks", "huey.url": url})
    ini = tmp_path / "worker.ini"
    ini.write_text(f"""[app:main]
use = egg:storeplatform
sqlalchemy.url = {database.url}
huey.url = {url}
huey.name = {site.registry.settings["huey.name"]}
storeplatform.plugins = thirdparty_tasks
storeplatform.secret = {database.secret}
""")
    env = {k: v for k, v in os.environ.items() if not k.startswith("STOREPLATFORM_")}
    tool = str(Path(sys.executable).with_name("storeplatform"))
    proc = subprocess.Popen([tool, "-c", str(ini), "worker", "--workers", "2"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        site.app.post_json(JOBS, {"value": "w1"}, status=202)
        wait_for(lambda: log_of(site) == "w1", timeout=30)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
