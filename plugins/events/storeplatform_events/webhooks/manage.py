"""What a site owner does with webhooks, for the REST routes and the admin pages alike: list them,
validate a body, create, update, delete, send a test delivery, read the delivery log, deliver one
again. Creating, changing and deleting one are entries of the site's audit log (kind
``webhooks``): never the secret, and of the URL only its host (a receiver's URL may itself be
its key)."""
import secrets
import string
import uuid
from urllib.parse import urlsplit

from sqlalchemy import delete, or_, select

from storeplatform.api import audit, deserialize, enqueue_after_commit, get_by_id, utcnow

from ..queries import ilike
from .delivery import post, signed_attempt
from .models import FINISHED, PENDING, SENDING, Webhook, WebhookDelivery
from .outbox import DELIVER_TASK, record
from .payloads import envelope_body, local_timestamp
from .schemas import WebhookBody, webhook_update
from .settings import webhook_policy
from .topics import TEST_TOPIC

SECRET_ALPHABET = string.ascii_letters + string.digits
LOG_LIMIT = 100


def new_secret():
    return "".join(secrets.choice(SECRET_ALPHABET) for _ in range(32))


def webhook_list(status=None, topic=None, search=""):
    """The webhooks list's statement, by id: REST's filters (the admin lists every webhook; they
    are few, each made by hand)."""
    stmt = select(Webhook)
    if status is not None:
        stmt = stmt.where(Webhook.status == status)
    if topic is not None:
        stmt = stmt.where(Webhook.topic == topic)
    if search:
        stmt = stmt.where(or_(ilike(Webhook.name, search), ilike(Webhook.url, search)))
    return stmt.order_by(Webhook.id)


def url_policy(request):
    """The bindings of a webhook body: the site's webhook settings, which the URL is checked with."""
    return {"policy": webhook_policy(request.registry)}


def validated_body(request, values, partial=False):
    """``values`` checked by the schema of POST (or, ``partial``, PUT) /webhooks, bound as the
    routes bind it; raises ``InvalidParams`` naming every bad field."""
    schema = (webhook_update() if partial else WebhookBody()).bind(**url_policy(request))
    return deserialize(schema, values)


def create_webhook(session, v):
    now = utcnow()
    item = Webhook(name=v["name"].strip(), url=v["url"].strip(), topic=v["topic"],
                   secret=v.get("secret") or new_secret(), status=v["status"], failures=0,
                   created_at=now, updated_at=now)
    session.add(item)
    session.flush()
    audit(session, "webhooks", "created", item.name,
          {"id": item.id, "topic": item.topic, "status": item.status, "url_host": url_host(item.url)})
    return item


def url_host(url):
    """What the audit log keeps of a webhook's URL: its host (and port)."""
    try:
        return urlsplit(url).netloc.rpartition("@")[2]
    except ValueError:
        return ""


AUDITED = ("name", "url", "topic", "secret", "status")


def update_webhook(session, item, v):
    before = {name: getattr(item, name) for name in AUDITED}
    if "url" in v:
        item.url = v["url"].strip()
    if "name" in v:
        item.name = v["name"].strip()
    if "topic" in v:
        item.topic = v["topic"]
    if "secret" in v:
        item.secret = v["secret"] or new_secret()
    if "status" in v and v["status"] != item.status:
        if v["status"] == "active":
            # Resuming gives the receiver a fresh run of five chances.
            item.failures = 0
        item.status = v["status"]
    item.updated_at = utcnow()
    session.flush()
    changed = [name for name in AUDITED if getattr(item, name) != before[name]]
    if changed:
        details = {"id": item.id, "changed": changed}
        for name in ("name", "topic", "status"):
            if name in changed:
                details[name] = {"old": before[name], "new": getattr(item, name)}
        if "url" in changed:
            details["url_host"] = {"old": url_host(before["url"]), "new": url_host(item.url)}
        audit(session, "webhooks", "changed", item.name, details)
    return item


def delete_webhook(session, item):
    audit(session, "webhooks", "deleted", item.name,
          {"id": item.id, "topic": item.topic, "status": item.status, "url_host": url_host(item.url)})
    # Queued work of the webhook goes with it; its log rows stay in the log.
    session.execute(delete(WebhookDelivery).where(WebhookDelivery.webhook_id == item.id,
                                                  WebhookDelivery.status == PENDING)
                    .execution_options(synchronize_session=False))
    session.delete(item)
    session.flush()


def send_test(request, item):
    """Send a test delivery to the webhook at once and log it; returns the outcome
    (``success``, ``response_code``, ``error``). Commits the request's transaction first."""
    delivery_uuid = str(uuid.uuid4())
    made = utcnow()  # the log's time of the test: when it was asked for, as a change's delivery
    timestamp = local_timestamp(request.db)
    body = envelope_body(TEST_TOPIC, item.id, timestamp, {"test": True})
    attempt = signed_attempt(item.id, item.url, item.secret, TEST_TOPIC, body, delivery_uuid, timestamp)
    # End the request's transaction before the request goes out: a slow receiver must not
    # hold database locks (on SQLite every writer would wait).
    request.tm.commit()
    request.tm.begin()
    outcome = post(webhook_policy(request.registry), attempt)
    delivery = WebhookDelivery(uuid=delivery_uuid, webhook_id=attempt.webhook_id, topic=TEST_TOPIC,
                               body=body.decode("utf-8"), timestamp=timestamp, status=SENDING, claimed_at=utcnow(),
                               created_at=made, queued_at=made)
    request.db.add(delivery)
    request.db.flush()
    record(request.db, delivery.id, attempt, outcome, TEST_TOPIC)
    return outcome


def delivery_log(session, webhook_id, limit=LOG_LIMIT):
    """The webhook's deliveries, newest first by the time the log shows (when each was made: a
    change, a test, a "deliver again"), ties by id; pending and sending ones included (the
    outbox). The time a delivery was made never changes, so the order holds from one reading
    to the next whatever the worker did meanwhile."""
    return session.execute(select(WebhookDelivery).where(WebhookDelivery.webhook_id == webhook_id)
                           .order_by(WebhookDelivery.created_at.desc(), WebhookDelivery.id.desc())
                           .limit(limit)).scalars().all()


def delivery_of(session, webhook_id, delivery_id):
    """Delivery ``delivery_id`` of webhook ``webhook_id`` (a deleted webhook's too), or None
    (also for ids that cannot exist)."""
    delivery = get_by_id(session, WebhookDelivery, delivery_id)
    return delivery if delivery is not None and delivery.webhook_id == webhook_id else None


class CannotDeliverAgain(ValueError):
    """Why a delivery is not sent again (a message for the site owner)."""


def check_deliver_again(webhook, delivery):
    """Raise ``CannotDeliverAgain`` unless ``deliver_again`` would send ``delivery`` again."""
    if webhook is None or webhook.id != delivery.webhook_id:
        raise CannotDeliverAgain("The webhook was deleted: its deliveries cannot be sent again.")
    if delivery.status not in FINISHED:
        raise CannotDeliverAgain(f"This delivery is still {delivery.status}: wait for its outcome.")
    if webhook.status != "active":
        raise CannotDeliverAgain(f"The webhook is {webhook.status}: make it active to deliver again.")


def deliver_again(session, webhook, delivery):
    """A new delivery of ``delivery``'s payload (the same bytes and envelope timestamp), handed
    to the worker after commit like a change's delivery: signed with the webhook's secret and
    sent to its URL as they are when the worker sends it, under a new delivery id (it is a new
    attempt, logged on its own; ``redelivery_of`` names the first). Only a finished delivery of
    an active webhook is sent again: a pending one is still on its way, and a paused or disabled
    webhook's would be skipped."""
    check_deliver_again(webhook, delivery)
    now = utcnow()
    again = WebhookDelivery(uuid=str(uuid.uuid4()), webhook_id=webhook.id, topic=delivery.topic, body=delivery.body,
                            timestamp=delivery.timestamp, status=PENDING, created_at=now, queued_at=now,
                            redelivery_of=delivery.id)
    session.add(again)
    session.flush()
    enqueue_after_commit(session, DELIVER_TASK, again.id)
    return again
