"""The webhooks pages of the admin (manage_options, as the REST routes): the list with status and
failures, create, edit, pause/resume, delete, the test button, each webhook's delivery log and
each delivery's page (its request and response) with "Deliver again". Every read of the list and
the log and every change goes through ``manage``, the code of the REST routes."""
import json

from pyramid.httpexceptions import HTTPNotFound

from storeplatform.api import (AdminPage, InvalidParams, admin_redirect, admin_view, form_values, get_by_id,
                               id_in_range, refuse_form, site_timezone)

from . import manage
from .delivery import MAX_SHOWN_BODY
from .models import WEBHOOK_STATUSES, Webhook, WebhookDelivery
from .topics import FIRED_TOPICS, TOPICS

WEBHOOKS = AdminPage("webhooks", "Webhooks", "/webhooks", "manage_options", order=92, section="Site")
ONE = r"/{id:\d+}"
DELIVERY = ONE + r"/deliveries/{delivery_id:\d+}"
FORM = "events/webhook_form.jinja2"
FIELDS = ("name", "url", "topic", "secret", "status")
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def _load(request):
    item = get_by_id(request.db, Webhook, request.matchdict["id"])
    if item is None:
        raise HTTPNotFound()
    return item


def _form_page(item, values, errors):
    title = f"Edit webhook {item.name}" if item else "New webhook"
    return {"title": title, "item": item, "values": values, "errors": errors,
            "topics": [(name, text, name in FIRED_TOPICS) for name, text in TOPICS.items()],
            "statuses": WEBHOOK_STATUSES}


def _sent(request):
    form = form_values(request)
    return {name: form[name] for name in FIELDS if name in form}


@admin_view(WEBHOOKS, template="events/webhooks.jinja2")
def list_webhooks(request):
    hooks = request.db.execute(manage.webhook_list()).scalars().all()
    return {"title": "Webhooks", "webhooks": hooks}


@admin_view(WEBHOOKS, path="/new", template=FORM)
def new_webhook(request):
    return _form_page(None, {"status": "active", "topic": "event.created"}, {})


@admin_view(WEBHOOKS, path="/new", request_method="POST", template=FORM)
def create_webhook(request):
    values = _sent(request)
    try:
        item = manage.create_webhook(request.db, manage.validated_body(request, values))
    except InvalidParams as exc:
        refuse_form(request)
        return _form_page(None, values, exc.params)
    return admin_redirect(request, "/webhooks", notice=f"Webhook {item.name} created.")


@admin_view(WEBHOOKS, path=ONE + "/edit", template=FORM)
def edit_webhook(request):
    item = _load(request)
    return _form_page(item, {name: getattr(item, name) for name in FIELDS}, {})


@admin_view(WEBHOOKS, path=ONE + "/edit", request_method="POST", template=FORM)
def save_webhook(request):
    item = _load(request)
    values = _sent(request)
    try:
        manage.update_webhook(request.db, item, manage.validated_body(request, values, partial=True))
    except InvalidParams as exc:
        refuse_form(request)
        return _form_page(item, {**{name: getattr(item, name) for name in FIELDS}, **values}, exc.params)
    return admin_redirect(request, "/webhooks", notice=f"Webhook {item.name} saved.")


@admin_view(WEBHOOKS, path=ONE + "/pause", request_method="POST")
def pause_webhook(request):
    item = manage.update_webhook(request.db, _load(request), {"status": "paused"})
    return admin_redirect(request, "/webhooks", notice=f"Webhook {item.name} paused.")


@admin_view(WEBHOOKS, path=ONE + "/resume", request_method="POST")
def resume_webhook(request):
    item = manage.update_webhook(request.db, _load(request), {"status": "active"})
    return admin_redirect(request, "/webhooks", notice=f"Webhook {item.name} is active again.")


@admin_view(WEBHOOKS, path=ONE + "/delete", template="events/webhook_delete.jinja2")
def confirm_delete(request):
    item = _load(request)
    return {"title": f"Delete webhook {item.name}", "item": item}


@admin_view(WEBHOOKS, path=ONE + "/delete", request_method="POST")
def delete_webhook(request):
    item = _load(request)
    name = item.name
    manage.delete_webhook(request.db, item)
    return admin_redirect(request, "/webhooks", notice=f"Webhook {name} deleted; its delivery log stays.")


@admin_view(WEBHOOKS, path=ONE + "/test", request_method="POST")
def test_webhook(request):
    item = _load(request)
    webhook_id, name = item.id, item.name
    outcome = manage.send_test(request, item)
    code = outcome.response_code or 0
    if outcome.success:
        notice = f"Test delivery to {name}: response {code}."
    else:
        notice = f"Test delivery to {name} failed: response {code}" + (f" ({outcome.error})." if outcome.error else ".")
    return admin_redirect(request, f"/webhooks/{webhook_id}/deliveries", notice=notice)


def _webhook_id(request):
    """The webhook id of the URL, or the 404 page for one beyond the integer columns."""
    webhook_id = int(request.matchdict["id"])
    if not id_in_range(webhook_id):
        raise HTTPNotFound()
    return webhook_id


@admin_view(WEBHOOKS, path=ONE + "/deliveries", template="events/webhook_deliveries.jinja2")
def deliveries(request):
    webhook_id = _webhook_id(request)
    item = get_by_id(request.db, Webhook, webhook_id)
    rows = manage.delivery_log(request.db, webhook_id)
    if item is None and not rows:
        raise HTTPNotFound()  # a deleted webhook's rows stay in the log and are still shown
    tz = site_timezone(request.db)
    return {"title": f"Deliveries of {item.name}" if item else f"Deliveries of deleted webhook {webhook_id}",
            "item": item, "webhook_id": webhook_id, "limit": manage.LOG_LIMIT,
            "rows": [_row(d, tz) for d in rows]}


def _local(moment, tz):
    return moment.astimezone(tz).strftime(TIME_FORMAT) if moment is not None else None


def _row(delivery: WebhookDelivery, tz):
    # The time shown is the one the log is ordered by: when the delivery was made.
    return {"id": delivery.id, "time": _local(delivery.created_at, tz), "topic": delivery.topic,
            "uuid": delivery.uuid, "status": delivery.status, "response_code": delivery.response_code,
            "duration_ms": delivery.duration_ms, "error": delivery.error, "again": delivery.redelivery_of is not None}


def _delivery(request):
    """(webhook or None, delivery) of the URL; the 404 page when the delivery is not the webhook's."""
    webhook_id = _webhook_id(request)
    delivery_id = int(request.matchdict["delivery_id"])
    delivery = manage.delivery_of(request.db, webhook_id, delivery_id) if id_in_range(delivery_id) else None
    if delivery is None:
        raise HTTPNotFound()
    return get_by_id(request.db, Webhook, webhook_id), delivery


def pretty_json(text):
    """The payload laid out for reading (the exact bytes sent are shown beside it), or None
    when it is not JSON."""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return None


@admin_view(WEBHOOKS, path=DELIVERY, template="events/webhook_delivery.jinja2")
def delivery_page(request):
    item, delivery = _delivery(request)
    tz = site_timezone(request.db)
    problem = None
    try:
        manage.check_deliver_again(item, delivery)
    except manage.CannotDeliverAgain as exc:
        problem = str(exc)
    return {"title": f"Delivery {delivery.uuid}", "item": item, "webhook_id": delivery.webhook_id, "d": delivery,
            "made": _local(delivery.created_at, tz), "attempted": _local(delivery.attempted_at, tz),
            "finished": _local(delivery.finished_at, tz), "payload": pretty_json(delivery.body),
            "headers": sorted((delivery.request_headers or {}).items()),
            "shown_bytes": MAX_SHOWN_BODY, "again_problem": problem}


@admin_view(WEBHOOKS, path=DELIVERY + "/again", request_method="POST")
def deliver_again(request):
    item, delivery = _delivery(request)
    path = f"/webhooks/{delivery.webhook_id}/deliveries"
    try:
        again = manage.deliver_again(request.db, item, delivery)
    except manage.CannotDeliverAgain as exc:
        return admin_redirect(request, f"{path}/{delivery.id}", notice=f"Not sent again: {exc}")
    return admin_redirect(request, path, notice=f"Delivery queued again as {again.uuid}; the worker sends it.")
