"""``sqlalchemy.transaction_pooling = true`` (issue #42, part 3): behind PgBouncer in transaction
mode each transaction may run on another server connection, so the site keeps nothing in a
server session. psycopg prepares a statement it ran five times on a connection (and the site's
state statement is prepared at once): with the setting, none is prepared, on the web thread's
kept connection (reads in autocommit, writes in transactions) as on the pool's. The same
requests without the setting leave prepared statements behind: the check sees them.

The site through a real PgBouncer in transaction mode, under load, on two nodes, is
tests/served/test_topology.py. PostgreSQL only (marker production_topology: .ci/run's
PostgreSQL pass)."""
import pytest
from sqlalchemy import text

pytestmark = [pytest.mark.production_topology, pytest.mark.in_process]


def _requests(site):
    """Reads (autocommit on the thread's connection) and writes (transactions), each kind more
    than psycopg's prepare threshold (5) times."""
    headers = site.headers_for("administrator")
    for number in range(8):
        site.app.get(site.url("/store/v1/users/me"), headers=headers, status=200)
        site.app.get(site.url("/store/v1/products"), headers=headers, status=200)
        site.app.post_json(site.url("/store/v1/products"), {"name": f"Tea {number}", "regular_price": "2.00"},
                           headers=headers, status=201)
    with site.session() as session:
        for _ in range(8):
            session.execute(text("SELECT count(*) FROM products")).scalar()


def _prepared(site):
    """Prepared statements on every connection the site holds: the thread's kept one and the
    pool's idle ones."""
    kept = site.registry["db.thread_connections"].get(read=True)
    found = kept.exec_driver_sql("SELECT count(*) FROM pg_prepared_statements").scalar()
    pool = site.engine.pool
    connections = []
    try:
        while pool.checkedin():
            connection = site.engine.raw_connection()
            connections.append(connection)
            cursor = connection.cursor()
            cursor.execute("SELECT count(*) FROM pg_prepared_statements")
            found += cursor.fetchone()[0]
            cursor.close()
            connection.rollback()
    finally:
        for connection in connections:
            connection.close()
    return found


def test_nothing_is_prepared_with_transaction_pooling(make_site, database):
    if database.admin_url is None:
        pytest.fail("runs on PostgreSQL (.ci/run's PostgreSQL pass: marker production_topology)")
    site = make_site(**{"sqlalchemy.transaction_pooling": "true"})
    with site.engine.connect() as connection:
        assert connection.connection.dbapi_connection.prepare_threshold is None
    _requests(site)
    assert _prepared(site) == 0


def test_statements_are_prepared_without_it(make_site, database):
    if database.admin_url is None:
        pytest.fail("runs on PostgreSQL (.ci/run's PostgreSQL pass: marker production_topology)")
    site = make_site()
    _requests(site)
    assert _prepared(site) > 0
