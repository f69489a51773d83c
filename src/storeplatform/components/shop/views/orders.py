"""store/v1 orders (manage_shop): list, create, read, update billing and status, delete."""
from sqlalchemy.exc import IntegrityError

from storeplatform.core.db import get_by_id, get_or_404
from storeplatform.core.db.counts import count_rows
from storeplatform.core.rest import Service, json_body, paginate
from .. import schemas
from ..errors import ORDER_IN_USE, ORDER_INVALID_ID
from ..models import Order, User
from ..orders import (create_order, delete_order, load_products, normalize_billing, order_conditions, orders_select,
                      set_order_status)

orders = Service("store/v1", "/orders", name="orders", description="Store orders.")
order = Service("store/v1", r"/orders/{id:\d+}", name="order", description="One store order.")


def order_json(request, item):
    return {
        "id": item.id,
        "number": item.number,
        "status": item.status,
        "order_key": item.order_key,
        "currency": item.currency,
        "customer_id": item.customer_id or 0,
        "billing": item.billing,
        "total": item.total,
        "line_items": [
            {"id": li.id, "product_id": li.product_id, "name": li.name, "quantity": li.quantity,
             "price": li.unit_price, "total": li.total}
            for li in item.line_items
        ],
        "date_created": item.created_at.isoformat(),
        "date_modified": item.modified_at.isoformat(),
        "_links": {"self": [{"href": request.rest_url("store/v1", f"/orders/{item.id}")}]},
    }


# An accounting tool or a box office polls the orders between sales: their answers are cached
# (a new or changed order anywhere moves the ``store`` generation on).

@orders.get(permission="manage_shop", query=schemas.OrderListQuery(), cache="public")
def list_orders(request):
    v = request.validated
    conditions = order_conditions(status=v.get("status"))
    # The total is the count per status the database keeps; the page's offset is walked on the
    # ids (an index), and only the page's orders are read.
    total = count_rows(request.db, Order, **({"status": v["status"]} if "status" in v else {}))
    return [order_json(request, o) for o in paginate(request, orders_select(conditions), total=total,
                                                     keys=orders_select(conditions, Order.id))]


def order_references(request):
    """What the order body's reference checks read: its products (one query, from the raw
    body's ids) and users by id."""
    loaded = []

    def products():
        if not loaded:
            lines = json_body(request).get("line_items")
            ids = [line.get("product_id") for line in lines if isinstance(line, dict)] if isinstance(lines, list) else []
            loaded.append(load_products(request.db, [i for i in ids if isinstance(i, int) and not isinstance(i, bool)]))
        return loaded[0]

    return {"products": products, "users": lambda user_id: get_by_id(request.db, User, user_id) is not None}


@orders.post(permission="manage_shop", body=schemas.OrderBody(), bind=order_references)
def post_order(request):
    v = request.validated
    item = create_order(request.db, line_items=v["line_items"], billing=v.get("billing"), status=v["status"],
                        currency=v.get("currency"), customer_id=v.get("customer_id"))
    request.response.status = 201
    request.response.headers["Location"] = request.rest_url("store/v1", f"/orders/{item.id}")
    return order_json(request, item)


@order.get(permission="manage_shop", cache="public")
def get_order(request):
    return order_json(request, get_or_404(request.db, Order, request.validated["id"], ORDER_INVALID_ID))


@order.put(permission="manage_shop", body=schemas.OrderUpdate())
def put_order(request):
    item = get_or_404(request.db, Order, request.validated["id"], ORDER_INVALID_ID)
    v = request.validated
    if "billing" in v:
        item.billing = normalize_billing(v["billing"])
        request.db.flush()
    if "status" in v:
        set_order_status(request.db, item, v["status"])
    return order_json(request, item)


@order.delete(permission="manage_shop")
def remove_order(request):
    item = get_or_404(request.db, Order, request.validated["id"], ORDER_INVALID_ID)
    previous = order_json(request, item)
    try:
        delete_order(request.db, item)
    except IntegrityError:
        raise ORDER_IN_USE()
    return {"deleted": True, "previous": previous}
