"""An event's ticket types in the admin (``manage_shop``, as the products they are): listed on
the event's page with the places taken, added there, changed and removed. Each is a product of
the shop bound to the event (``meta.event_id``, ``ticket_types.py``'s keys), made and changed by
the shop's own functions, so REST reads and sells it as any other; the form's local times (the
site's time zone) are stored as instants."""
from datetime import datetime

from pyramid.httpexceptions import HTTPNotFound

from storeplatform.api import (InvalidParams, Product, admin_redirect, admin_view, create_product, delete_product,
                               form_values, get_by_id, is_digits, refuse_form, site_timezone, update_product,
                               validate_product)

from . import ticket_types
from .admin_events import EVENTS, event_or_404, event_page
from .tickets import ticket_event_id

ONE = r"/{id:\d+}/tickets"
TICKET = ONE + r"/{product_id:\d+}"
EDIT_PAGE = "events/ticket_type.jinja2"
FIELDS = ("name", "price", "capacity", "sales_start", "sales_end")
LOCAL = "%Y-%m-%dT%H:%M"  # what an <input type="datetime-local"> sends


def _local(text, tz):
    """An aware datetime from the form's local date and time, or None for an empty field;
    ValueError for text that is neither."""
    if not text:
        return None
    return datetime.strptime(text, LOCAL).replace(tzinfo=tz)


def product_body(form, event_id, tz, meta=None):
    """(the product body the form makes, ``{field: message}`` of the fields it cannot read)."""
    problems = {}
    capacity = form.get("capacity", "").strip() or "0"
    if not (is_digits(capacity) and len(capacity) <= 7):
        problems["capacity"] = "a whole number of places (0: no limit of its own)"
    window = {}
    for field, key in (("sales_start", ticket_types.SALES_START), ("sales_end", ticket_types.SALES_END)):
        try:
            instant = _local(form.get(field, "").strip(), tz)
        except ValueError:
            problems[field] = "a date and a time, e.g. 2031-03-01T09:00"
            continue
        window[key] = instant.isoformat() if instant else None
    meta = {**(meta or {}), "event_id": event_id, **window,
            ticket_types.CAPACITY: int(capacity) if "capacity" not in problems else 0}
    body = {"name": form.get("name", "").strip(), "regular_price": form.get("price", "").strip(), "meta": meta}
    return body, problems


def checked(request, body, problems, product=None):
    """The product values of ``body`` as the shop checks a product (``validate_product``), the
    form's own problems beside; its ``meta`` problem is named on the field it comes from."""
    try:
        values = validate_product(request.db, body, product)
    except InvalidParams as exc:
        found = dict(exc.params)
        meta = found.pop("meta", None)
        if meta:
            field = ("sales_end" if meta.startswith(ticket_types.SALES_END) else
                     "sales_start" if meta.startswith(ticket_types.SALES_START) else "capacity")
            found.setdefault(field, meta.replace(ticket_types.SALES_END, "the end of sales")
                             .replace(ticket_types.SALES_START, "the start of sales"))
        found = {"price" if k == "regular_price" else k: v for k, v in found.items()}
        raise InvalidParams({**found, **problems})
    if problems:
        raise InvalidParams(problems)
    return values


def shown(product, kind, tz):
    def local(instant):
        return instant.astimezone(tz).strftime(LOCAL) if instant else ""

    return {"name": product.name, "price": "" if product.regular_price is None else str(product.regular_price),
            "capacity": str(kind.capacity), "sales_start": local(kind.sales_start), "sales_end": local(kind.sales_end)}


@admin_view(EVENTS, path=ONE, request_method="POST", template="events/events_one.jinja2")
def add_ticket_type(request):
    event = event_or_404(request)
    form = form_values(request)
    body, problems = product_body(form, event.id, site_timezone(request.db))
    try:
        product = create_product(request.db, checked(request, body, problems))
    except InvalidParams as exc:
        refuse_form(request)
        return event_page(request, event, ticket_form={"values": {f: form.get(f, "") for f in FIELDS},
                                                       "errors": exc.params})
    return admin_redirect(request, f"/events/{event.id}", notice=f"Ticket type {product.name} added.")


def _ticket(request, event):
    product = get_by_id(request.db, Product, request.matchdict["product_id"])
    if product is None or ticket_event_id(product) != event.id:
        raise HTTPNotFound()
    kind = request.db.get(ticket_types.TicketType, product.id)
    if kind is None:
        raise HTTPNotFound()
    return product, kind


def _edit_page(request, event, product, kind, values=None, errors=None):
    taken = ticket_types.places_taken(request.db, [product.id])[product.id]
    return {"title": f"Ticket type {product.name}", "event": event, "product": product, "taken": taken,
            "values": values or shown(product, kind, site_timezone(request.db)), "errors": errors or {}}


@admin_view(EVENTS, path=TICKET, template=EDIT_PAGE)
def edit_ticket_type(request):
    event = event_or_404(request)
    return _edit_page(request, event, *_ticket(request, event))


@admin_view(EVENTS, path=TICKET, request_method="POST", template=EDIT_PAGE)
def save_ticket_type(request):
    event = event_or_404(request)
    product, kind = _ticket(request, event)
    form = form_values(request)
    body, problems = product_body(form, event.id, site_timezone(request.db), meta=product.meta)
    try:
        update_product(request.db, product, checked(request, body, problems, product))
    except InvalidParams as exc:
        refuse_form(request)
        return _edit_page(request, event, product, kind, {f: form.get(f, "") for f in FIELDS}, exc.params)
    return admin_redirect(request, f"/events/{event.id}", notice=f"Ticket type {product.name} saved.")


@admin_view(EVENTS, path=TICKET + "/delete", request_method="POST", template=EDIT_PAGE)
def delete_ticket_type(request):
    """Only a ticket type nobody holds a place of goes: one that has sold stops selling instead
    (its sale ends), so that its orders keep their product."""
    event = event_or_404(request)
    product, kind = _ticket(request, event)
    if ticket_types.places_taken(request.db, [product.id])[product.id]:
        refuse_form(request, status=409)
        return _edit_page(request, event, product, kind, errors={
            "delete": "Places of this ticket type are taken: it cannot be removed. End its sale instead."})
    name = product.name
    delete_product(request.db, product)
    return admin_redirect(request, f"/events/{event.id}", notice=f"Ticket type {name} removed.")
