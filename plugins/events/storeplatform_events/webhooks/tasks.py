"""The Huey tasks: send one queued delivery, and the periodic sweep of lost hand-offs.

A delivery is claimed in a short transaction of its own, sent with no transaction open (a
30-second request must not hold database locks; on SQLite that would stop every writer),
and its outcome recorded in a second short transaction.
"""
from sqlalchemy import select, update

from storeplatform.db.types import utcnow
from storeplatform.queue import run_in_transaction

from .delivery import delivery_headers, post
from .models import DELIVERED, FAILED, SKIPPED, Webhook, WebhookDelivery
from .outbox import abandon_stuck, claim, count_outcome, prune_log, requeue_lost
from .payloads import timestamp_of
from .settings import webhook_settings

REQUEUE_TASK = "events.requeue_webhook_deliveries"


def _claim(ctx, delivery_id):
    session = ctx.session
    if not claim(session, delivery_id):
        return None
    delivery, webhook = session.execute(
        select(WebhookDelivery, Webhook).outerjoin(Webhook, Webhook.id == WebhookDelivery.webhook_id)
        .where(WebhookDelivery.id == delivery_id)).one()
    if webhook is None or webhook.status != "active":
        # Paused or disabled meanwhile: nothing is sent, nothing kept for later.
        delivery.status = SKIPPED
        delivery.finished_at = utcnow()
        delivery.error = "webhook deleted" if webhook is None else f"webhook {webhook.status}"
        prune_log(session)
        return None
    body = delivery.body.encode("utf-8")
    headers = delivery_headers(webhook.id, delivery.topic, webhook.secret, body, delivery.uuid, timestamp_of(body))
    return {"webhook_id": webhook.id, "url": webhook.url, "body": body, "headers": headers}


def record(session, delivery_id, webhook_id, outcome, url, headers):
    """Write the outcome into the log row (one UPDATE), count it, keep the log at 100 rows."""
    session.execute(update(WebhookDelivery).where(WebhookDelivery.id == delivery_id)
                    .values(status=DELIVERED if outcome.success else FAILED, response_code=outcome.response_code,
                            duration_ms=outcome.duration_ms, error=outcome.error, finished_at=utcnow(), url=url,
                            request_headers=headers)
                    .execution_options(synchronize_session=False))
    count_outcome(session, webhook_id, outcome.success)
    prune_log(session)


def _record(ctx, delivery_id, sent, outcome):
    record(ctx.session, delivery_id, sent["webhook_id"], outcome, sent["url"], sent["headers"])


def deliver_webhook(ctx, delivery_id):
    sent = run_in_transaction(ctx.registry, _claim, delivery_id)
    if sent is None:
        return
    outcome = post(webhook_settings(ctx.settings), sent["url"], sent["body"], sent["headers"])
    run_in_transaction(ctx.registry, _record, delivery_id, sent, outcome)


def requeue_webhook_deliveries(ctx):
    policy = webhook_settings(ctx.settings)
    requeue_lost(ctx.session, policy.requeue_after)
    # Five redirects each waiting the full time-out, plus a margin.
    abandon_stuck(ctx.session, policy.timeout * 6 + 300)
