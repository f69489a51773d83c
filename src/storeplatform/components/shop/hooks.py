"""The shop's own hook implementations (registered as a component): the store's options, the
demo data, the purge of expired cookie sessions, and the task that records application
passwords' use."""
import logging

from huey import crontab
from sqlalchemy import delete

from storeplatform.core.db.types import utcnow
from storeplatform.core.hookspecs import hookimpl
from storeplatform.core.options import OptionSpec
from storeplatform.core.queue import Periodic

log = logging.getLogger(__name__)

POSITIONS = ("left", "right", "left_space", "right_space")


@hookimpl
def storeplatform_site_options():
    return [
        OptionSpec("store.name", "string", "Storeplatform Demo Store", "store", "Store name"),
        OptionSpec("store.address", "text", "1 Example Street\n12345 Example City", "store", "Store address"),
        OptionSpec("store.currency", "currency", "USD", "store", "Currency"),
        OptionSpec("store.currency_symbol", "string", "", "store", "Currency symbol",
                   description="Empty: the usual symbol of the currency.", max=8),
        OptionSpec("store.currency_position", "choice", "left", "store", "Currency position", choices=POSITIONS),
        # One character each, as every locale's (CLDR); the thousand separator may be none.
        # They may be equal (docs/decisions.md, #40: the separators): one at a time, a swap passes there.
        OptionSpec("store.thousand_separator", "string", ",", "store", "Thousand separator",
                   description="One character, or empty for none.", max=1),
        OptionSpec("store.decimal_separator", "string", ".", "store", "Decimal separator",
                   description="One character.", min=1, max=1),
        OptionSpec("store.decimals", "int", 2, "store", "Number of decimals", min=0, max=4),
        # The links that set a password (account_links.py).
        OptionSpec("auth.password_reset_minutes", "int", 60, "security", "Lost-password link lifetime (minutes)",
                   description="A link to set a new password, asked for on the login page or over REST, "
                               "works once and for this long.", min=5, max=1440),
        OptionSpec("auth.welcome_link_days", "int", 7, "security", "New account link lifetime (days)",
                   description="A user made without a password gets a link to set one, good for this "
                               "many days.", min=1, max=30),
    ]


@hookimpl
def storeplatform_start_summary(registry, session, url, command):
    """The demo users that still log in with the demo password, and how to call REST as the first;
    the unique indexes of logins and e-mail addresses that migration sp0018 left out for duplicates."""
    from .demo import DEMO_PASSWORD, demo_logins
    from .duplicates import missing_indexes

    lines = []
    missing = missing_indexes(session)
    if missing:
        log.warning("users: the unique index(es) %s are missing: several users share a login or an e-mail address "
                    "(any case); `%s user duplicates` lists them", ", ".join(missing), command)
        lines.append(f"  users:     logins or e-mail addresses shared by several users (the unique index(es) "
                     f"{', '.join(missing)} are missing): {command} user duplicates")
    logins = demo_logins(session)
    if not logins:
        return lines or None
    first = logins[0][0]
    prefix = registry.settings["storeplatform.rest_prefix"]
    return lines + [f"  logins:    {', '.join(f'{login} ({role})' for login, role in logins)}, password {DEMO_PASSWORD}",
            f"  an application password for REST clients: {command} user app-password {first}",
            f"  REST as {first}: curl -u \"{first}:$({command} user app-password {first})\" "
            f"{url}{prefix}/store/v1/users/me"]


@hookimpl(tryfirst=True)
def storeplatform_demo_data(session):
    from .demo import load_demo

    load_demo(session)


def purge_expired_sessions(ctx):
    from .models import AuthSession

    ctx.session.execute(delete(AuthSession).where(AuthSession.expires_at < utcnow()))


@hookimpl
def storeplatform_periodic_tasks():
    return [Periodic("storeplatform.purge_expired_sessions", crontab(minute="17", hour="3"), purge_expired_sessions)]


@hookimpl
def storeplatform_tasks():
    from .credentials import USE_TASK, app_password_used

    return {USE_TASK: app_password_used}
