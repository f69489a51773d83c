"""The tickets message (#41): one message per order to its billing address with every ticket of
the order that is not cancelled: the event, its date and time in the site's time zone, the
venue, the attendee, the ticket code with its QR code (an inline image) and a one-page PDF ticket
per attendee.

Recorded with ``queue_mail`` in the transaction that issues the tickets (the order's payment:
``tickets.issue_tickets``), unless the site option ``events.ticket_mail_enabled`` is off; the
worker composes it (``compose``) from the data as committed, so that no PDF or QR code is made in
a request. ``resend`` records it again for an order (REST's ``POST
events/v1/orders/<id>/tickets/resend`` and the admin's button), whatever the option."""
from datetime import datetime, time
from zoneinfo import ZoneInfo

from sqlalchemy import func, select
from sqlalchemy.orm import aliased

from storeplatform.api import (Attachment, InlineImage, Order, Post, audit, get_by_id, queue_mail, render_mail,
                               site_options, site_timezone)

from .errors import NO_ACTIVE_TICKETS, NO_TICKET_ADDRESS, ORDER_INVALID_ID
from .models import Attendee, EventDetails, VenueDetails

KIND = "events.tickets"
OPTION = "events.ticket_mail_enabled"
TEMPLATE = "events/tickets"  # mail_templates/events/tickets.txt and .html
# session.info key: the demo data's orders get no message (their addresses are made up).
QUIET = "events.no_ticket_mail"
SUBJECT_TITLE_MAX = 150


class TicketMailError(Exception):
    """Tickets that cannot be sent again: ``error`` its entry in the catalogue (``errors.py``)."""

    def __init__(self, error, message=None):
        self.error = error
        self.message = message or error.message
        super().__init__(self.message)


def billing_address(order):
    """(name, e-mail) of the order's billing contact, the e-mail stripped ("" when none)."""
    billing = order.billing if isinstance(order.billing, dict) else {}
    email = billing.get("email")
    name = " ".join(str(billing.get(k) or "") for k in ("first_name", "last_name")).strip()
    return " ".join(name.split()), email.strip() if isinstance(email, str) else ""


def on_tickets_issued(session, order, created):
    """In the transaction that issued ``created`` (the attendees just made for ``order``): the
    tickets message, when there are tickets, an address and the option is on."""
    if not created or session.info.get(QUIET) or not site_options(session)[OPTION]:
        return None
    if not billing_address(order)[1]:
        return None
    return queue_mail(session, KIND, {"order_id": order.id})


def _active_count(session, order_id):
    return session.execute(select(func.count()).select_from(Attendee).where(
        Attendee.order_id == order_id, Attendee.status != "cancelled")).scalar_one()


def resend(session, order_id, request=None):
    """Record the tickets message of the order ``order_id`` (text from a URL or a form, or an int)
    again; returns the queued message's id. TicketMailError: no such order (404), no ticket left
    that is not cancelled, or no billing address (409)."""
    order = get_by_id(session, Order, order_id)
    if order is None:
        raise TicketMailError(ORDER_INVALID_ID)
    if not _active_count(session, order.id):
        raise TicketMailError(NO_ACTIVE_TICKETS)
    if not billing_address(order)[1]:
        raise TicketMailError(NO_TICKET_ADDRESS)
    message_id = queue_mail(session, KIND, {"order_id": order.id, "resent": True})
    audit(request if request is not None else session, "plugin:events", "tickets_resent", f"order #{order.number}",
          {"order_id": order.id, "mail_id": message_id})
    return message_id


# -- the worker's part ------------------------------------------------------------------------

def local_start(details, site_tz):
    """The event's start in the site's time zone, as words: ``Friday 5 March 2027, 19:30
    (Europe/Vienna)``; the date alone for an all-day event. The event's own date and time are
    read in its time zone (the site's when it names none that exists)."""
    if details.all_day:
        return f"{details.start_date.strftime('%A')} {details.start_date.day} {details.start_date.strftime('%B %Y')}"
    try:
        own = ZoneInfo(details.timezone) if details.timezone else site_tz
    except (ValueError, KeyError, OSError):
        own = site_tz
    try:
        at = time.fromisoformat(details.start_time or "00:00")
    except ValueError:
        at = time(0)
    moment = datetime.combine(details.start_date, at, tzinfo=own).astimezone(site_tz)
    return f"{moment.strftime('%A')} {moment.day} {moment.strftime('%B %Y, %H:%M')} ({site_tz.key})"


def _venue_address(venue):
    if venue is None:
        return ""
    town = " ".join(p for p in (venue.postal, venue.city) if p)
    return ", ".join(" ".join(p.split()) for p in (venue.address, town, venue.state, venue.country) if p and p.strip())


def _one_line(text):
    return " ".join(str(text or "").split())


def order_tickets(session, order_id):
    """The order's tickets that are not cancelled, each a dict (``code``, ``name``, ``event``,
    ``event_id``, ``when``, ``venue``, ``venue_address``), in the order they were issued."""
    venue_post = aliased(Post)
    rows = session.execute(
        select(Attendee.ticket_code, Attendee.first_name, Attendee.last_name, Attendee.event_id, Post.title,
               EventDetails, venue_post.title, VenueDetails)
        .outerjoin(Post, Post.id == Attendee.event_id)
        .outerjoin(EventDetails, EventDetails.post_id == Attendee.event_id)
        .outerjoin(venue_post, venue_post.id == EventDetails.venue_id)
        .outerjoin(VenueDetails, VenueDetails.post_id == EventDetails.venue_id)
        .where(Attendee.order_id == order_id, Attendee.status != "cancelled")
        .order_by(Attendee.order_item_id, Attendee.ticket_index, Attendee.id)).all()
    tz = site_timezone(session)
    return [{"code": code, "name": _one_line(f"{first} {last}"), "event_id": event_id,
             "event": _one_line(title) or f"Event #{event_id}",
             "when": local_start(details, tz) if details is not None else "",
             "venue": _one_line(venue_title), "venue_address": _venue_address(venue)}
            for code, first, last, event_id, title, details, venue_title, venue in rows]


def compose(session, context):
    """The tickets message of ``context["order_id"]`` as committed: ``send_mail``'s arguments,
    or None when the order is gone, has no ticket left or no address."""
    from .ticket_pdf import qr_png, ticket_pdf

    order = get_by_id(session, Order, context.get("order_id"))
    if order is None:
        return None
    name, email = billing_address(order)
    tickets = order_tickets(session, order.id)
    if not tickets or not email:
        return None
    options = site_options(session)
    store_name, store_address = options["store.name"], options["store.address"]
    events = []
    for ticket in tickets:
        ticket["cid"] = f"qr-{ticket['code']}"
        if not events or events[-1]["event_id"] != ticket["event_id"]:
            events.append({key: ticket[key] for key in ("event_id", "event", "when", "venue", "venue_address")}
                          | {"tickets": []})
        events[-1]["tickets"].append(ticket)
    titles = {ticket["event"] for ticket in tickets}
    if len(titles) == 1:
        title = tickets[0]["event"]
        if len(title) > SUBJECT_TITLE_MAX:
            title = title[:SUBJECT_TITLE_MAX - 1].rstrip() + "…"
        subject = f"Your tickets for {title}"
    else:
        subject = f"Your tickets (order #{order.number})"
    values = {"store_name": store_name, "store_address": store_address, "order_number": order.number,
              "customer_name": name, "events": events, "tickets": tickets, "resent": bool(context.get("resent"))}
    text, html = render_mail(session, TEMPLATE, values)
    return {"to": (name, email) if name else email, "subject": subject, "text": text, "html": html,
            "inline_images": [InlineImage(t["cid"], qr_png(t["code"])) for t in tickets],
            "attachments": [Attachment(f"ticket-{t['code']}.pdf", ticket_pdf(t, store_name), "application/pdf")
                            for t in tickets]}
