"""Webhook routes of ``events/v1``: CRUD and the test delivery (manage_options), the public
topic list."""
import secrets
import string
import uuid

from sqlalchemy import delete, or_, select

from storeplatform.api import Service, get_or_404, local_datetime, paginate, site_timezone, utcnow

from ..errors import WEBHOOK_INVALID_ID
from ..queries import ilike
from ..serialize import NAMESPACE
from .delivery import post, signed_attempt
from .models import PENDING, SENDING, Webhook, WebhookDelivery
from .outbox import record
from .payloads import envelope_body, local_timestamp
from .schemas import WebhookBody, WebhookListQuery, webhook_update
from .settings import webhook_policy
from .topics import TEST_TOPIC, topics_json

SECRET_ALPHABET = string.ascii_letters + string.digits

webhooks = Service("events/v1", "/webhooks", name="webhooks", description="Webhooks (manage_options).")
webhook = Service("events/v1", r"/webhooks/{id:\d+}", name="webhook", description="One webhook.")
webhook_test = Service("events/v1", r"/webhooks/{id:\d+}/test", name="webhook-test",
                       description="Send a test delivery at once.")
webhook_topics = Service("events/v1", "/webhooks/topics", name="webhook-topics",
                         description="Topics a webhook can subscribe to (public).")


def new_secret():
    return "".join(secrets.choice(SECRET_ALPHABET) for _ in range(32))


def webhook_json(item, tz):
    return {
        "id": item.id,
        "name": item.name,
        "url": item.url,
        "delivery_url": item.url,
        "topic": item.topic,
        "secret": item.secret,
        "status": item.status,
        "failures": item.failures,
        "created_at": local_datetime(item.created_at, tz),
        "updated_at": local_datetime(item.updated_at, tz),
    }


def url_policy(request):
    """The bindings of a webhook body: the site's webhook settings, which the URL is checked with."""
    return {"policy": webhook_policy(request.registry)}


def _load(request):
    return get_or_404(request.db, Webhook, request.matchdict["id"], WEBHOOK_INVALID_ID)


@webhooks.get(permission="manage_options", query=WebhookListQuery())
def list_webhooks(request):
    v = request.validated
    stmt = select(Webhook)
    if "status" in v:
        stmt = stmt.where(Webhook.status == v["status"])
    if "topic" in v:
        stmt = stmt.where(Webhook.topic == v["topic"])
    if v.get("search"):
        stmt = stmt.where(or_(ilike(Webhook.name, v["search"]), ilike(Webhook.url, v["search"])))
    tz = site_timezone(request.db)
    return [webhook_json(w, tz) for w in paginate(request, stmt.order_by(Webhook.id))]


@webhooks.post(permission="manage_options", body=WebhookBody(), bind=url_policy)
def create_webhook(request):
    v = request.validated
    now = utcnow()
    item = Webhook(name=v["name"].strip(), url=v["url"].strip(), topic=v["topic"],
                   secret=v.get("secret") or new_secret(), status=v["status"], failures=0,
                   created_at=now, updated_at=now)
    request.db.add(item)
    request.db.flush()
    request.response.status = 201
    request.response.headers["Location"] = request.rest_url(NAMESPACE, f"/webhooks/{item.id}")
    return webhook_json(item, site_timezone(request.db))


@webhook.get(permission="manage_options")
def get_webhook(request):
    return webhook_json(_load(request), site_timezone(request.db))


@webhook.put(permission="manage_options", body=webhook_update(), bind=url_policy)
def update_webhook(request):
    item = _load(request)
    v = request.validated
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
    request.db.flush()
    return webhook_json(item, site_timezone(request.db))


@webhook.delete(permission="manage_options")
def delete_webhook(request):
    item = _load(request)
    previous = webhook_json(item, site_timezone(request.db))
    # Queued work of the webhook goes with it; its log rows stay in the log.
    request.db.execute(delete(WebhookDelivery).where(WebhookDelivery.webhook_id == item.id,
                                                     WebhookDelivery.status == PENDING)
                       .execution_options(synchronize_session=False))
    request.db.delete(item)
    request.db.flush()
    return {"deleted": True, "previous": previous}


@webhook_test.post(permission="manage_options")
def test_webhook(request):
    item = _load(request)
    delivery_uuid = str(uuid.uuid4())
    timestamp = local_timestamp(request.db)
    body = envelope_body(TEST_TOPIC, item.id, timestamp, {"test": True})
    attempt = signed_attempt(item.id, item.url, item.secret, TEST_TOPIC, body, delivery_uuid, timestamp)
    # End the request's transaction before the request goes out: a slow receiver must not
    # hold database locks (on SQLite every writer would wait).
    request.tm.commit()
    request.tm.begin()
    outcome = post(webhook_policy(request.registry), attempt)
    delivery = WebhookDelivery(uuid=delivery_uuid, webhook_id=attempt.webhook_id, topic=TEST_TOPIC,
                               body=body.decode("utf-8"), timestamp=timestamp, status=SENDING, claimed_at=utcnow())
    request.db.add(delivery)
    request.db.flush()
    record(request.db, delivery.id, attempt, outcome, TEST_TOPIC)
    return {"success": outcome.success, "response_code": outcome.response_code or 0}


@webhook_topics.get()
def list_topics(request):
    return topics_json()
