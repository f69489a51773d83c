"""``POST events/v1/orders/<order_id>/tickets/resend`` (manage_shop, #41; a route the contract
does not define): the order's tickets message recorded again (``ticket_mail.resend``, as the
admin's button), answered 202 with the queued message's id; the worker composes and sends it.
An unknown order is 404 ``evt_rest_order_invalid_id`` (an id that is not one, or beyond the
column, too); an order with no ticket left 409 ``evt_rest_no_active_tickets``; one with no
billing e-mail 409 ``evt_rest_no_ticket_address``."""
from storeplatform.api import Service

from .. import ticket_mail

resend = Service("events/v1", "/orders/{order_id}/tickets/resend", name="order-tickets-resend",
                 description="Send an order's tickets message again (202: queued).")


@resend.post(permission="manage_shop")
def resend_tickets(request):
    try:
        message_id = ticket_mail.resend(request.db, request.matchdict["order_id"], request)
    except ticket_mail.TicketMailError as exc:
        raise exc.error(exc.message) from None
    request.response.status = 202
    return {"queued": True, "mail_id": message_id}
