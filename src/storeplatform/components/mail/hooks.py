"""The mail component's hook implementations (registered before the plugins): its tasks (send
one message, the sweep), its options (the sender), the capability of the mail log, and the
start-up line saying where mail goes."""
import os

from huey import crontab

from storeplatform.core.hookspecs import hookimpl
from storeplatform.core.options import OptionSpec
from storeplatform.core.queue import Periodic

from .outbox import FROM, FROM_NAME, SEND_TASK
from .settings import policy_of
from .tasks import SWEEP_TASK, mail_sweep, send_mail_task

CAPABILITY = "manage_mail"


@hookimpl
def storeplatform_tasks():
    return {SEND_TASK: send_mail_task}


@hookimpl
def storeplatform_periodic_tasks():
    # Also when a worker starts: what a worker that died left behind is settled at once.
    return [Periodic(SWEEP_TASK, crontab(minute="*"), mail_sweep, at_start=True)]


@hookimpl
def storeplatform_role_capabilities():
    # Administrators only: the log shows every message whole, a lost password's link among them.
    return {"administrator": [CAPABILITY]}


@hookimpl
def storeplatform_site_options():
    return [
        OptionSpec(FROM, "email", "", "mail", "Sender address",
                   description="The From address of the site's messages (empty: noreply@ the site's host)."),
        OptionSpec(FROM_NAME, "string", "", "mail", "Sender name",
                   description="The name shown with the sender address (empty: the site title).", max=100),
    ]


@hookimpl
def storeplatform_start_summary(registry, session, url, command):
    policy = policy_of(registry)
    if policy.transport != "files" or not policy.enabled:
        return [f"  mail:      {policy.describe()}"]
    # The default folder is named as the ini's var/ is (the commands of the block are relative
    # to the checkout too); another one as it is set.
    here = registry.settings.get("here") or os.getcwd()
    default = os.path.abspath(policy.directory) == os.path.abspath(os.path.join(here, "var", "mail"))
    shown = "var/mail/" if default else policy.directory
    return [f"  mail:      not sent: kept as .eml files in {shown} (set mail.url to send through an SMTP server)"]
