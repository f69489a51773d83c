"""The suite's kept sites (storeplatform.testing_kept_sites): a test gets the configured app a
test before it gave back, never that test's state, and an app a test changed is not kept."""
from sqlalchemy import event, text

from storeplatform.testing import Site, queue_url

PLUGINS = {"storeplatform.plugins": "pricecalc"}


def test_a_closed_site_is_the_next_ones_app_without_its_state(database, tmp_path):
    settings = {**PLUGINS, "huey.url": queue_url(tmp_path)}  # a queue that keeps its tasks
    first = Site(database.settings(**settings))
    database.clean(first.engine)  # as make_site does: what the tests before left is gone
    first.app.get("/api/store/v1/products", headers=first.headers_for("administrator"))
    first.registry["made.while.serving"] = object()
    first.settings["storeplatform.cache_strict"] = False
    first.enqueue("storeplatform.purge_expired_sessions")
    assert first.queued() == 2  # with the task that records the password's first use
    first.close()
    database.clean(first.engine)

    second = Site(database.settings(**settings))
    try:
        assert second.wsgi is first.wsgi  # the configuration was not built again
        assert "made.while.serving" not in second.registry and "cache.process" not in second.registry
        assert second.settings["storeplatform.cache_strict"] is True
        assert second.queued() == 0
        with second.engine.connect() as conn:  # the connections were given back; the engine serves
            assert conn.execute(text("SELECT count(*) FROM users")).scalar() == 0
        # The new site's user is the new one (no identity or answer of the first was kept).
        assert second.app.get("/api/store/v1/users/me", headers=second.headers_for("administrator")).json[
            "username"] == "administrator"
    finally:
        second.close()


def test_two_sites_at_once_get_two_apps_and_a_changed_app_is_not_kept(database):
    one, two = Site(database.settings(**PLUGINS)), Site(database.settings(**PLUGINS))
    assert one.wsgi is not two.wsgi
    event.listen(one.engine, "before_cursor_execute", lambda *args: None)
    one.close()
    two.close()
    three = Site(database.settings(**PLUGINS))
    try:
        assert three.wsgi is two.wsgi  # the changed one (a listener on its engine) was dropped
    finally:
        three.close()


def test_the_keeping_can_be_turned_off(database, monkeypatch):
    monkeypatch.setenv("SP_TEST_FRESH_SITES", "1")
    first = Site(database.settings(**PLUGINS))
    first.close()
    second = Site(database.settings(**PLUGINS))
    second.close()
    assert second.wsgi is not first.wsgi
