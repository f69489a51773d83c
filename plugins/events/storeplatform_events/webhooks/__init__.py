"""Signed webhooks of the events plugin: stored webhooks, deliveries written with each change
(an outbox fed by the ``evt_topic_announced`` hook) and sent by Huey after commit, the
SSRF-safe sender, and the REST routes."""


def includeme(config):
    """The webhook policy of the site; its routes are added by the variant the site serves."""
    from . import models  # noqa: F401  (tables on the shared metadata)
    from .settings import keep_webhook_policy

    keep_webhook_policy(config.registry)  # a bad ini value fails at start-up, not per delivery


def declared_tasks():
    from .outbox import DELIVER_TASK
    from .tasks import deliver_webhook

    return {DELIVER_TASK: deliver_webhook}


def declared_periodic_tasks():
    from storeplatform.api import Periodic, crontab

    from .tasks import REQUEUE_TASK, requeue_webhook_deliveries

    # Also when a worker starts: what a worker that died left behind is settled at once.
    return [Periodic(REQUEUE_TASK, crontab(minute="*"), requeue_webhook_deliveries, at_start=True)]
