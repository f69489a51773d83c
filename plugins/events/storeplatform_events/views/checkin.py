"""Check-in routes (manage_shop): check in, check out, validate, stats, recent check-ins.

A refused ticket is the domain's ``TicketError``, answered by the plugin's one translation."""
from sqlalchemy import select

from storeplatform.api import Post, Service, site_timezone

from .. import checkin, checkin_report, queries, schemas
from ..errors import CHECKIN_FAILED, EVENT_INVALID_ID
from ..models import EVENT_TYPE
from ..serialize import attendee_summary, plain_local

checkin_route = Service("events/v1", "/checkin", name="checkin", description="Check a ticket in.")
checkout_route = Service("events/v1", "/checkin/checkout", name="checkin-checkout", description="Check a ticket out.")
validate_route = Service("events/v1", "/checkin/validate", name="checkin-validate",
                         description="Validate a ticket (no change).")
stats_route = Service("events/v1", r"/checkin/stats/{event_id:\d+}", name="checkin-stats",
                      description="Check-in statistics.")
recent_route = Service("events/v1", r"/checkin/recent/{event_id:\d+}", name="checkin-recent",
                       description="Recent check-ins.")


def load_event(request):
    """(id, title) of the event in the URL (an event, not another post type); else its 404."""
    event_id = request.validated["event_id"]
    stmt = select(Post.id, Post.title).where(Post.id == event_id, Post.post_type == EVENT_TYPE)
    return queries.first_or_404(request.db, stmt, EVENT_INVALID_ID)


@checkin_route.post(permission="manage_shop", body=schemas.CheckinBody())
def post_checkin(request):
    return checked_in(request)


def checked_in(request, moment=plain_local):
    """The answer of a check-in, its time written by ``moment`` (the alternate variant's is
    ISO 8601)."""
    v = request.validated
    try:
        attendee, event_name, already = checkin.check_in(request.db, v["ticket_code"], v.get("event_id"))
    except checkin.TicketError:
        raise
    except Exception as exc:
        # A plugin's checked_in action failing (or the database): the ticket is left unchanged,
        # since an error answer aborts the request's transaction (pyramid_tm), the update with it.
        # The host's error view logs the cause with the request's id.
        raise CHECKIN_FAILED() from exc
    tz = site_timezone(request.db)
    return {
        "success": True,
        "already_in": already,
        "message": "Attendee already checked in." if already else "Attendee checked in.",
        "attendee": attendee_summary(attendee, event_name),
        "checked_in_at": moment(attendee.checked_in_at, tz),
    }


@checkout_route.post(permission="manage_shop", body=schemas.CheckoutBody())
def post_checkout(request):
    return checked_out(request)


def checked_out(request, moment=plain_local):
    """The answer of a check-out, its times written by ``moment``."""
    attendee, event_name = checkin.check_out(request.db, request.validated["ticket_code"])
    tz = site_timezone(request.db)
    return {
        "success": True,
        "message": "Attendee checked out.",
        "attendee": attendee_summary(attendee, event_name),
        "checked_in_at": moment(attendee.checked_in_at, tz),
        "checked_out_at": moment(attendee.checked_out_at, tz),
    }


@validate_route.post(permission="manage_shop", body=schemas.CheckinBody())
def post_validate(request):
    v = request.validated
    valid, message, attendee, event_name = checkin.validate(request.db, v["ticket_code"], v.get("event_id"))
    body = {"valid": valid, "message": message}
    if attendee is not None:
        body["attendee"] = attendee_summary(attendee, event_name)
        body["status"] = attendee.status
    return body


@stats_route.get(permission="manage_shop")
def get_stats(request):
    event_id, title = load_event(request)
    return {"event_id": event_id, "event_name": title, **checkin_report.event_stats(request.db, event_id)}


@recent_route.get(permission="manage_shop", query=schemas.RecentQuery())
def get_recent(request):
    event_id, title = load_event(request)
    return {
        "event_id": event_id,
        "event_name": title,
        "checkins": checkin_report.recent_checkins(request.db, event_id, request.validated["limit"],
                                                   site_timezone(request.db)),
    }
