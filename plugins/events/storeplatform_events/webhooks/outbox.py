"""The deliveries table through its life: written with the change (the outbox) and handed to
Huey after commit, claimed by one worker, its outcome recorded (counters, log of 100), and the
sweep of lost hand-offs. Sending is ``delivery.post``; the task in ``tasks`` runs the three
steps in order."""
import uuid
from datetime import timedelta

from sqlalchemy import and_, case, delete, select, update

from storeplatform.api import enqueue_after_commit, utcnow

from .delivery import signed_attempt
from .models import DELIVERED, FAILED, FINISHED, PENDING, SENDING, SKIPPED, Webhook, WebhookDelivery
from .payloads import envelope_body, local_timestamp, topic_data
from .settings import FAILURE_LIMIT, LOG_SIZE
from .topics import FIRED_TOPICS

DELIVER_TASK = "events.deliver_webhook"
_ACTIVE_CACHE = "evt_webhooks.active_by_topic"


def active_webhook_ids(session, topic):
    # Cached for the transaction: an order that makes 50 tickets asks once, not 50 times.
    cache = session.info.setdefault(_ACTIVE_CACHE, {})
    if topic not in cache:
        cache[topic] = session.execute(
            select(Webhook.id).where(Webhook.topic == topic, Webhook.status == "active").order_by(Webhook.id)
        ).scalars().all()
    return cache[topic]


def on_topic(session, topic, object_id, info):
    """The outbox's ``evt_topic_announced``: one pending delivery per active webhook of the
    topic, in the transaction of the change; each is sent to Huey only if that transaction
    commits."""
    if topic not in FIRED_TOPICS:
        return
    webhook_ids = active_webhook_ids(session, topic)
    if not webhook_ids:
        return
    data = topic_data(session, topic, object_id, info)
    if data is None:
        return
    timestamp = local_timestamp(session)
    rows = [WebhookDelivery(uuid=str(uuid.uuid4()), webhook_id=webhook_id, topic=topic, status=PENDING,
                            body=envelope_body(topic, webhook_id, timestamp, data).decode("utf-8"),
                            timestamp=timestamp)
            for webhook_id in webhook_ids]
    session.add_all(rows)
    session.flush()
    for row in rows:
        enqueue_after_commit(session, DELIVER_TASK, row.id)


def claim(session, delivery_id):
    """pending -> sending, by one worker only (a second claim of the same row changes nothing)."""
    result = session.execute(update(WebhookDelivery)
                             .where(WebhookDelivery.id == delivery_id, WebhookDelivery.status == PENDING)
                             .values(status=SENDING, claimed_at=utcnow())
                             .execution_options(synchronize_session=False))
    return result.rowcount == 1


def claim_attempt(session, delivery_id):
    """Claim a delivery and return its signed ``Attempt``; None when another worker has it, or
    when its webhook is no longer active (the row is then closed as skipped: nothing is kept
    for later)."""
    if not claim(session, delivery_id):
        return None
    delivery, webhook = session.execute(
        select(WebhookDelivery, Webhook).outerjoin(Webhook, Webhook.id == WebhookDelivery.webhook_id)
        .where(WebhookDelivery.id == delivery_id)).one()
    if webhook is None or webhook.status != "active":
        delivery.status = SKIPPED
        delivery.finished_at = utcnow()
        delivery.error = "webhook deleted" if webhook is None else f"webhook {webhook.status}"
        prune_log(session)
        return None
    return signed_attempt(webhook.id, webhook.url, webhook.secret, delivery.topic, delivery.body.encode("utf-8"),
                          delivery.uuid, delivery.timestamp)


def record(session, delivery_id, attempt, outcome):
    """Write the outcome into the log row (one UPDATE), count it, keep the log at 100 rows."""
    session.execute(update(WebhookDelivery).where(WebhookDelivery.id == delivery_id)
                    .values(status=DELIVERED if outcome.success else FAILED, response_code=outcome.response_code,
                            duration_ms=outcome.duration_ms, error=outcome.error, finished_at=utcnow(),
                            url=attempt.url, request_headers=attempt.headers)
                    .execution_options(synchronize_session=False))
    count_outcome(session, attempt.webhook_id, outcome.success)
    prune_log(session)


def count_outcome(session, webhook_id, success):
    """Atomic: success resets the counter; a failure adds one and, at the limit, disables an
    active webhook in the same statement (no read-modify-write)."""
    if success:
        values = {"failures": 0}
    else:
        values = {"failures": Webhook.failures + 1,
                  "status": case((and_(Webhook.failures + 1 >= FAILURE_LIMIT, Webhook.status == "active"),
                                  "disabled"), else_=Webhook.status)}
    session.execute(update(Webhook).where(Webhook.id == webhook_id).values(**values)
                    .execution_options(synchronize_session=False))


def prune_log(session):
    """Keep the last 100 finished deliveries (all webhooks together); pending ones are work."""
    hundredth = (select(WebhookDelivery.id).where(WebhookDelivery.status.in_(FINISHED))
                 .order_by(WebhookDelivery.id.desc()).limit(1).offset(LOG_SIZE - 1).scalar_subquery())
    session.execute(delete(WebhookDelivery).where(WebhookDelivery.status.in_(FINISHED),
                                                  WebhookDelivery.id < hundredth)
                    .execution_options(synchronize_session=False))


def requeue_lost(session, older_than_seconds, limit=1000):
    """Hand pending deliveries whose last hand-off is older than the grace period to Huey again
    (after commit). A row still in the queue may be sent twice to Huey; the claim sends it once."""
    now = utcnow()
    cutoff = now - timedelta(seconds=older_than_seconds)
    ids = session.execute(select(WebhookDelivery.id)
                          .where(WebhookDelivery.status == PENDING, WebhookDelivery.queued_at <= cutoff)
                          .order_by(WebhookDelivery.id).limit(limit)).scalars().all()
    if ids:
        session.execute(update(WebhookDelivery).where(WebhookDelivery.id.in_(ids), WebhookDelivery.status == PENDING)
                        .values(queued_at=now).execution_options(synchronize_session=False))
    for delivery_id in ids:
        enqueue_after_commit(session, DELIVER_TASK, delivery_id)
    return ids


def abandon_stuck(session, older_than_seconds):
    """A delivery claimed by a worker that died mid-send never finishes; close it as failed
    (its outcome is unknown, so the failure counter is left alone)."""
    cutoff = utcnow() - timedelta(seconds=older_than_seconds)
    session.execute(update(WebhookDelivery)
                    .where(WebhookDelivery.status == SENDING, WebhookDelivery.claimed_at <= cutoff)
                    .values(status=FAILED, finished_at=utcnow(), error="abandoned: the worker stopped while sending")
                    .execution_options(synchronize_session=False))
