"""The audit component's hook implementations (registered before the plugins): it writes every
reported change, declares its retention options, the capability of reading the log, and the
periodic pruning."""
import logging

from huey import crontab

from storeplatform.core.hookspecs import hookimpl
from storeplatform.core.options import OptionSpec, site_options
from storeplatform.core.queue import Periodic

from .entries import prune, record

log = logging.getLogger(__name__)

CAPABILITY = "view_audit_log"
KEEP_DAYS = "audit.keep_days"
MAX_ENTRIES = "audit.max_entries"
PRUNE_TASK = "storeplatform.prune_audit_log"


@hookimpl
def storeplatform_audit_event(session, event):
    record(session, event)


@hookimpl
def storeplatform_role_capabilities():
    # Administrators only: the log names every user's changes and addresses. A plugin may give
    # the capability to another role through this same hook.
    return {"administrator": [CAPABILITY]}


@hookimpl
def storeplatform_site_options():
    return [
        OptionSpec(KEEP_DAYS, "int", 365, "security", "Audit log: days kept",
                   description="Entries older than this are deleted (once an hour).", min=1, max=3650),
        OptionSpec(MAX_ENTRIES, "int", 100_000, "security", "Audit log: entries kept",
                   description="Beyond this number the oldest entries are deleted (once an hour), whatever "
                               "their age.", min=1000, max=1_000_000),
    ]


@hookimpl
def storeplatform_periodic_tasks():
    # Never on a request's path: once an hour, off the hour's first minutes that other work takes.
    return [Periodic(PRUNE_TASK, crontab(minute="23"), prune_audit_log)]


def prune_audit_log(ctx):
    """Periodic task: the entries beyond the site's retention (``audit.keep_days``,
    ``audit.max_entries``) are deleted."""
    options = site_options(ctx.session)
    by_age, by_count = prune(ctx.session, options[KEEP_DAYS], options[MAX_ENTRIES])
    if by_age or by_count:
        log.info("audit log pruned: %d entries older than %d days, %d beyond the newest %d",
                 by_age, options[KEEP_DAYS], by_count, options[MAX_ENTRIES])
