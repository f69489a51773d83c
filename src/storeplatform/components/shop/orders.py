"""Orders: creation and status changes, each firing its host action exactly once."""
import secrets
from decimal import Decimal

from sqlalchemy import select, update

from storeplatform.core.db import get_by_id, hooks_of
from storeplatform.core.db.types import utcnow
from storeplatform.core.errors import InvalidParams
from storeplatform.core.plugins import call_action
from storeplatform.core.values import id_in_range
from .models import Order, OrderItem, Product, User
from storeplatform.core.options import site_options
from .products import current_price

STATUSES = ("pending", "processing", "on-hold", "completed", "cancelled", "refunded", "failed")
PAID_STATUSES = ("processing", "completed")
# What a money column (NUMERIC(18, 4)) holds before the point: totals stay exact below it.
COLUMN_LIMIT = Decimal(10) ** 14


def new_order_key():
    return "order_" + secrets.token_urlsafe(18)


def load_products(session, ids):
    """The products ``ids`` names (those that can exist), by id, in one query."""
    ids = {i for i in ids if id_in_range(i)}
    if not ids:
        return {}
    return {p.id: p for p in session.execute(select(Product).where(Product.id.in_(ids))).scalars()}


def line_problems(product, product_id, quantity):
    """What is wrong with ordering ``quantity`` of ``product`` (None when it does not exist),
    as ``{field: message}``; empty when the line can be ordered."""
    if product is None:
        return {"product_id": f"product {product_id} does not exist"}
    if product.type == "variable":
        return {"product_id": "a variable product cannot be ordered; order one of its variations"}
    price = current_price(product)
    if price is None:
        return {"product_id": f"product {product.id} has no price"}
    if quantity is not None and price * quantity >= COLUMN_LIMIT:
        return {"quantity": "the line total is more than an order can hold"}
    return {}


def build_line_items(session, items, errors):
    """Line items priced from the products, in Decimal. ``items``: [{product_id, quantity}];
    what is wrong with them is added to ``errors``."""
    products = load_products(session, [item["product_id"] for item in items])
    lines = []
    for index, item in enumerate(items):
        product = products.get(item["product_id"])
        problems = line_problems(product, item["product_id"], item["quantity"])
        if problems:
            errors.update({f"line_items.{index}.{field}": message for field, message in problems.items()})
            continue
        price = current_price(product)
        lines.append(OrderItem(product_id=product.id, name=product.name, quantity=item["quantity"],
                               unit_price=price, total=price * item["quantity"]))
    return lines


def create_order(session, *, line_items, billing=None, status="pending", currency=None, customer_id=None):
    """Create an order and fire its actions; ``InvalidParams`` names every bad reference."""
    errors = {}
    lines = build_line_items(session, line_items, errors)
    if not errors and sum((line.total for line in lines), Decimal(0)) >= COLUMN_LIMIT:
        errors["line_items"] = "the order total is more than an order can hold"
    if customer_id and get_by_id(session, User, customer_id) is None:
        errors["customer_id"] = f"no user with id {customer_id}"
    if errors:
        raise InvalidParams(errors)
    order = Order(
        status=status,
        order_key=new_order_key(),
        currency=currency or site_options(session)["store.currency"],
        billing=normalize_billing(billing or {}),
        customer_id=customer_id,
        total=sum((line.total for line in lines), Decimal("0")),
        line_items=lines,
    )
    session.add(order)
    session.flush()
    hook = hooks_of(session)
    call_action(hook.storeplatform_order_created, order=order)
    if status != "pending":
        call_action(hook.storeplatform_order_status_changed, order=order, old_status="pending", new_status=status)
    return order


def set_order_status(session, order, new_status):
    """Change the status with a conditional UPDATE, so that two processes changing the same
    order at once fire the action once. Returns True when this call made the change."""
    old_status = order.status
    if new_status == old_status:
        return False
    result = session.execute(
        update(Order).where(Order.id == order.id, Order.status == old_status)
        .values(status=new_status, modified_at=utcnow()).execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:
        session.refresh(order)
        return False
    session.refresh(order)
    hook = hooks_of(session)
    call_action(hook.storeplatform_order_status_changed, order=order, old_status=old_status, new_status=new_status)
    return True


BILLING_FIELDS = ("first_name", "last_name", "company", "address_1", "address_2", "city", "state", "postcode",
                  "country", "email", "phone")


def normalize_billing(billing):
    return {name: str(billing.get(name) or "") for name in BILLING_FIELDS}


def delete_order(session, order):
    """Delete an order for good; ``storeplatform_order_deleted`` fires first, in the same
    transaction, so that what belongs to the order goes with it."""
    call_action(hooks_of(session).storeplatform_order_deleted, order=order)
    session.delete(order)
    session.flush()
