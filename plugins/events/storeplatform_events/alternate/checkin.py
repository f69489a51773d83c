"""The alternate variant's check-in and check-out: answers with ``event`` and ISO 8601 times,
refusals as ``{"success": false, "message"}`` with the standard variant's HTTP status."""
import logging

from storeplatform.api import Service, site_timezone

from .. import checkin
from ..errors import CHECKIN_FAILED
from ..schemas import CheckinBody, CheckoutBody
from .serialize import checkin_answer, iso_local

log = logging.getLogger(__name__)

checkin_route = Service("events/v1", "/checkin", name="checkin", description="Check a ticket in.")
checkout_route = Service("events/v1", "/checkin/checkout", name="checkin-checkout", description="Check a ticket out.")


def refused(request, status, message):
    request.response.status = status
    return {"success": False, "message": message}


@checkin_route.post(permission="manage_shop", body=CheckinBody())
def post_checkin(request):
    v = request.validated
    try:
        with request.db.begin_nested():
            attendee, event_name, already = checkin.check_in(request.db, v["ticket_code"], v.get("event_id"))
    except checkin.TicketError as exc:
        return refused(request, exc.error.status, exc.message)
    except Exception as exc:  # noqa: BLE001  (answered, and logged)
        # A plugin's checked_in action failing (or the database): the ticket is left unchanged.
        log.warning("check-in of a ticket failed: %r", exc)
        return refused(request, CHECKIN_FAILED.status, CHECKIN_FAILED.message)
    message = "Attendee already checked in." if already else "Attendee checked in."
    return checkin_answer(attendee, event_name, site_timezone(request.db), message, already_in=already)


@checkout_route.post(permission="manage_shop", body=CheckoutBody())
def post_checkout(request):
    try:
        attendee, event_name = checkin.check_out(request.db, request.validated["ticket_code"])
    except checkin.TicketError as exc:
        return refused(request, exc.error.status, exc.message)
    tz = site_timezone(request.db)
    body = checkin_answer(attendee, event_name, tz, "Attendee checked out.")
    body["checked_out_at"] = iso_local(attendee.checked_out_at, tz)
    return body
