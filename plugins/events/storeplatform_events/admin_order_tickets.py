"""An order's tickets in the admin (#41): the section "Tickets" on the order's page (the host's
hook ``storeplatform_admin_order_sections``, which shows links only) and the page it links to,
``/admin/attendees/orders/<id>``: the order's tickets and the button "Resend tickets", which
records the tickets message again through ``ticket_mail.resend`` (the function behind ``POST
events/v1/orders/<id>/tickets/resend``)."""
from pyramid.httpexceptions import HTTPNotFound
from sqlalchemy import func, select

from storeplatform.api import Order, Post, admin_redirect, admin_url, admin_view, get_by_id, refuse_form, user_can

from . import ticket_mail
from .admin_attendees import ATTENDEES, STATUS_BADGES, STATUS_LABELS
from .models import Attendee

ONE_ORDER = "/orders/{order_id}"


def order_sections(request, order):
    """The order page's section "Tickets" when the order has any (one query)."""
    if not user_can(request, "manage_shop"):
        return []
    counts = dict(request.db.execute(select(Attendee.status, func.count()).where(Attendee.order_id == order.id)
                                     .group_by(Attendee.status)).all())
    if not counts:
        return []
    cancelled = counts.pop("cancelled", 0)
    active = sum(counts.values())
    text = f"{active} ticket{'s' * (active != 1)}" + (f", {cancelled} cancelled" if cancelled else "") + "."
    return [{"title": "Tickets", "text": text,
             "links": [{"label": "Tickets of this order (resend them by e-mail)",
                        "url": admin_url(request, f"/attendees/orders/{order.id}")}]}]


def _order(request):
    order = get_by_id(request.db, Order, request.matchdict["order_id"])
    if order is None:
        raise HTTPNotFound()
    return order


def _page(request, order, problem=None):
    rows = request.db.execute(
        select(Attendee, Post.title).outerjoin(Post, Post.id == Attendee.event_id)
        .where(Attendee.order_id == order.id).order_by(Attendee.order_item_id, Attendee.ticket_index, Attendee.id)
    ).all()
    name, email = ticket_mail.billing_address(order)
    active = sum(1 for a, _ in rows if a.status != "cancelled")
    return {"title": f"Tickets of order #{order.number}", "order": order, "tickets": rows, "labels": STATUS_LABELS,
            "badges": STATUS_BADGES, "email": email, "name": name, "active": active, "problem": problem,
            "order_url": admin_url(request, f"/orders/{order.id}")}


@admin_view(ATTENDEES, ONE_ORDER, template="events/order_tickets.jinja2")
def order_tickets_page(request):
    return _page(request, _order(request))


@admin_view(ATTENDEES, ONE_ORDER + "/resend", request_method="POST", template="events/order_tickets.jinja2")
def resend_order_tickets(request):
    order = _order(request)
    try:
        message_id = ticket_mail.resend(request.db, order.id, request)
    except ticket_mail.TicketMailError as exc:
        refuse_form(request, status=exc.error.status)
        return _page(request, order, problem=exc.message)
    _, email = ticket_mail.billing_address(order)
    return admin_redirect(request, f"/attendees/orders/{order.id}",
                          notice=f"The tickets are sent again to {email} (message #{message_id}).")
