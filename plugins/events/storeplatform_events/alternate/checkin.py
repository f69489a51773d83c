"""The alternate variant's check-in and check-out: the standard answers with ``event`` added and
ISO 8601 times; a refusal is ``{"success": false, "message"}`` with the standard's HTTP status."""
from storeplatform.api import RestError, Service

from ..checkin import TicketError
from ..views import checkin as standard
from .generic import options_of
from .serialize import iso_local

checkin_route = Service("events/v1", "/checkin", name="checkin", description=standard.checkin_route.description)
checkout_route = Service("events/v1", "/checkin/checkout", name="checkin-checkout",
                         description=standard.checkout_route.description)


def answered(request, answer):
    try:
        body = answer()
    except (TicketError, RestError) as exc:
        status = exc.error.status if isinstance(exc, TicketError) else exc.status
        request.response.status = status
        return {"success": False, "message": exc.message}
    attendee = body["attendee"]
    body["event"] = {"id": attendee["event_id"], "name": attendee["event_name"]}
    return body


def _in_savepoint(request):
    # The answer is no error response (which would roll the request back): a ticket moved
    # before a plugin's action failed is moved back by the savepoint.
    with request.db.begin_nested():
        return standard.checked_in(request, iso_local)


@checkin_route.post(**options_of(standard.checkin_route, "POST"))
def post_checkin(request):
    return answered(request, lambda: _in_savepoint(request))


@checkout_route.post(**options_of(standard.checkout_route, "POST"))
def post_checkout(request):
    return answered(request, lambda: standard.checked_out(request, iso_local))
