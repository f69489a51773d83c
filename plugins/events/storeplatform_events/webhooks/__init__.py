"""Signed webhooks of the events plugin: stored webhooks, deliveries written with each change
(an outbox) and sent by Huey after commit, the SSRF-safe sender, and the REST routes."""
from ..actions import add_topic_listener


def includeme(config, ns):
    from . import models  # noqa: F401  (tables on the shared metadata)
    from .outbox import on_topic
    from .settings import webhook_settings
    from .views import add_routes

    webhook_settings(config.registry.settings)  # a bad ini value fails at start-up, not per delivery
    add_topic_listener(config.registry, on_topic)
    add_routes(config, ns)


def declared_tasks():
    from .outbox import DELIVER_TASK
    from .tasks import deliver_webhook

    return {DELIVER_TASK: deliver_webhook}


def declared_periodic_tasks():
    from huey import crontab

    from storeplatform.queue import Periodic

    from .tasks import REQUEUE_TASK, requeue_webhook_deliveries

    return [Periodic(REQUEUE_TASK, crontab(minute="*"), requeue_webhook_deliveries)]
