"""Attendees from paid orders: one per ticket unit, once per order; cancelled with the order."""
import secrets

from sqlalchemy import case, select, update

from storeplatform.api import PAID_STATUSES, Post, Product, id_in_range, is_digits, utcnow

from . import actions, metrics
from .models import EVENT_TYPE, Attendee

CANCELLING_STATUSES = ("cancelled", "refunded")
# 16 characters from a 32-letter alphabet without look-alikes: 80 random bits.
_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def new_ticket_code():
    return "".join(secrets.choice(_ALPHABET) for _ in range(16))


def typed_code(text):
    """The ticket code ``text`` names, as typed, scanned or sent: the blanks around it dropped
    and in capitals, since every code is issued in capitals (``new_ticket_code``) and a person
    types ``k7m2...`` for ``K7M2...``. Every channel (REST in both variants, the desk, the CLI)
    reads a code through this once, at its boundary, so a code matches the same way everywhere.
    A value that is not text is left for the caller's validation to refuse."""
    return text.strip().upper() if isinstance(text, str) else text


def ticket_event_id(product):
    """The event a product is a ticket for (``meta.event_id``), or None."""
    value = (product.meta or {}).get("event_id")
    if isinstance(value, str) and is_digits(value.strip()):
        value = int(value.strip())
    return value if id_in_range(value) else None  # no id beyond the column (nor a bool)


def on_order_status_changed(session, order, old_status, new_status):
    if new_status in PAID_STATUSES:
        issue_tickets(session, order)
    elif new_status in CANCELLING_STATUSES:
        session.execute(update(Attendee).where(Attendee.order_id == order.id, Attendee.status != "cancelled")
                        .values(status="cancelled", cancelled_by_order=True, modified_at=utcnow())
                        .execution_options(synchronize_session=False))


# Which tickets of a refunded line go first: those never checked in, then those checked out
# again, then those in the venue; the newest first within each (docs/decisions.md).
_REFUND_ORDER = {"active": 0, "checked_out": 1, "checked_in": 2}


def on_order_refunded(session, order, refund):
    """For each line of ``refund`` that gives units back, as many of that line's tickets are
    cancelled, for good: a refund is not undone by the order being paid again, so they are not
    marked as cancelled by the order. Nothing is announced, as for an order's cancellation."""
    for line in refund.line_items:
        if line.quantity <= 0:
            continue
        rank = case(_REFUND_ORDER, value=Attendee.status, else_=3)
        chosen = (select(Attendee.id).where(Attendee.order_id == order.id, Attendee.order_item_id == line.order_item_id,
                                            Attendee.status != "cancelled")
                  .order_by(rank, Attendee.id.desc()).limit(line.quantity))
        session.execute(update(Attendee).where(Attendee.id.in_(chosen.scalar_subquery()))
                        .values(status="cancelled", cancelled_by_order=False, modified_at=utcnow())
                        .execution_options(synchronize_session=False))


def on_order_deleted(session, order):
    """The order's tickets are cancelled and detached: the record of what was sold stays, and
    nothing can be checked in for an order that is gone."""
    session.execute(update(Attendee).where(Attendee.order_id == order.id)
                    .values(status="cancelled", cancelled_by_order=False, order_id=None, order_item_id=None,
                            modified_at=utcnow())
                    .execution_options(synchronize_session=False))


def on_user_deleted(session, user):
    """A deleted user's tickets stay (their orders stay as guest orders) and name no user."""
    session.execute(update(Attendee).where(Attendee.user_id == user.id).values(user_id=None, modified_at=utcnow())
                    .execution_options(synchronize_session=False))


def cancel_event_tickets(session, event_id):
    """The tickets of an event deleted for good are cancelled (the record stays)."""
    session.execute(update(Attendee).where(Attendee.event_id == event_id, Attendee.status != "cancelled")
                    .values(status="cancelled", cancelled_by_order=False, modified_at=utcnow())
                    .execution_options(synchronize_session=False))


def issue_tickets(session, order):
    """Make the order's attendees the first time it is paid; when it is paid again after a
    cancellation, reactivate the same tickets instead."""
    existing = session.execute(select(Attendee.id).where(Attendee.order_id == order.id).limit(1)).first()
    if existing is not None:
        # Only what the order itself cancelled comes back; a ticket cancelled on purpose stays so.
        session.execute(update(Attendee).where(Attendee.order_id == order.id, Attendee.status == "cancelled",
                                               Attendee.cancelled_by_order.is_(True))
                        .values(status="active", cancelled_by_order=False, modified_at=utcnow())
                        .execution_options(synchronize_session=False))
        return []
    product_ids = {item.product_id for item in order.line_items if item.product_id}
    if not product_ids:
        return []
    products = session.execute(select(Product).where(Product.id.in_(product_ids))).scalars()
    event_of = {p.id: ticket_event_id(p) for p in products}
    event_ids = {e for e in event_of.values() if e}
    if not event_ids:
        return []
    events = set(session.execute(select(Post.id).where(Post.id.in_(event_ids), Post.post_type == EVENT_TYPE))
                 .scalars())
    billing = order.billing or {}
    created = []
    for item in order.line_items:
        event_id = event_of.get(item.product_id)
        if event_id not in events:
            continue
        for index in range(item.quantity):
            created.append(Attendee(
                event_id=event_id, order_id=order.id, order_item_id=item.id, ticket_index=index,
                user_id=order.customer_id, first_name=billing.get("first_name", ""),
                last_name=billing.get("last_name", ""), email=billing.get("email", ""),
                phone=billing.get("phone", ""), ticket_code=new_ticket_code(), status="active", custom_fields={}))
    session.add_all(created)
    session.flush()
    metrics.TICKETS_ISSUED.inc(len(created))
    for attendee in created:
        actions.attendee_created(session, attendee)
    from .ticket_mail import on_tickets_issued

    # The tickets message (#41): recorded here, composed by a worker once this commits.
    on_tickets_issued(session, order, created)
    return created
