"""Pooled connections: a connection that rested is pinged before use (the server may have gone
away meanwhile); a hot one is not (that would be a round trip more on every request)."""
import time

import pytest
from sqlalchemy import create_engine, text

from storeplatform.api import Service, hookimpl


@pytest.fixture
def pg_site(make_site, database):
    site = make_site(**{"sqlalchemy.ping_after_idle": "0.3"})
    if site.engine.dialect.name != "postgresql":
        pytest.skip("SQLite is a file with no server connection to lose or ping; "
                    "this runs in .ci/run's PostgreSQL pass")
    return site


def kill_site_connections(site):
    admin = create_engine(site.engine.url, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        killed = c.execute(text("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                "WHERE datname = current_database() AND pid <> pg_backend_pid()")).scalar()
    admin.dispose()
    return killed


def test_a_rested_connection_lost_to_a_server_restart_is_replaced(pg_site):
    site = pg_site
    site.create_user("admin", "administrator")
    headers = site.headers_for("admin")
    assert site.app.get("/api/store/v1/users/me", headers=headers, status=200)
    assert kill_site_connections(site) >= 1
    time.sleep(0.4)
    assert site.app.get("/api/store/v1/users/me", headers=headers, status=200).json["login"] == "admin"


def test_a_driver_statement_runs_on_the_connection_that_replaced_a_lost_one(make_site, database):
    """A DriverStatement's cursor is kept with its driver connection; the connection that
    replaces a lost one gets its own."""
    from .test_driver_statements import Driver, stored_terms

    site = make_site(plugins=[Driver()], **{"sqlalchemy.ping_after_idle": "0.3"})
    if site.engine.dialect.name != "postgresql":
        pytest.skip("SQLite is a file with no server connection to lose; this runs in .ci/run's PostgreSQL pass")
    assert site.app.post_json("/api/driver/v1/terms", {}, status=200).json["after"] == 1
    assert kill_site_connections(site) >= 1
    time.sleep(0.4)
    assert site.app.post_json("/api/driver/v1/terms", {}, status=200).json["after"] == 2
    assert stored_terms(site) == ["t0-post", "t1-post"]


def test_only_a_rested_connection_is_pinged(pg_site, monkeypatch):
    site = pg_site
    site.create_user("admin", "administrator")
    headers = site.headers_for("admin")
    dialect = site.engine.dialect
    pings = []
    real_ping = dialect.do_ping

    def counting_ping(dbapi_connection):
        pings.append(1)
        return real_ping(dbapi_connection)
    monkeypatch.setattr(dialect, "do_ping", counting_ping)
    site.app.get("/api/store/v1/users/me", headers=headers, status=200)
    before = len(pings)
    for _ in range(3):
        site.app.get("/api/store/v1/users/me", headers=headers, status=200)
    assert len(pings) == before
    time.sleep(0.4)
    site.app.get("/api/store/v1/users/me", headers=headers, status=200)
    assert len(pings) == before + 1


forgetful = Service("forgetful/v1", "/forget", name="forgetful", description="Deallocates its statements.")


@forgetful.get()
def forget(request):
    request.db.execute(text("DEALLOCATE ALL"))
    return {"forgotten": True}


class Forgetful:
    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_rest_namespace("forgetful/v1", description="A plugin whose reads forget prepared statements.")
        config.add_rest_services(forgetful)


def test_the_site_state_statement_is_prepared_again_when_the_server_forgot_it(make_site):
    """Reads run the site-state statement prepared under a name of ours; psycopg deallocates
    every statement of a connection after a ROLLBACK or DDL it ran, and so may anything else."""
    site = make_site(plugins=[Forgetful()])
    if site.engine.dialect.name != "postgresql":
        pytest.skip("SQLite has no prepared statements of ours; this runs in .ci/run's PostgreSQL pass")
    site.create_user("admin", "administrator")
    headers = site.headers_for("admin")
    first = site.app.get("/api/store/v1/users/me", headers=headers, status=200).json
    # The same thread's reads: the same kept connection, which now forgets our statement.
    assert site.app.get("/api/forgetful/v1/forget", status=200).json == {"forgotten": True}
    assert site.app.get("/api/store/v1/users/me", headers=headers, status=200).json == first


def test_a_write_begins_with_the_site_state_when_the_server_forgot_the_statement(make_site):
    """A write sends BEGIN and the prepared site-state statement in one pipeline: a server that
    forgot the statement aborts the transaction just begun, which is rolled back and begun again
    with the statement prepared anew; the write is whole and once."""
    site = make_site(plugins=[Forgetful()])
    if site.engine.dialect.name != "postgresql":
        pytest.skip("SQLite has no prepared statements of ours; this runs in .ci/run's PostgreSQL pass")
    site.create_user("admin", "administrator")
    headers = site.headers_for("admin")
    for n in range(2):
        assert site.app.get("/api/forgetful/v1/forget", status=200).json == {"forgotten": True}
        created = site.app.post_json("/api/store/v1/products", {"name": f"Kept {n}", "regular_price": "2.50"},
                                     headers=headers, status=201).json
        assert site.app.get(f"/api/store/v1/products/{created['id']}", headers=headers, status=200).json["name"] == \
            f"Kept {n}"
    names = [p["name"] for p in site.app.get("/api/store/v1/products", headers=headers, status=200).json]
    assert sorted(names) == ["Kept 0", "Kept 1"]
