"""Each web thread keeps one database connection between requests, for its reads and its
writes (no pool check-out per request), gives it back when it ends or the site closes, and
never carries a transaction from one request into the next."""
import gc
import threading

from sqlalchemy import event
from webtest import TestApp


def checkouts(site):
    seen = []
    event.listen(site.engine, "checkout", lambda *args: seen.append(1))
    return seen


def test_a_thread_checks_out_once_for_many_requests(site):
    site.create_user("admin", "administrator")
    headers = site.headers_for("admin")
    # The password's first use is recorded by a task (on memory://, run here after the commit,
    # on a connection of its own, as a worker would); the web thread's requests come after it.
    site.app.get("/api/store/v1/users/me", headers=headers, status=200)
    seen = checkouts(site)
    for _ in range(5):
        site.app.get("/api/store/v1/users/me", headers=headers, status=200)
        site.app.put_json("/api/store/v1/settings/general", {"site.timezone": "UTC"}, headers=headers, status=200)
    # One connection for the reads and the writes: the one the first request checked out.
    assert len(seen) == 0
    assert site.engine.pool.checkedout() == 1


def test_a_thread_that_ends_gives_its_connections_back(site):
    site.create_user("admin", "administrator")
    headers = site.headers_for("admin")
    before = site.engine.pool.checkedout()
    results = []

    def requests():
        app = TestApp(site.wsgi, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
        results.append(app.get("/api/store/v1/users/me", headers=headers).status_int)
        results.append(app.put_json("/api/store/v1/settings/general", {"site.timezone": "UTC"}, headers=headers).status_int)
        results.append(site.engine.pool.checkedout() - before)

    threads = [threading.Thread(target=requests) for _ in range(3)]
    for thread in threads:
        thread.start()
        thread.join(60)
    assert results == [200, 200, 1] * 3
    gc.collect()
    assert site.engine.pool.checkedout() == before


def test_no_transaction_outlives_its_request(site):
    """A write that fails leaves the kept connection clean: the next request commits its own."""
    site.create_user("admin", "administrator")
    headers = site.headers_for("admin")
    site.app.put_json("/api/store/v1/settings/general", {"site.timezone": "Europe/Paris", "nope": 1},
                      headers=headers, status=400)
    values = {item["id"]: item["value"] for item in
              site.app.get("/api/store/v1/settings/general", headers=headers).json}
    assert values["site.timezone"] != "Europe/Paris"  # nothing of the refused request was kept
    site.app.put_json("/api/store/v1/settings/general", {"site.timezone": "Europe/Paris"}, headers=headers,
                      status=200)
    values = {item["id"]: item["value"] for item in
              site.app.get("/api/store/v1/settings/general", headers=headers).json}
    assert values["site.timezone"] == "Europe/Paris"


def test_closing_the_site_gives_every_kept_connection_back(make_site):
    site = make_site()
    site.create_user("admin", "administrator")
    site.app.get("/api/store/v1/users/me", headers=site.headers_for("admin"), status=200)
    assert site.engine.pool.checkedout() >= 1
    site.close()
    assert site.engine.pool.checkedout() == 0
