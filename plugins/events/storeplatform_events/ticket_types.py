"""Ticket types: a product that is a ticket for an event (``meta.event_id``) with the places it
sells and the window it is sold in, kept in ``meta`` as REST and the admin write it:

- ``ticket_capacity``: places of this ticket type, a whole number, 0 (the default) for no limit
  of its own;
- ``ticket_sales_start``, ``ticket_sales_end``: ISO 8601 instants (UTC when no offset is given),
  either absent or null for an open end.

The shop asks this module what is wrong with a product body (its ``meta`` keys), tells it when a
product is saved (the ``evt_ticket_types`` row follows the ``meta``), and asks it whether an
order may take places: a ticket outside its window is refused, and so is a quantity beyond the
places left. Places taken: the tickets of paid orders that are not cancelled, and the ticket
lines of orders awaiting payment (pending, on hold), which hold their places as a shop's stock
is held. The event's own capacity, when set, bounds the places of all its ticket types together.
The event's row is locked while the places are counted, so that two orders at once cannot both
take the last place.
"""
from datetime import datetime, timezone

from sqlalchemy import func, select

from storeplatform.api import ORDER_STATUSES, Order, OrderItem, Product, id_in_range

from .models import Attendee, EventDetails, TicketType
from .tickets import ticket_event_id

CAPACITY = "ticket_capacity"
SALES_START = "ticket_sales_start"
SALES_END = "ticket_sales_end"
# Orders whose lines hold places before tickets exist (tickets are made when an order is paid).
HOLDING_STATUSES = ("pending", "on-hold")
MAX_CAPACITY = 1_000_000
assert set(HOLDING_STATUSES) <= set(ORDER_STATUSES)


def meta_problems(values):
    """``{"meta": message}`` when the ticket keys of a product body's ``meta`` are not valid."""
    meta = values.get("meta")
    if not isinstance(meta, dict):
        return {}
    capacity = meta.get(CAPACITY)
    if capacity is not None and (not isinstance(capacity, int) or isinstance(capacity, bool)
                                 or not 0 <= capacity <= MAX_CAPACITY):
        return {"meta": f"{CAPACITY} must be a whole number from 0 (no limit) to {MAX_CAPACITY}"}
    window = []
    for key in (SALES_START, SALES_END):
        value = meta.get(key)
        if value is None:
            window.append(None)
            continue
        instant = parse_instant(value)
        if instant is None:
            return {"meta": f"{key} must be an ISO 8601 date and time (e.g. 2031-03-01T09:00:00+01:00) or null"}
        window.append(instant)
    if None not in window and window[1] <= window[0]:
        return {"meta": f"{SALES_END} must be after {SALES_START}"}
    return {}


def parse_instant(value):
    """An aware datetime from ISO 8601 text (UTC when it names no offset), or None."""
    if not isinstance(value, str) or not 10 <= len(value) <= 40:
        return None
    try:
        instant = datetime.fromisoformat(value)
    except ValueError:
        return None
    return instant if instant.tzinfo is not None else instant.replace(tzinfo=timezone.utc)


def product_saved(session, product):
    """The product's ticket row as its ``meta`` says: made, changed, or gone when it is no
    longer a ticket."""
    event_id = ticket_event_id(product)
    row = session.get(TicketType, product.id)
    if event_id is None:
        if row is not None:
            session.delete(row)
        return
    meta = product.meta or {}
    capacity = meta.get(CAPACITY)
    values = {"event_id": event_id,
              "capacity": capacity if isinstance(capacity, int) and not isinstance(capacity, bool) else 0,
              "sales_start": parse_instant(meta.get(SALES_START)), "sales_end": parse_instant(meta.get(SALES_END))}
    if row is None:
        session.add(TicketType(product_id=product.id, **values))
    else:
        for name, value in values.items():
            setattr(row, name, value)
    session.flush()


def line_problems(session, product, quantity, now=None):
    """Why ``quantity`` tickets of ``product`` cannot be ordered now (``{field: message}``);
    empty for a product that is no ticket. The event's row is locked first: the places of all
    its ticket types are counted by one order at a time (see the module)."""
    event_id = ticket_event_id(product)
    if event_id is None:
        return {}
    event = session.execute(select(EventDetails).where(EventDetails.post_id == event_id).with_for_update()).scalar()
    row = session.get(TicketType, product.id)
    if row is None or event is None:
        return {}
    now = now or datetime.now(timezone.utc)
    if row.sales_start is not None and now < row.sales_start:
        return {"product_id": f"{product.name} is on sale from {row.sales_start.isoformat()}"}
    if row.sales_end is not None and now >= row.sales_end:
        return {"product_id": f"{product.name} is no longer on sale (sales ended {row.sales_end.isoformat()})"}
    if quantity is None or not (row.capacity or event.capacity):
        return {}
    kinds = session.execute(select(TicketType.product_id).where(TicketType.event_id == event_id)).scalars().all()
    taken = places_taken(session, kinds)
    if row.capacity and quantity > row.capacity - taken.get(product.id, 0):
        left = max(row.capacity - taken.get(product.id, 0), 0)
        return {"quantity": f"only {left} place(s) of {product.name} left" if left else f"{product.name} is sold out"}
    if event.capacity and quantity > event.capacity - sum(taken.values()):
        left = max(event.capacity - sum(taken.values()), 0)
        return {"quantity": f"only {left} place(s) left for the event" if left else "the event is sold out"}
    return {}


def places_taken(session, product_ids):
    """{product id: places taken} of ticket types (see the module): two grouped statements."""
    ids = [i for i in product_ids if id_in_range(i)]
    if not ids:
        return {}
    taken = dict.fromkeys(ids, 0)
    tickets = select(OrderItem.product_id, func.count()).join(Attendee, Attendee.order_item_id == OrderItem.id) \
        .where(OrderItem.product_id.in_(ids), Attendee.status != "cancelled").group_by(OrderItem.product_id)
    held = select(OrderItem.product_id, func.sum(OrderItem.quantity)).join(Order, Order.id == OrderItem.order_id) \
        .where(OrderItem.product_id.in_(ids), Order.status.in_(HOLDING_STATUSES)).group_by(OrderItem.product_id)
    for stmt in (tickets, held):
        for product_id, count in session.execute(stmt):
            taken[product_id] += int(count or 0)
    return taken


def event_ticket_types(session, event_id):
    """[(Product, TicketType, places taken)] of an event, in the order they were made."""
    if not id_in_range(event_id):
        return []
    rows = session.execute(select(Product, TicketType).join(TicketType, TicketType.product_id == Product.id)
                           .where(TicketType.event_id == event_id).order_by(Product.id)).all()
    taken = places_taken(session, [product.id for product, _ in rows])
    return [(product, kind, taken[product.id]) for product, kind in rows]
