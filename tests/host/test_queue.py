"""The task queue: enqueued only after commit, run by real consumers in their own transaction."""
import signal
import subprocess
import sys
from pathlib import Path

from sp_thirdparty.tasks import recorded
from storeplatform.testing import assert_error, cli_environ, queue_url, wait_for

JOBS = "/api/store/v1/thirdparty/jobs"


def log_of(site):
    with site.session() as s:
        return " ".join(recorded(s))


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
    with site.worker(workers=1):
        wait_for(lambda: log_of(site) == "a")
        site.app.post_json(JOBS, {"value": "c"}, status=202)
        wait_for(lambda: log_of(site) == "a c")
    assert site.queued() == 0


def test_embedded_consumer_starts_with_the_app_without_signal_handlers(make_site, tmp_path):
    # The Site builds its app with the factory's make_app, which starts the embedded consumer.
    before = signal.getsignal(signal.SIGTERM)
    site = make_site(**{"storeplatform.plugins": "thirdparty_tasks", "huey.url": queue_url(tmp_path),
                        "huey.embedded_consumer": "true"})
    consumer = site.consumer
    try:
        assert signal.getsignal(signal.SIGTERM) is before
        site.app.post_json(JOBS, {"value": "embedded"}, status=202)
        wait_for(lambda: log_of(site) == "embedded")
    finally:
        consumer.stop(graceful=True)
    assert consumer.stop_flag.is_set()


def test_periodic_tasks_are_registered(make_site, tmp_path):
    site = make_site(**{"huey.url": queue_url(tmp_path)})
    assert "storeplatform.purge_expired_sessions" in site.periodic_task_names()


def test_purge_expired_sessions_task(site):
    from datetime import timedelta

    from sqlalchemy import func, select

    from storeplatform.core.db.types import utcnow
    from storeplatform.components.shop.models import AuthSession

    uid = site.create_user("old", "editor")
    with site.session() as s:
        s.add(AuthSession(user_id=uid, token_hash="a" * 64, expires_at=utcnow() - timedelta(days=1)))
        s.add(AuthSession(user_id=uid, token_hash="b" * 64, expires_at=utcnow() + timedelta(days=1)))
    site.run_task("storeplatform.purge_expired_sessions")
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
huey.name = {site.settings["huey.name"]}
storeplatform.plugins = thirdparty_tasks
storeplatform.secret = {database.secret}
""")
    env = cli_environ()
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
