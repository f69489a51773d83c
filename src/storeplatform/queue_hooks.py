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
    from .auth.throttle import purge_old_windows

    return [Periodic("storeplatform.purge_expired_sessions", crontab(minute="17", hour="3"),
                     purge_expired_sessions),
            # Counts of failed logins (auth/throttle.py) whose window has ended.
            Periodic("storeplatform.purge_login_attempts", crontab(minute="*/15"), purge_old_windows)]
