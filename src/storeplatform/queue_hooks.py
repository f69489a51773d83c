"""The host's own background work."""
from huey import crontab
from sqlalchemy import delete

from .db.types import utcnow
from .hookspecs import hookimpl
from .queue import Periodic


def purge_expired_sessions(ctx):
    from .store.models import AuthSession

    ctx.session.execute(delete(AuthSession).where(AuthSession.expires_at < utcnow()))


@hookimpl
def storeplatform_periodic_tasks():
    return [Periodic("storeplatform.purge_expired_sessions", crontab(minute="17", hour="3"),
                     purge_expired_sessions)]
