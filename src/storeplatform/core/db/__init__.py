"""Database wiring: ``request.db`` is a session bound to the request's transaction."""
from pyramid.interfaces import IRoutesMapper

from ..values import id_in_range
from .ids import never_reuse_ids  # also: tables of the shared metadata never reuse ids
from .meta import Base, metadata
from .thread_connections import ThreadConnections
from .session import (
    get_tm_session,
    make_engine,
    make_read_session_factory,
    make_session_factory,
    ping_after_idle,
    site_transaction,
)

# (method, route name) of the REST views declared ``read_only`` (storeplatform.rest.service).
READ_ONLY_VIEWS = "db.read_only_views"


def includeme(config):
    settings = config.get_settings()
    settings["tm.manager_hook"] = "pyramid_tm.explicit_manager"
    # pyramid_tm would authenticate above the error views; authentication errors must
    # reach them to get the error body.
    settings["tm.annotate_user"] = "false"
    config.include("pyramid_tm")
    engine = make_engine(settings)
    session_factory = make_session_factory(engine)
    config.registry["db.engine"] = engine
    config.registry["db.session_factory"] = session_factory

    # GET and HEAD read (HTTP's safe methods), and so do the views declared ``read_only``: on a
    # database server they run without a transaction, each statement on its own, which spares
    # the BEGIN and ROLLBACK round trips.
    read_factory = make_read_session_factory(engine)
    read_only_views = config.registry.setdefault(READ_ONLY_VIEWS, set())
    server = engine.dialect.name != "sqlite"
    connections = config.registry["db.thread_connections"] = ThreadConnections(
        engine, ping_after_idle(settings), autocommit_reads=server)

    def reads_only(request, route):
        return request.method in ("GET", "HEAD") or (
            route is not None and (request.method, route.name) in read_only_views)

    if server:
        settings["tm.activate_hook"] = _transaction_needed(read_only_views, reads_only)

    def db(request):
        read = reads_only(request, request.matched_route)
        manager = request.tm if request.environ.get("tm.active") else None
        session = get_tm_session(read_factory if read else session_factory, manager, request.registry, request,
                                 bind=connections.get(read))
        if manager is None:
            request.add_finished_callback(lambda request: _close(session))
        return session

    config.add_request_method(db, "db", reify=True)


def _transaction_needed(read_only_views, reads_only):
    """pyramid_tm's activate hook on a database server. A GET or HEAD, or a view declared
    read_only, has nothing to commit or abort there (its statements autocommit, its session
    refuses writes): no zope transaction around it (begin, join, two-phase commit); its session
    is closed when the request ends. (On SQLite a GET keeps its transaction: the oauth plugin
    spends a nonce in it.) The hook runs before routing: a POST's route is looked up for it."""

    def needs_transaction(request):
        if request.method in ("GET", "HEAD"):
            return False
        if not read_only_views:
            return True
        return not reads_only(request, request.registry.getUtility(IRoutesMapper)(request)["route"])

    return needs_transaction


def _close(session):
    # A session that began no transaction and holds no rows has nothing to give back (its
    # connection is the thread's own): a request answered from the cache skips close(),
    # which costs as much as the request's one statement.
    if session.in_transaction() or session.identity_map or session.new:
        session.close()


def get_by_id(session, model, value):
    """``session.get(model, value)`` for an id from a URL: None for an id that cannot exist
    (not a number, or beyond the 32-bit integer columns), so that it is a not-found answer and
    never a database error."""
    try:
        value = int(value)
    except (TypeError, ValueError):
        return None
    return session.get(model, value) if id_in_range(value) else None


def get_or_404(session, model, value, not_found):
    """The row of ``model`` with id ``value`` (from a URL or a body), or raise ``not_found()``
    (an ``ErrorCode`` of the namespace's catalogue)."""
    row = get_by_id(session, model, value)
    if row is None:
        raise not_found()
    return row


def registry_of(session):
    return session.info["registry"]


def hooks_of(session):
    """The plugin hooks of the site a session belongs to (``request.hooks`` in a request)."""
    return session.info["registry"]["plugins"].hook


def request_of(session):
    """The web request a session serves, or None in a task or the CLI."""
    return session.info.get("request")


__all__ = ["Base", "metadata", "get_tm_session", "get_by_id", "get_or_404", "hooks_of", "id_in_range", "never_reuse_ids", "registry_of",
           "request_of", "site_transaction"]
