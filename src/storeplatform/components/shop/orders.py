"""Orders: the lists' statements (REST's and the admin's), creation and status changes (each
firing its host action exactly once), deletion."""
import secrets
from decimal import Decimal

from sqlalchemy import String, literal_column, select, union, update

from storeplatform.core.db import get_by_id, hooks_of
from storeplatform.core.db.text_search import contains_pattern, text_contains
from storeplatform.core.db.types import utcnow
from storeplatform.core.errors import InvalidParams
from storeplatform.core.plugins import call_action
from storeplatform.core.values import id_in_range
from .models import ORDER_BILLING_TEXT, ORDER_GUEST_EMAIL, Order, OrderItem, Product, User
from .order_notes import add_order_note
from storeplatform.core.options import site_options
from .products import current_price

STATUSES = ("pending", "processing", "on-hold", "completed", "cancelled", "refunded", "failed")
PAID_STATUSES = ("processing", "completed")
# How the order's history names a status (WooCommerce's words).
STATUS_LABELS = {"pending": "Pending payment", "processing": "Processing", "on-hold": "On hold",
                 "completed": "Completed", "cancelled": "Cancelled", "refunded": "Refunded", "failed": "Failed"}
# What a money column (NUMERIC(18, 4)) holds before the point: totals stay exact below it.
COLUMN_LIMIT = Decimal(10) ** 14


# The billing name and e-mail address as one lower-case text, searched as a whole ("ann lee"
# finds Ann Lee): the very expression of the index ix_orders_billing_trgm (a GIN trigram index on
# PostgreSQL), so that a search reads the index instead of every order's JSON.
BILLING_TEXT = literal_column(ORDER_BILLING_TEXT, String)
BILLING_EMAIL = Order.billing["email"].as_string()
# A guest buyer (an order without an account) is known by this: the billing e-mail address,
# lower-cased and trimmed, the very expression of the index ix_orders_guest_email.
GUEST_EMAIL = literal_column(ORDER_GUEST_EMAIL, String)
BILLING_FIRST = Order.billing["first_name"].as_string()
BILLING_LAST = Order.billing["last_name"].as_string()
# An order with its customer's account, for a table of orders (the admin's): each row is these
# columns, read with ``orders_select(..., *SUMMARY, customer=True)``.
SUMMARY = (Order.id, Order.created_at, Order.status, Order.currency, Order.total, Order.customer_id,
           BILLING_FIRST, BILLING_LAST, BILLING_EMAIL, User.login, User.display_name, User.email)


def order_conditions(*, status=None, customer_id=None, created_from=None, created_before=None, search=None,
                     guest_email=None):
    """The conditions of an orders list: a status, a customer's account, a guest buyer's orders
    (``guest_email``: no account, that billing e-mail address whatever its case and blanks), a range of creation
    times (UTC, the end excluded), and a search: a number (``#12`` or ``12``) is an order's
    number, any other text is looked for in the billing name and e-mail address (the trigram
    index) and in the login, name and e-mail address of the customer's account."""
    conditions = []
    if status:
        conditions.append(Order.status == status)
    if customer_id is not None:
        conditions.append(Order.customer_id == customer_id)
    if guest_email is not None:
        conditions += [Order.customer_id.is_(None), GUEST_EMAIL == guest_email.strip().lower()]
    if created_from is not None:
        conditions.append(Order.created_at >= created_from)
    if created_before is not None:
        conditions.append(Order.created_at < created_before)
    if search:
        conditions.append(_search_condition(search))
    return conditions


def _search_condition(search):
    number = search.removeprefix("#")
    if number.isascii() and number.isdigit():
        # A number is an order's number (an order's id: beyond the column, none).
        return Order.id == (int(number) if id_in_range(int(number)) else 0)
    accounts = select(User.id).where(text_contains(User.login, search) | text_contains(User.display_name, search) |
                                     text_contains(User.email, search))
    found = union(select(Order.id).where(BILLING_TEXT.like(contains_pattern(search), escape="\\")),
                  select(Order.id).where(Order.customer_id.in_(accounts)))
    return Order.id.in_(select(found.subquery().c.id))


# What a list of orders sorts by (the admin's ``orderby``), each ending with the id (a total
# order, which a page walk needs) and read from an index in that order (``Order``'s).
ORDERBY = {"id": (Order.id,), "date": (Order.created_at, Order.id), "total": (Order.total, Order.id),
           "status": (Order.status, Order.id)}


def orders_select(conditions, *columns, customer=False, orderby="id", order="desc"):
    """The orders matching ``conditions``, newest first (or by ``orderby``, a key of ``ORDERBY``,
    in ``order``): whole orders (REST), or ``columns`` (the admin's ``SUMMARY`` with
    ``customer``, the customer's account joined; ``Order.id`` alone: a page walk's keys; the
    columns of an export)."""
    stmt = select(*(columns or (Order,)))
    if customer:
        stmt = stmt.outerjoin(User, User.id == Order.customer_id)
    return stmt.where(*conditions).order_by(*(c.desc() if order == "desc" else c.asc() for c in ORDERBY[orderby]))


def order_lines_select(conditions, *columns):
    """Each line of the orders matching ``conditions`` (``columns`` of the order and the line),
    newest order first, its lines in their order."""
    return select(*columns).join(OrderItem, OrderItem.order_id == Order.id).where(*conditions) \
        .order_by(Order.id.desc(), OrderItem.id)


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
    if product.status == "trash":
        return {"product_id": f"product {product.id} is in the trash"}
    if product.type == "variable":
        return {"product_id": "a variable product cannot be ordered; order one of its variations"}
    price = current_price(product)
    if price is None:
        return {"product_id": f"product {product.id} has no price"}
    if quantity is not None and price * quantity >= COLUMN_LIMIT:
        return {"quantity": "the line total is more than an order can hold"}
    return {}


def plugin_line_problems(session, product, quantity):
    """The plugins' rules of ordering ``quantity`` of ``product`` now
    (``storeplatform_order_line_problems``: a ticket's sale window and places left)."""
    problems = {}
    for found in hooks_of(session).storeplatform_order_line_problems(session=session, product=product,
                                                                      quantity=quantity):
        for field, message in (found or {}).items():
            problems.setdefault(field, message)
    return problems


def build_line_items(session, items, errors):
    """Line items priced from the products, in Decimal. ``items``: [{product_id, quantity}];
    what is wrong with them is added to ``errors``."""
    products = load_products(session, [item["product_id"] for item in items])
    lines = []
    for index, item in enumerate(items):
        product = products.get(item["product_id"])
        problems = line_problems(product, item["product_id"], item["quantity"]) or \
            plugin_line_problems(session, product, item["quantity"])
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
        add_status_note(session, order, "pending", status)
        call_action(hook.storeplatform_order_status_changed, order=order, old_status="pending", new_status=status)
    return order


def add_status_note(session, order, old_status, new_status):
    """The history's line of a status change, before the plugins' actions add theirs."""
    add_order_note(session, order, f"Order status changed from {STATUS_LABELS[old_status]} to "
                                   f"{STATUS_LABELS[new_status]}.")


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
    add_status_note(session, order, old_status, new_status)
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
