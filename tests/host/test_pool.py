"""The connection pool holds what the process runs: sized from its threads, a size the owner set
too small is refused at start-up, and a request that gets no connection answers 503 at once
instead of waiting half a minute. (Served through the real servers: tests/served.)"""
import threading

import pytest
from sqlalchemy import text
from webtest import TestApp

from storeplatform import make_config
from storeplatform.core.db.pool import PoolTooSmall, connections_needed, fit_pool
from storeplatform.core.settings import SettingsError
from storeplatform.testing import assert_error, server_database_url


def in_thread(function):
    """``function()``'s result, called on a thread of its own (a server thread of its own: it
    keeps a connection of its own)."""
    out = []
    thread = threading.Thread(target=lambda: out.append(function()))
    thread.start()
    thread.join(60)
    return out[0]


def test_the_pool_is_sized_from_the_threads_it_serves(make_site):
    site = make_site()
    assert fit_pool(site.registry, web_threads=8, task_threads=2) == connections_needed(8, 2) == 22
    assert site.engine.pool.size() == 22
    assert fit_pool(site.registry, web_threads=1, task_threads=0) == 4
    assert site.engine.pool.size() == 4


def test_every_thread_of_a_fitted_pool_gets_its_connections(make_site):
    """Each server thread keeps one connection and opens one transaction of its own beside it
    (a storefront download counts its attempt so): with every thread doing both at once, no
    thread waits."""
    site = make_site(**{"sqlalchemy.pool_timeout": "0.5"})
    threads = 6
    fit_pool(site.registry, web_threads=threads, task_threads=0)
    site.create_user("admin", "administrator")
    headers = site.headers_for("admin")
    barrier = threading.Barrier(threads)
    statuses = []

    def serve():
        app = TestApp(site.wsgi, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
        statuses.append(app.get("/api/store/v1/users/me", headers=headers, expect_errors=True).status_int)
        with site.engine.connect():  # the transaction of its own, while the kept one is held
            barrier.wait(10)  # every thread holds both at once
        statuses.append(app.post_json("/api/store/v1/products", {"name": "p", "regular_price": "1.00"},
                                      headers=headers, expect_errors=True).status_int)

    workers = [threading.Thread(target=serve) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert sorted(statuses) == [200] * threads + [201] * threads


def test_a_request_that_gets_no_connection_answers_503_with_retry_after(make_site):
    site = make_site(**{"sqlalchemy.pool_size": "4", "sqlalchemy.pool_timeout": "0.3"})
    site.create_user("admin", "administrator", password="demo-password")
    headers = site.headers_for("admin")
    browser = TestApp(site.wsgi)

    def log_in():
        form = browser.get("/admin/login").forms["login-form"]
        form["login"], form["password"] = "admin", "demo-password"
        return form.submit().status_int

    assert in_thread(log_in) == 303  # that thread's connection went back when it ended
    held = [site.engine.connect() for _ in range(4)]  # every connection the pool may open
    try:
        res = in_thread(lambda: TestApp(site.wsgi).get("/api/store/v1/users/me", headers=headers,
                                                        expect_errors=True))
        body = assert_error(res, 503, "rest_unavailable")
        assert res.headers["Retry-After"] == "1"
        assert "Traceback" not in res.text and "QueuePool" not in body["message"]
        page = in_thread(lambda: browser.get("/admin/", expect_errors=True))
        assert page.status_int == 503 and page.content_type == "text/html"
        assert page.headers["Retry-After"] == "1"
    finally:
        for connection in held:
            connection.close()
    res = in_thread(lambda: TestApp(site.wsgi).get("/api/store/v1/users/me", headers=headers))
    assert res.status_int == 200


def test_a_pool_the_owner_set_too_small_for_the_threads_is_refused(make_site):
    site = make_site(**{"sqlalchemy.pool_size": "10"})
    with pytest.raises(PoolTooSmall) as raised:
        fit_pool(site.registry, web_threads=8, task_threads=2)
    message = str(raised.value)
    assert "\n" not in message
    assert "sqlalchemy.pool_size is 10" in message and "at least 22" in message
    assert fit_pool(site.registry, web_threads=4, task_threads=0) == 10  # the owner's size is kept
    assert site.engine.pool.size() == 10


@pytest.mark.parametrize("key, value", [("sqlalchemy.pool_size", "0"), ("sqlalchemy.pool_size", "many"),
                                        ("sqlalchemy.pool_size", "²"), ("sqlalchemy.pool_timeout", "-1"),
                                        ("sqlalchemy.pool_timeout", "soon"), ("sqlalchemy.pool_timeout", "nan")])
def test_a_bad_pool_setting_is_named(database, key, value):
    with pytest.raises(SettingsError) as raised:
        make_config(environ={}, **database.settings(**{key: value}))
    assert str(raised.value).startswith(key)


def test_reads_and_writes_of_a_thread_share_its_one_connection_and_leave_no_transaction(make_site):
    """On a database server the thread's connection autocommits for a read and runs a
    transaction for a write; whichever came before, nothing stays open between requests and
    every write is committed."""
    site = make_site()
    site.create_user("admin", "administrator")
    headers = site.headers_for("admin")
    server = server_database_url() is not None
    created = []
    for round_ in range(3):
        site.app.get("/api/store/v1/users/me", headers=headers, status=200)
        created.append(site.app.post_json("/api/store/v1/products", {"name": f"p{round_}", "regular_price": "2.50"},
                                          headers=headers, status=201).json["id"])
        site.app.get(f"/api/store/v1/products/{created[-1]}", headers=headers, status=200)
        if server:
            with site.engine.connect() as other:
                idle_in_transaction = other.execute(text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND state LIKE 'idle in transaction%'")).scalar()
            assert idle_in_transaction == 0
    with site.session() as session:  # committed: another connection sees them
        found = session.execute(text("SELECT count(*) FROM products")).scalar()
    assert found == 3
    assert site.engine.pool.checkedout() == 1
    site.registry["db.thread_connections"].close()
    with site.engine.connect() as connection:  # the pool's next borrower gets transactions
        assert getattr(connection.connection.dbapi_connection, "autocommit", False) is not True


def test_a_worker_with_more_threads_than_the_owners_pool_stops_with_one_line(database, tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from storeplatform.testing import cli_environ

    ini = tmp_path / "worker.ini"
    ini.write_text(f"""[app:main]
use = egg:storeplatform
sqlalchemy.url = {database.url}
sqlalchemy.pool_size = 6
huey.url = sqlite:///{tmp_path}/huey.sqlite
storeplatform.secret = {database.secret}
""")
    tool = str(Path(sys.executable).with_name("storeplatform"))
    proc = subprocess.run([tool, "-c", str(ini), "worker", "--workers", "8"], capture_output=True, text=True,
                          timeout=60, env=cli_environ())
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "storeplatform: error: sqlalchemy.pool_size is 6, but this process needs 18 connections (0 server threads "
        "and 8 task threads, 2 each, and 2 more): set sqlalchemy.pool_size to at least 18 (or auto), or run fewer "
        "threads"]


@pytest.mark.parametrize("shipped, server_name, size, needed", [
    ("development.ini", "main", 21, 22),           # waitress: 8 threads, the embedded consumer's 2
    ("config/production.ini", "main", 3, 4),       # gunicorn sync workers: one thread each
    ("config/production.ini", "gthread", 17, 18),  # gunicorn gthread workers: 8 threads each
])
def test_a_server_whose_threads_need_more_than_the_owners_pool_stops_with_one_line(database, tmp_path, shipped,
                                                                                  server_name, size, needed):
    """As the README starts them: the shipped server sections, with the owner's pool size one short."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    from storeplatform.testing import cli_environ, free_port, queue_url

    root = Path(__file__).resolve().parents[2]
    text = (root / shipped).read_text()
    text = re.sub(r"^\[app:main\]\n", f"[app:main]\nsqlalchemy.pool_size = {size}\n", text, count=1, flags=re.M)
    ini = tmp_path / "site.ini"
    ini.write_text(text)
    env = {**cli_environ(), "STOREPLATFORM_DATABASE_URL": database.url, "STOREPLATFORM_HUEY_URL": queue_url(tmp_path),
           "STOREPLATFORM_SECRET": database.secret}
    pserve = str(Path(sys.executable).with_name("pserve"))
    proc = subprocess.run([pserve, "-q", "--server-name", server_name, str(ini), f"http_port={free_port()}"],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    errors = [line for line in proc.stderr.splitlines() if "error" in line.lower()]
    assert errors == [f"storeplatform: error: sqlalchemy.pool_size is {size}, but this process needs {needed} "
                      f"connections ({errors[0].split('(')[1].split(')')[0]}): set sqlalchemy.pool_size to at least "
                      f"{needed} (or auto), or run fewer threads"], proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
