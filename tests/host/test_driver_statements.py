"""A DriverStatement run in a request's session: its write is the session's own
(committed with the request, refused on a safe method, seen by what the generations keep in the
same transaction), its row comes back typed as through the session, and query counters see it."""
from datetime import datetime, timezone

import pytest
from sqlalchemy import bindparam, event, func, insert, select, update

from storeplatform.api import Post, Service, Term, cached, hookimpl
from storeplatform.api.advanced import DriverStatement

TERMS = Term.__table__
ADD_TERM = DriverStatement(insert(TERMS).values(taxonomy="driver", name=bindparam("name"), slug=bindparam("name"),
                                                description="", color="").returning(TERMS.c.id, TERMS.c.name))
FORGETS_DEFAULTS = DriverStatement(insert(TERMS).values(taxonomy="driver", name="x", slug="x"))
TOUCH_POST = DriverStatement(update(Post.__table__).where(Post.__table__.c.id == bindparam("post"))
                             .values(modified_at=bindparam("now")).returning(Post.__table__.c.modified_at))

terms = Service("driver/v1", "/terms", name="driver-terms", description="Adds a term on the driver.")
posts = Service("driver/v1", "/posts/{id}", name="driver-post", description="Touches a post on the driver.")


@cached
def driver_terms(session):
    return session.execute(select(func.count()).select_from(Term).where(Term.taxonomy == "driver")).scalar()


def add_term(request):
    before = driver_terms(request.db)
    term_id, name = ADD_TERM.first(request.db, name=f"t{before}-{request.method.lower()}")
    return {"before": before, "after": driver_terms(request.db), "id": term_id, "name": name}


terms.get()(add_term)
terms.post()(add_term)


@posts.post()
def touch_post(request):
    (modified_at,) = TOUCH_POST.first(request.db, post=int(request.matchdict["id"]),
                                         now=datetime(2030, 5, 6, 7, 8, 9, tzinfo=timezone.utc))
    return {"modified_at": modified_at.isoformat(), "aware": modified_at.tzinfo is not None}


class Driver:
    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_rest_namespace("driver/v1", description="A plugin that writes on the driver.")
        config.add_rest_services(terms, posts)


def stored_terms(site):
    with site.session() as s:
        return s.execute(select(Term.name).where(Term.taxonomy == "driver").order_by(Term.id)).scalars().all()


def test_a_driver_write_commits_with_the_request_and_is_seen_by_what_is_kept(make_site):
    site = make_site(plugins=[Driver()])
    statements = []
    event.listen(site.engine, "before_cursor_execute",
                 lambda conn, cursor, statement, *rest: statements.append(statement))
    first = site.app.post_json("/api/driver/v1/terms", {}, status=200).json
    # Kept by the content generation before the write; the write is the transaction's own.
    assert (first["before"], first["after"], first["name"]) == (0, 1, "t0-post")
    second = site.app.post_json("/api/driver/v1/terms", {}, status=200).json
    assert (second["before"], second["after"]) == (1, 2) and second["id"] > first["id"]
    assert stored_terms(site) == ["t0-post", "t1-post"]
    assert sum("INSERT INTO terms" in s for s in statements) == 2


def test_a_driver_write_on_a_safe_method_is_refused_and_leaves_nothing(make_site):
    site = make_site(plugins=[Driver()])
    assert site.app.get("/api/driver/v1/terms", status=500).json["code"] == "rest_internal_error"
    assert stored_terms(site) == []


def test_a_returned_row_has_its_columns_types_applied(make_site):
    site = make_site(plugins=[Driver()])
    with site.session() as s:
        post = Post(post_type="post", title="Touched", status="publish")
        s.add(post)
        s.flush()
        post_id = post.id
    answer = site.app.post_json(f"/api/driver/v1/posts/{post_id}", {}, status=200).json
    assert answer == {"modified_at": "2030-05-06T07:08:09+00:00", "aware": True}


def test_a_statement_that_leaves_a_python_default_to_the_driver_is_refused(site):
    with site.session() as s, pytest.raises(ValueError, match="description.*color|color.*description"):
        FORGETS_DEFAULTS.first(s)


RENAME = DriverStatement(update(TERMS).where(TERMS.c.taxonomy == "driver").values(name=bindparam("name")))
RENAME_RETURNING = DriverStatement(update(TERMS).where(TERMS.c.taxonomy == "driver", TERMS.c.name == bindparam("old"))
                                   .values(name=bindparam("name")).returning(TERMS.c.name))


@pytest.mark.parametrize("write", [
    lambda s: RENAME.rowcount(s, name="renamed"),
    lambda s: RENAME.many(s, [{"name": "renamed"}]),
    lambda s: RENAME_RETURNING.returned_rows(s, [{"old": "t0", "name": "renamed"}]),
    lambda s: RENAME_RETURNING.returned_each(s, [{"old": "t0", "name": "renamed"}]),
])
def test_every_way_of_writing_on_the_driver_is_the_transactions_own(site, write):
    with site.session() as s:
        ADD_TERM.first(s, name="t0")
    with site.session() as s:
        driver_terms(s)  # cached, then written in the same transaction: computed afresh
        write(s)
        assert s.execute(select(Term.name).where(Term.taxonomy == "driver")).scalar() == "renamed"
        from storeplatform.core.db.generations import written_tables
        assert "terms" in written_tables(s)
    assert stored_terms(site) == ["renamed"]  # committed with the transaction


def test_a_sessions_connection_is_refused_the_session_is_named(site):
    with site.session() as s:
        connection = s.connection()
        with pytest.raises(TypeError, match="pass the session"):
            RENAME.rowcount(connection, name="x")


_RENAMED = update(TERMS).where(TERMS.c.taxonomy == "driver").values(name=bindparam("name")) \
    .returning(TERMS.c.name).cte("renamed")
RENAME_IN_A_WITH = DriverStatement(select(_RENAMED.c.name))


def test_a_write_in_a_with_is_the_transactions_own(site):
    """A SELECT whose WITH holds an UPDATE (the check-in's, which records its scan in the same
    statement) writes as the UPDATE does: what it wrote is recorded, a safe method refuses it."""
    from storeplatform.core.db.generations import written_tables
    from storeplatform.core.db.statements import written_tables as tables_written_by

    assert tables_written_by(RENAME_IN_A_WITH.statement) == {"terms"}
    assert tables_written_by(ADD_TERM.statement) == {"terms"} and tables_written_by(select(TERMS.c.id)) == set()
    if site.engine.dialect.name != "postgresql":
        return  # SQLite writes in no WITH
    with site.session() as s:
        ADD_TERM.first(s, name="t0")
    with site.session() as s:
        driver_terms(s)
        assert RENAME_IN_A_WITH.first(s, name="renamed") == ("renamed",)
        assert "terms" in written_tables(s)
        assert driver_terms(s) == 1
    assert stored_terms(site) == ["renamed"]
