"""Database wiring: ``request.db`` is a session bound to the request's transaction."""
from .meta import Base, metadata
from .session import get_tm_session, make_engine, make_session_factory


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

    def db(request):
        return get_tm_session(session_factory, request.tm, request.registry, request)

    config.add_request_method(db, "db", reify=True)


def registry_of(session):
    return session.info["registry"]


def request_of(session):
    """The web request a session serves, or None in a task or the CLI."""
    return session.info.get("request")


__all__ = ["Base", "metadata", "get_tm_session", "registry_of", "request_of"]
