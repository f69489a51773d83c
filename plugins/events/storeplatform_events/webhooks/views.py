"""Webhook routes of ``events/v1``: CRUD and the test delivery (manage_options), the public
topic list."""
import secrets
import string
import uuid

from sqlalchemy import delete, or_, select

from storeplatform.db import get_by_id
from storeplatform.db.types import utcnow
from storeplatform.rest import RestError, invalid_params, paginate
from storeplatform.store.content import local_datetime
from storeplatform.store.options import site_timezone

from ..serialize import rest_base
from .delivery import delivery_headers, post
from .models import PENDING, SENDING, Webhook, WebhookDelivery
from .payloads import envelope_body, local_timestamp
from .schemas import WebhookBody, WebhookListQuery, webhook_update
from .settings import webhook_settings
from .targets import url_problem
from .tasks import record
from .topics import TEST_TOPIC, topics_json

SECRET_ALPHABET = string.ascii_letters + string.digits


def new_secret():
    return "".join(secrets.choice(SECRET_ALPHABET) for _ in range(32))


def _ilike(column, text):
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return column.ilike(f"%{escaped}%", escape="\\")


def webhook_json(webhook, tz):
    return {
        "id": webhook.id,
        "name": webhook.name,
        "url": webhook.url,
        "delivery_url": webhook.url,
        "topic": webhook.topic,
        "secret": webhook.secret,
        "status": webhook.status,
        "failures": webhook.failures,
        "created_at": local_datetime(webhook.created_at, tz),
        "updated_at": local_datetime(webhook.updated_at, tz),
    }


def _check_url(request, url):
    problem = url_problem(url.strip(), webhook_settings(request.registry.settings))
    if problem:
        raise invalid_params({"url": f"url {problem}"})
    return url.strip()


def _load(request):
    webhook = get_by_id(request.db, Webhook, request.matchdict["id"])
    if webhook is None:
        raise RestError(404, "evt_rest_webhook_invalid_id", "Invalid webhook ID.")
    return webhook


def add_routes(config, ns):
    collection = ns.service(config, "webhooks", "/webhooks", "Webhooks (manage_options).")
    item = ns.service(config, "webhook", r"/webhooks/{id:\d+}", "One webhook.")
    test = ns.service(config, "webhook-test", r"/webhooks/{id:\d+}/test", "Send a test delivery at once.")
    topics = ns.service(config, "webhook-topics", "/webhooks/topics", "Topics a webhook can subscribe to (public).")

    @topics.get()
    def list_topics(request):
        return topics_json()

    @collection.get(permission="manage_options", query=WebhookListQuery())
    def list_webhooks(request):
        v = request.validated
        stmt = select(Webhook)
        if "status" in v:
            stmt = stmt.where(Webhook.status == v["status"])
        if "topic" in v:
            stmt = stmt.where(Webhook.topic == v["topic"])
        if v.get("search"):
            stmt = stmt.where(or_(_ilike(Webhook.name, v["search"]), _ilike(Webhook.url, v["search"])))
        tz = site_timezone(request.db)
        return [webhook_json(w, tz) for w in paginate(request, stmt.order_by(Webhook.id))]

    @collection.post(permission="manage_options", body=WebhookBody())
    def create_webhook(request):
        v = request.validated
        now = utcnow()
        webhook = Webhook(name=v["name"].strip(), url=_check_url(request, v["url"]), topic=v["topic"],
                          secret=v.get("secret") or new_secret(), status=v["status"], failures=0,
                          created_at=now, updated_at=now)
        request.db.add(webhook)
        request.db.flush()
        request.response.status = 201
        request.response.headers["Location"] = f"{rest_base(request)}/webhooks/{webhook.id}"
        return webhook_json(webhook, site_timezone(request.db))

    @item.get(permission="manage_options")
    def get_webhook(request):
        return webhook_json(_load(request), site_timezone(request.db))

    @item.put(permission="manage_options", body=webhook_update())
    def update_webhook(request):
        webhook = _load(request)
        v = request.validated
        if "url" in v:
            webhook.url = _check_url(request, v["url"])
        if "name" in v:
            webhook.name = v["name"].strip()
        if "topic" in v:
            webhook.topic = v["topic"]
        if "secret" in v:
            webhook.secret = v["secret"] or new_secret()
        if "status" in v and v["status"] != webhook.status:
            if v["status"] == "active":
                # Resuming gives the receiver a fresh run of five chances.
                webhook.failures = 0
            webhook.status = v["status"]
        webhook.updated_at = utcnow()
        request.db.flush()
        return webhook_json(webhook, site_timezone(request.db))

    @item.delete(permission="manage_options")
    def delete_webhook(request):
        webhook = _load(request)
        previous = webhook_json(webhook, site_timezone(request.db))
        # Queued work of the webhook goes with it; its log rows stay in the log.
        request.db.execute(delete(WebhookDelivery).where(WebhookDelivery.webhook_id == webhook.id,
                                                         WebhookDelivery.status == PENDING)
                           .execution_options(synchronize_session=False))
        request.db.delete(webhook)
        request.db.flush()
        return {"deleted": True, "previous": previous}

    @test.post(permission="manage_options")
    def test_webhook(request):
        webhook = _load(request)
        webhook_id, url, secret = webhook.id, webhook.url, webhook.secret
        delivery_uuid = str(uuid.uuid4())
        timestamp = local_timestamp(request.db)
        body = envelope_body(TEST_TOPIC, webhook_id, timestamp, {"test": True})
        headers = delivery_headers(webhook_id, TEST_TOPIC, secret, body, delivery_uuid, timestamp)
        # End the request's transaction before the request goes out: a slow receiver must not
        # hold database locks (on SQLite every writer would wait).
        request.tm.commit()
        request.tm.begin()
        outcome = post(webhook_settings(request.registry.settings), url, body, headers)
        delivery = WebhookDelivery(uuid=delivery_uuid, webhook_id=webhook_id, topic=TEST_TOPIC,
                                   body=body.decode("utf-8"), status=SENDING, claimed_at=utcnow())
        request.db.add(delivery)
        request.db.flush()
        record(request.db, delivery.id, webhook_id, outcome, url, headers)
        return {"success": outcome.success, "response_code": outcome.response_code or 0}
