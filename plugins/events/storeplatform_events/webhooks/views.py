"""Webhook routes of ``events/v1``: CRUD and the test delivery (manage_options), the public
topic list."""
from storeplatform.api import Service, get_or_404, local_datetime, paginate, site_timezone

from ..errors import WEBHOOK_INVALID_ID
from ..serialize import NAMESPACE
from . import manage
from .manage import url_policy
from .models import Webhook
from .schemas import WebhookBody, WebhookListQuery, webhook_update
from .topics import topics_json

webhooks = Service("events/v1", "/webhooks", name="webhooks", description="Webhooks (manage_options).")
webhook = Service("events/v1", r"/webhooks/{id:\d+}", name="webhook", description="One webhook.")
webhook_test = Service("events/v1", r"/webhooks/{id:\d+}/test", name="webhook-test",
                       description="Send a test delivery at once.")
webhook_topics = Service("events/v1", "/webhooks/topics", name="webhook-topics",
                         description="Topics a webhook can subscribe to (public).")


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


def _load(request):
    return get_or_404(request.db, Webhook, request.matchdict["id"], WEBHOOK_INVALID_ID)


@webhooks.get(permission="manage_options", query=WebhookListQuery())
def list_webhooks(request):
    v = request.validated
    stmt = manage.webhook_list(status=v.get("status"), topic=v.get("topic"), search=v.get("search") or "")
    tz = site_timezone(request.db)
    return [webhook_json(w, tz) for w in paginate(request, stmt)]


@webhooks.post(permission="manage_options", body=WebhookBody(), bind=url_policy)
def create_webhook(request):
    item = manage.create_webhook(request.db, request.validated)
    request.response.status = 201
    request.response.headers["Location"] = request.rest_url(NAMESPACE, f"/webhooks/{item.id}")
    return webhook_json(item, site_timezone(request.db))


@webhook.get(permission="manage_options")
def get_webhook(request):
    return webhook_json(_load(request), site_timezone(request.db))


@webhook.put(permission="manage_options", body=webhook_update(), bind=url_policy)
def update_webhook(request):
    item = manage.update_webhook(request.db, _load(request), request.validated)
    return webhook_json(item, site_timezone(request.db))


@webhook.delete(permission="manage_options")
def delete_webhook(request):
    item = _load(request)
    previous = webhook_json(item, site_timezone(request.db))
    manage.delete_webhook(request.db, item)
    return {"deleted": True, "previous": previous}


@webhook_test.post(permission="manage_options")
def test_webhook(request):
    outcome = manage.send_test(request, _load(request))
    return {"success": outcome.success, "response_code": outcome.response_code or 0}


@webhook_topics.get()
def list_topics(request):
    return topics_json()
