"""The Orders pages of the admin: the list (search by number, customer or e-mail, status,
dates, paging), its CSV export (one row per order, or per line), and an order's page (its
lines, totals, customer, documents, and its status changed as REST's order update changes it:
the same validation, the same ``storeplatform_order_status_changed`` action and so the same
webhooks)."""
from pyramid.httpexceptions import HTTPBadRequest, HTTPNotFound
from sqlalchemy import String, literal_column, select, union

from storeplatform.core.db import get_by_id
from storeplatform.core.db.counts import count_rows
from storeplatform.core.errors import InvalidParams
from storeplatform.core.rest.schema import deserialize
from storeplatform.core.values import id_in_range
from storeplatform.components.shop import schemas
from storeplatform.components.shop.models import ORDER_BILLING_TEXT, Order, OrderItem, User
from storeplatform.core.options import site_timezone
from storeplatform.components.shop.orders import STATUSES, set_order_status
from .forms import form_values, refuse_form
from .guard import admin_redirect
from .listing import contains_pattern, csv_response, export_filename, list_query, page_of, text_contains
from .pages import AdminPage, admin_view

ORDERS = AdminPage("orders", "Orders", "/orders", "manage_shop", order=20, section="Shop")
ONE = r"/{id:\d+}"
ORDER_PAGE = "admin/order.jinja2"
# How a status reads at a glance (admin.css's badges).
STATUS_BADGES = {"completed": "badge-ok", "processing": "badge-ok", "pending": "badge-warn", "on-hold": "badge-warn",
                 "cancelled": "badge-bad", "refunded": "badge-bad", "failed": "badge-bad"}
# The billing name and e-mail address as one lower-case text, searched as a whole ("ann lee"
# finds Ann Lee): the very expression of the index ix_orders_billing_trgm (a GIN trigram index on
# PostgreSQL), so that a search reads the index instead of every order's JSON.
BILLING_TEXT = literal_column(ORDER_BILLING_TEXT, String)
BILLING_EMAIL = Order.billing["email"].as_string()
BILLING_FIRST = Order.billing["first_name"].as_string()
BILLING_LAST = Order.billing["last_name"].as_string()


def _conditions(query, tz):
    """The list's filters as conditions on orders."""
    conditions = []
    if query.status:
        conditions.append(Order.status == query.status)
    customer = query.extra.get("customer", "")
    if customer:  # a customer's orders (the Customers page links them); checked by orders_query
        conditions.append(Order.customer_id == int(customer))
    start, end = query.utc_range(tz)
    if start is not None:
        conditions.append(Order.created_at >= start)
    if end is not None:
        conditions.append(Order.created_at < end)
    if query.search:
        number = query.search.removeprefix("#")
        if number.isascii() and number.isdigit():
            # A number is an order's number (an order's id: beyond the column, none).
            conditions.append(Order.id == (int(number) if id_in_range(int(number)) else 0))
        else:
            # Orders whose billing name or address has the text (the trigram index), and the
            # orders of the accounts whose login, name or address has it (ix_orders_customer_id).
            accounts = select(User.id).where(text_contains(User.login, query.search) |
                                             text_contains(User.display_name, query.search) |
                                             text_contains(User.email, query.search))
            found = union(select(Order.id).where(BILLING_TEXT.like(contains_pattern(query.search), escape="\\")),
                          select(Order.id).where(Order.customer_id.in_(accounts)))
            conditions.append(Order.id.in_(select(found.subquery().c.id)))
    return conditions


def _ordered(stmt, query, tz):
    return stmt.where(*_conditions(query, tz)).order_by(Order.id.desc())


def orders_query(request):
    query = list_query(request, statuses=STATUSES, extra=("lines", "customer"))
    customer = query.extra["customer"]
    if customer and not (customer.isascii() and customer.isdigit() and id_in_range(int(customer))):
        raise HTTPBadRequest(f"This list cannot be shown: customer must be a user id, not {customer[:20]!r}.")
    return query


@admin_view(ORDERS, template="admin/orders.jinja2")
def list_orders(request):
    query = orders_query(request)
    tz = site_timezone(request.db)
    columns = (Order.id, Order.created_at, Order.status, Order.currency, Order.total, Order.customer_id,
               BILLING_FIRST, BILLING_LAST, BILLING_EMAIL, User.login, User.display_name, User.email)
    # The offset is walked on the ids (the filters there); the page's rows are read with their
    # customer in one statement.
    stmt = select(*columns).outerjoin(User, User.id == Order.customer_id).order_by(Order.id.desc())
    # Unfiltered or by status alone, the total is the count the database keeps.
    total = None if query.search or query.date_from or query.date_to or query.extra["customer"] else \
        count_rows(request.db, Order, **({"status": query.status} if query.status else {}))
    p = page_of(request, query, stmt, total=total, keys=_ordered(select(Order.id), query, tz))
    return {"title": "Orders", "p": p, "query": query, "statuses": STATUSES, "badges": STATUS_BADGES, "tz": tz,
            "rows": [_row(r) for r in p.rows]}


def _row(r):
    name = " ".join(part for part in (r[6], r[7]) if part) or (r[10] or r[9] or "")
    return {"id": r[0], "created_at": r[1], "status": r[2], "currency": r[3], "total": r[4], "customer_id": r[5],
            "name": name or "Guest", "email": r[8] or r[11] or ""}


@admin_view(ORDERS, path="/export.csv")
def export_orders(request):
    """Every order the list's filters find (not only the page), or one row per line with
    ``lines=1``; newest first."""
    query = orders_query(request)
    tz = site_timezone(request.db)
    filename = export_filename("order-lines" if query.extra["lines"] else "orders", tz)
    if query.extra["lines"]:
        stmt = _ordered(select(Order.id, Order.created_at, Order.status, Order.currency, BILLING_EMAIL,
                               OrderItem.product_id, OrderItem.name, OrderItem.quantity, OrderItem.unit_price,
                               OrderItem.total).join(OrderItem, OrderItem.order_id == Order.id), query, tz)
        stmt = stmt.order_by(OrderItem.id)
        header = ["order", "date", "status", "currency", "email", "product_id", "item", "quantity", "unit_price",
                  "line_total"]
        return csv_response(request, filename, header, stmt)
    stmt = _ordered(select(Order.id, Order.created_at, Order.status, Order.currency, Order.total, Order.customer_id,
                           BILLING_FIRST, BILLING_LAST, BILLING_EMAIL), query, tz)
    header = ["order", "date", "status", "currency", "total", "customer_id", "first_name", "last_name", "email"]
    return csv_response(request, filename, header, stmt)


def _order(request):
    item = get_by_id(request.db, Order, request.matchdict["id"])
    if item is None:
        raise HTTPNotFound("There is no such order.")
    return item


def _order_page(request, item, *, status=None, errors=None):
    customer = request.db.get(User, item.customer_id) if item.customer_id else None
    # What plugins show of the order (the invoicing plugin's documents): [{"title", "links":
    # [{"label", "url"}], "text"}]; the host knows none of them.
    sections = [section for returned in request.hooks.storeplatform_admin_order_sections(request=request, order=item)
                for section in returned or () if section and section.get("title")]
    return {"title": f"Order #{item.number}", "item": item, "customer": customer, "tz": site_timezone(request.db),
            "statuses": STATUSES, "badges": STATUS_BADGES, "status": status or item.status, "errors": errors or {},
            "sections": sections}


@admin_view(ORDERS, path=ONE, template=ORDER_PAGE)
def show_order(request):
    return _order_page(request, _order(request))


@admin_view(ORDERS, path=ONE + "/status", request_method="POST", template=ORDER_PAGE)
def change_status(request):
    item = _order(request)
    wanted = form_values(request).get("status", "")
    try:
        # REST's order update: its schema, then the same function (action and webhooks once).
        values = deserialize(schemas.OrderUpdate(), {"status": wanted})
    except InvalidParams as exc:
        refuse_form(request)
        return _order_page(request, item, status=wanted, errors=exc.params)
    old = item.status
    changed = set_order_status(request.db, item, values["status"])
    notice = f"Order #{item.number} is now {item.status} (was {old})." if changed else \
        f"Order #{item.number} was already {item.status}."
    return admin_redirect(request, f"/orders/{item.id}", notice=notice)
