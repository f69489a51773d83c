"""store/v1 order refunds (manage_shop, as the orders), in WooCommerce's shape (REST API v3
order refunds): list, create, read. Money travels as text ("12.50") and is read exactly; a
refund cannot be deleted (docs/decisions.md)."""
from datetime import timezone
from decimal import Decimal

from sqlalchemy import select

from storeplatform.core.db import get_or_404
from storeplatform.core.options import site_timezone
from storeplatform.core.rest import Service, json_body, paginate
from storeplatform.core.rest.types import once
from ..content import local_datetime
from ..errors import ORDER_INVALID_ID, ORDER_REFUND_INVALID_ID
from ..models import Order, OrderItem
from ..money import amount_text
from ..order_history_schemas import RefundBody, RefundListQuery
from ..refunds import refund_of, refund_order, refunds_select

refunds = Service("store/v1", r"/orders/{id:\d+}/refunds", name="order-refunds",
                  description="Refunds of a store order: money given back, whole or per line, with a reason.")
refund = Service("store/v1", r"/orders/{id:\d+}/refunds/{refund_id:\d+}", name="order-refund",
                 description="One refund of a store order.")


def refund_json(request, order, item, tz):
    decimals = request.site_options["store.decimals"]
    lines = {line.id: line for line in order.line_items}
    path = f"/orders/{order.id}/refunds"
    return {
        "id": item.id,
        "date_created": local_datetime(item.created_at, tz),
        "date_created_gmt": local_datetime(item.created_at, timezone.utc),
        "amount": amount_text(item.amount, decimals),
        "reason": item.reason,
        "refunded_by": item.refunded_by or 0,
        "line_items": [{"id": line.id, "item_id": line.order_item_id, "name": lines[line.order_item_id].name,
                        "product_id": lines[line.order_item_id].product_id or 0, "quantity": line.quantity,
                        "refund_total": amount_text(line.refund_total, decimals)}
                       for line in item.line_items],
        "_links": {"self": [{"href": request.rest_url("store/v1", f"{path}/{item.id}")}],
                   "collection": [{"href": request.rest_url("store/v1", path)}],
                   "up": [{"href": request.rest_url("store/v1", f"/orders/{order.id}")}]},
    }


def _order(request):
    return get_or_404(request.db, Order, request.validated["id"], ORDER_INVALID_ID)


def decimal_body(request):
    # Numbers as Decimal: an amount sent as a JSON number is read with the digits written.
    return json_body(request, parse_float=Decimal)


def refund_references(request):
    """The ids of the order's lines, read once when a line id is checked (none when the order
    does not exist: its lines are then named as not of it, beside every other bad field)."""
    def order_lines():
        return set(request.db.execute(select(OrderItem.id).where(OrderItem.order_id == request.validated["id"]))
                   .scalars())

    return {"order_lines": once(order_lines)}


@refunds.get(permission="manage_shop", query=RefundListQuery(), cache="public")
def list_refunds(request):
    order = _order(request)
    tz = site_timezone(request.db)
    return [refund_json(request, order, item, tz) for item in paginate(request, refunds_select(order.id))]


@refunds.post(permission="manage_shop", body=RefundBody(), body_reader=decimal_body, bind=refund_references)
def post_refund(request):
    v = request.validated
    order = _order(request)
    item = refund_order(request.db, order, amount=v["amount"], reason=v["reason"], line_items=v["line_items"])
    request.response.status = 201
    request.response.headers["Location"] = request.rest_url("store/v1", f"/orders/{order.id}/refunds/{item.id}")
    return refund_json(request, order, item, site_timezone(request.db))


@refund.get(permission="manage_shop", cache="public")
def get_refund(request):
    order = _order(request)
    item = refund_of(request.db, order, request.validated["refund_id"])
    if item is None:
        raise ORDER_REFUND_INVALID_ID()
    return refund_json(request, order, item, site_timezone(request.db))
