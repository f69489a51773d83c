"""Values kept by generation (``@cached``: the host's one keeping mechanism): shared by
transactions that saw the same committed content, never by one that wrote (it must see its own
writes), never after a commit moved the generation on."""
from sqlalchemy import func, insert, select, text

from storeplatform.api import Post, User, cached
from storeplatform.core.db.generations import generation

CALLS = {"posts": [], "users": []}


def published(session):
    return session.execute(select(func.count()).select_from(Post).where(Post.status == "publish")).scalar()


@cached
def _published(session):
    CALLS["posts"].append(1)
    return published(session)


def cached_count(session, calls):
    """The kept count; ``calls`` (a list) gets one item per computation."""
    CALLS["posts"] = calls
    return _published(session)


def add_post(session, title):
    session.add(Post(post_type="page", title=title, slug=title.lower(), status="publish"))
    session.flush()


def test_shared_until_a_commit_and_never_by_a_writer(site):
    calls = []
    with site.session() as s:
        assert cached_count(s, calls) == 0
    with site.session() as s:
        assert cached_count(s, calls) == 0 and len(calls) == 1  # the same generation: kept
        add_post(s, "One")  # a unit-of-work write
        assert cached_count(s, calls) == 1 and len(calls) == 2  # its own write, computed afresh
    with site.session() as s:
        assert generation(s, "content") > 0
        assert cached_count(s, calls) == 1 and len(calls) == 3
        s.execute(insert(Post).values(post_type="page", title="Two", slug="two", status="publish"))
        assert cached_count(s, calls) == 2  # a statement write counts as well
    with site.session() as s:
        assert cached_count(s, calls) == 2
        s.execute(text("SELECT 1"))
    aborted = site.session()
    try:
        with aborted as s:
            add_post(s, "Never")
            raise RuntimeError
    except RuntimeError:
        pass
    with site.session() as s:
        before = len(calls)
        assert cached_count(s, calls) == 2 and len(calls) == before  # an aborted write moves nothing


def test_read_in_a_transaction_that_already_ran_a_statement(site):
    # The state statement is mostly a transaction's first; after another one it runs inside it.
    with site.session() as s:
        s.execute(text("SELECT 1"))
        before = generation(s, "content")
        add_post(s, "Inside")
    with site.session() as s:
        assert generation(s, "content") > before


@cached
def _users(session):
    CALLS["users"].append(1)
    return session.execute(select(func.count()).select_from(User)).scalar()


def cached_users(session, calls):
    CALLS["users"] = calls
    return _users(session)


def test_a_writer_computes_afresh_only_what_its_tables_count(site):
    content, auth = [], []
    with site.session() as s:
        cached_count(s, content), cached_users(s, auth)
    with site.session() as s:
        add_post(s, "Mine")  # posts: the content generation
        assert cached_count(s, content) == 1 and len(content) == 2  # its own write, afresh
        cached_users(s, auth)
        assert len(auth) == 1  # users untouched: still the kept value
    with site.session() as s:
        # A delete may cascade anywhere: every generation computes afresh.
        s.execute(text("SELECT 1"))
        s.delete(s.execute(select(Post)).scalars().first())
        s.flush()
        cached_users(s, auth)
        assert len(auth) == 2
    with site.session() as s:
        before = len(auth)
        s.execute(text("UPDATE posts SET title = title"))  # a statement as text: any table
        cached_users(s, auth)
        assert len(auth) == before + 1
