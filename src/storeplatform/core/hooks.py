"""The kernel's own hook implementations (registered as a plugin): the site's general and
security options, the host distribution's migrations, the purge of old login-throttle windows
and the fold of the kept counts' ended rows."""
from pathlib import Path

from huey import crontab

from .hookspecs import hookimpl
from .options import OptionSpec
from .queue import Periodic


@hookimpl
def storeplatform_site_options():
    return [
        OptionSpec("site.title", "string", "Storeplatform Demo Store", "general", "Site title"),
        OptionSpec("site.url", "url", "http://127.0.0.1:6543", "general", "Site address (URL)",
                   description="Used for links made outside a web request (worker, CLI). Until you set it, the server writes the address it serves at each start."),
        OptionSpec("site.timezone", "timezone", "UTC", "general", "Time zone"),
        # Throttling of credential guesses (auth/throttle.py).
        OptionSpec("auth.throttle_window", "int", 900, "security", "Window of failed logins (seconds)",
                   description="Failed logins are counted in windows of this length; a blocked address "
                               "waits until its window ends.", min=60, max=86400),
        OptionSpec("auth.throttle_login_failures", "int", 10, "security", "Failed logins per login and address",
                   description="Wrong passwords (or keys) for one login from one address in a window; "
                               "the next attempt is refused until the window ends.", min=1, max=10000),
        OptionSpec("auth.throttle_address_failures", "int", 100, "security", "Failed logins per address",
                   description="Wrong passwords (or keys) for any logins from one address (an IPv6 "
                               "client's /64) in a window.", min=1, max=1000000),
    ]


@hookimpl
def storeplatform_migration_locations():
    # The host distribution's branch: the kernel's tables and the components'.
    return [str(Path(__file__).resolve().parent.parent / "migrations" / "versions")]


@hookimpl
def storeplatform_periodic_tasks():
    from .auth.throttle import purge_old_windows
    from .db.counts import fold_counts_task

    return [
        # Counts of failed logins (auth/throttle.py) whose window has ended.
        Periodic("storeplatform.purge_login_attempts", crontab(minute="*/15"), purge_old_windows),
        # The kept counts' rows of database connections that ended (db/counts.py).
        Periodic("storeplatform.fold_counts", crontab(minute="*/10"), fold_counts_task),
    ]
