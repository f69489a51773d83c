"""Health checks: /healthz touches nothing, /readyz names what is not ready."""
from storeplatform.testing import Site, count_queries


def test_healthz_answers_without_touching_the_database(site):
    with count_queries(site.engine) as queries:
        res = site.app.get("/healthz", status=200)
    assert res.json == {"status": "ok"} and queries() == 0
    assert res.headers["Cache-Control"] == "no-store" and res.content_type == "application/json"


def test_readyz_on_a_migrated_site(make_site):
    site = make_site(**{"storeplatform.plugins": "invoicing pricecalc events"})
    res = site.app.get("/readyz", status=200)
    assert res.json == {"status": "ok", "checks": {"database": "ok", "migrations": "ok", "queue": "ok"}}


def test_readyz_names_a_database_that_was_never_migrated(database, tmp_path):
    site = Site(database.settings(**{"sqlalchemy.url": f"sqlite:///{tmp_path}/empty.sqlite",
                                     "storeplatform.plugins": "events"}))
    try:
        checks = site.app.get("/readyz", status=503).json["checks"]
    finally:
        site.close()
    assert checks["database"] == "ok" and checks["queue"] == "ok"
    missing = checks["migrations"].removeprefix("not at head (missing ").split(")")[0].split(", ")
    assert [m[:2] for m in missing] == ["ev", "sp"]  # the heads of the events plugin and the host
    assert checks["migrations"].endswith("run storeplatform -c INI migrate")


def test_readyz_names_an_unreachable_database_and_queue(database):
    site = Site(database.settings(**{"sqlalchemy.url": "postgresql://postgres@127.0.0.1:1/nothing",
                                     "huey.url": "redis://127.0.0.1:1/0", "huey.embedded_consumer": "false",
                                     "storeplatform.secret": "s" * 32}))
    try:
        res = site.app.get("/readyz", status=503)
    finally:
        site.close()
    assert res.json == {"status": "unavailable", "checks": {
        "database": "unreachable: OperationalError", "migrations": "unknown", "queue": "unreachable: ConnectionError"}}


def test_readiness_accepts_a_schema_a_newer_release_migrated_past_its_head(make_site):
    """A rolling deploy applies the new release's migration (one that only adds) while this
    release serves (#42): a revision this code does not know, of the host's branch and numbered
    after its head, is a newer release's; a known older revision is a schema behind, refused."""
    from sqlalchemy import text

    site = make_site()
    with site.engine.begin() as conn:
        head = conn.execute(text("SELECT version_num FROM alembic_version WHERE version_num LIKE 'sp%'")).scalar_one()

    def applied(revision):
        with site.engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = :new WHERE version_num LIKE 'sp%'"),
                         {"new": revision})

    try:
        applied("sp9001")
        assert site.app.get("/readyz").json["checks"]["migrations"] == "ok"
        applied("sp0001")
        checks = site.app.get("/readyz", status=503).json["checks"]
        assert checks["migrations"].startswith(f"not at head (missing {head}"), checks
    finally:
        applied(head)
    assert site.app.get("/readyz").json["checks"]["migrations"] == "ok"
