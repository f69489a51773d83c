"""The Orders pages of the admin: the list (search by number, customer or e-mail, status,
dates, paging), its CSV export (one row per order, or per line), and an order's page (its
lines, totals, customer, documents, and its status changed as REST's order update changes it:
the same validation, the same ``storeplatform_order_status_changed`` action and so the same
webhooks), with its history (notes, and the form that adds one) and its refunds (the form that
gives money back, asked to be confirmed: ``order_history.py``), through the shop's functions
REST's notes and refunds use."""
from urllib.parse import urlencode

from pyramid.httpexceptions import HTTPBadRequest, HTTPNotFound

from storeplatform.core.db import get_by_id
from storeplatform.core.db.counts import count_rows
from storeplatform.core.errors import InvalidParams, RestError
from storeplatform.core.rest.schema import deserialize
from storeplatform.core.values import id_in_range
from storeplatform.components.shop import schemas
from storeplatform.components.shop.models import Order, OrderItem, User
from storeplatform.components.shop.orders import (BILLING_EMAIL, BILLING_FIRST, BILLING_LAST, STATUSES, SUMMARY,
                                                   order_conditions, order_lines_select, orders_select,
                                                   set_order_status)
from storeplatform.components.shop.money import amount_text
from storeplatform.components.shop.order_notes import add_order_note
from storeplatform.components.shop.refunds import left_to_refund, plan_refund, refund_order, refunds_of
from storeplatform.core.options import site_timezone
from .forms import form_values, refuse_form
from .guard import admin_redirect
from .listing import csv_response, export_filename, list_query, page_of
from .order_history import (REFUND_MODES, form_errors, history_values, note_body, refund_body, refund_form_values,
                            valid_note, valid_refund)
from .pages import AdminPage, admin_view

ORDERS = AdminPage("orders", "Orders", "/orders", "manage_shop", order=20, section="Shop")
ONE = r"/{id:\d+}"
ORDER_PAGE = "admin/order.jinja2"
# The columns the list sorts by, each with its first direction (numbers and dates: the largest
# first), and the list's own sort (newest first).
SORTS = {"id": "desc", "date": "desc", "total": "desc", "status": "asc"}
DEFAULT_SORT = ("id", "desc")
# How a status reads at a glance (admin.css's badges).
STATUS_BADGES = {"completed": "badge-ok", "processing": "badge-ok", "pending": "badge-warn", "on-hold": "badge-warn",
                 "cancelled": "badge-bad", "refunded": "badge-bad", "failed": "badge-bad"}
def _conditions(query, tz):
    """The list's filters as the shop's conditions on orders."""
    start, end = query.utc_range(tz)
    customer = query.extra.get("customer", "")  # a customer's orders (the Customers page links them)
    return order_conditions(status=query.status, customer_id=int(customer) if customer else None,
                            created_from=start, created_before=end, search=query.search,
                            guest_email=query.extra.get("guest") or None)  # a guest buyer's (the Customers page)


def orders_query(request):
    query = list_query(request, statuses=STATUSES, extra=("lines", "customer", "guest"), sorts=SORTS,
                       default_sort=DEFAULT_SORT)
    customer = query.extra["customer"]
    if customer and not (customer.isascii() and customer.isdigit() and id_in_range(int(customer))):
        raise HTTPBadRequest(f"This list cannot be shown: customer must be a user id, not {customer[:20]!r}.")
    return query


@admin_view(ORDERS, template="admin/orders.jinja2")
def list_orders(request):
    query = orders_query(request)
    tz = site_timezone(request.db)
    # Unfiltered or by status alone, the total is the count the database keeps. The offset is
    # walked on the ids (the filters there); the page's rows are read with their customer in one
    # statement.
    total = None if query.search or query.date_from or query.date_to or query.extra["customer"] \
        or query.extra["guest"] else \
        count_rows(request.db, Order, **({"status": query.status} if query.status else {}))
    p = page_of(request, query, orders_select((), *SUMMARY, customer=True, **_sort(query)), total=total,
                keys=orders_select(_conditions(query, tz), Order.id, **_sort(query)))
    return {"title": "Orders", "p": p, "query": query, "statuses": STATUSES, "badges": STATUS_BADGES, "tz": tz,
            "rows": [_row(r) for r in p.rows], "bulk_choices": [(s, s) for s in STATUSES],
            "back": urlencode(query.params(page=p.page))}


def _sort(query):
    return {"orderby": query.orderby, "order": query.order}


def _row(r):
    name = " ".join(part for part in (r[6], r[7]) if part) or (r[10] or r[9] or "")
    return {"id": r[0], "created_at": r[1], "status": r[2], "currency": r[3], "total": r[4], "customer_id": r[5],
            "name": name or "Guest", "email": r[8] or r[11] or ""}


@admin_view(ORDERS, path="/export.csv")
def export_orders(request):
    """Every order the list's filters find (not only the page), or one row per line with
    ``lines=1``; newest first, or in the list's sort (the lines: newest order first)."""
    query = orders_query(request)
    tz = site_timezone(request.db)
    filename = export_filename("order-lines" if query.extra["lines"] else "orders", tz)
    conditions = _conditions(query, tz)
    if query.extra["lines"]:
        stmt = order_lines_select(conditions, Order.id, Order.created_at, Order.status, Order.currency, BILLING_EMAIL,
                                  OrderItem.product_id, OrderItem.name, OrderItem.quantity, OrderItem.unit_price,
                                  OrderItem.total)
        header = ["order", "date", "status", "currency", "email", "product_id", "item", "quantity", "unit_price",
                  "line_total"]
        return csv_response(request, filename, header, stmt, money=("unit_price", "line_total"))
    stmt = orders_select(conditions, Order.id, Order.created_at, Order.status, Order.currency, Order.total,
                         Order.customer_id, BILLING_FIRST, BILLING_LAST, BILLING_EMAIL, **_sort(query))
    header = ["order", "date", "status", "currency", "total", "customer_id", "first_name", "last_name", "email"]
    return csv_response(request, filename, header, stmt, money=("total",))


def _order(request):
    item = get_by_id(request.db, Order, request.matchdict["id"])
    if item is None:
        raise HTTPNotFound("There is no such order.")
    return item


def _order_page(request, item, *, status=None, errors=None, **history):
    customer = request.db.get(User, item.customer_id) if item.customer_id else None
    # What plugins show of the order (the invoicing plugin's documents): [{"title", "links":
    # [{"label", "url"}], "text"}]; the host knows none of them.
    sections = [section for returned in request.hooks.storeplatform_admin_order_sections(request=request, order=item)
                for section in returned or () if section and section.get("title")]
    return {"title": f"Order #{item.number}", "item": item, "customer": customer, "tz": site_timezone(request.db),
            "statuses": STATUSES, "badges": STATUS_BADGES, "status": status or item.status, "errors": errors or {},
            "sections": sections, **history_values(request, item, **history)}


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


@admin_view(ORDERS, path=ONE + "/notes", request_method="POST", template=ORDER_PAGE)
def add_note(request):
    """A note a person writes: REST's note body and schema, then the shop's ``add_order_note``."""
    item = _order(request)
    body = note_body(form_values(request))
    try:
        values = valid_note(body)
    except InvalidParams as exc:
        refuse_form(request)
        return _order_page(request, item, note_form=body, note_errors=exc.params)
    add_order_note(request.db, item, values["note"], customer_note=values["customer_note"], added_by_user=True)
    kind = "for the customer" if values["customer_note"] else "private"
    return admin_redirect(request, f"/orders/{item.id}", notice=f"Note added to order #{item.number} ({kind}).")


@admin_view(ORDERS, path=ONE + "/refund", request_method="POST", template=ORDER_PAGE)
def refund(request):
    """The refund form, in two steps: the page shows what would be given back (``plan_refund``,
    nothing written) and asks to confirm; the confirmed form (``confirm=yes``, the same fields)
    refunds through REST's schema and the shop's ``refund_order``, as a REST refund does."""
    item = _order(request)
    form = form_values(request)
    values = refund_form_values(form, item)
    fields = {}  # REST's field: the form's, for the errors
    try:
        if values["refund_mode"] not in REFUND_MODES:
            raise InvalidParams({"refund_mode": "choose the whole order or some of its lines"})
        body, fields = refund_body(values, item, left_to_refund(item, refunds_of(request.db, item.id)))
        checked = valid_refund(body, item)
        arguments = {"amount": checked["amount"], "reason": checked["reason"], "line_items": checked["line_items"]}
        if form.get("confirm") != "yes":
            return _order_page(request, item, refund_form=values, refund_review=plan_refund(request.db, item, **arguments))
        done = refund_order(request.db, item, **arguments)
    except InvalidParams as exc:
        refuse_form(request)
        return _order_page(request, item, refund_form=values, refund_errors=form_errors(exc.params, fields))
    except RestError as exc:  # an order that is not paid
        refuse_form(request, status=exc.status)
        return _order_page(request, item, refund_form=values, refund_problem=exc.message)
    return admin_redirect(request, f"/orders/{item.id}",
                          notice=f"Refunded {amount_text(done.amount)} {item.currency} of order #{item.number}.")
