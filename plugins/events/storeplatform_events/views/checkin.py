"""Check-in routes (manage_shop): check in, check out, validate, stats, recent check-ins."""
import logging
from decimal import Decimal

from sqlalchemy import func, select

from storeplatform.rest import RestError
from storeplatform.store.models import Post
from storeplatform.store.money import round_money
from storeplatform.store.options import site_timezone

from .. import checkin, schemas
from ..models import EVENT_TYPE, Attendee
from ..serialize import attendee_summary, plain_local

log = logging.getLogger(__name__)
RECENT_CAP = 50


def _ticket_error(exc):
    return RestError(exc.status, exc.code, exc.message)


def load_event(request, event_id):
    row = request.db.execute(select(Post.id, Post.title).where(Post.id == event_id, Post.post_type == EVENT_TYPE)
                             ).first()
    if row is None:
        raise RestError(404, "evt_rest_event_invalid_id", "Invalid event ID.")
    return row


def add_routes(config, ns):
    checkin_route = ns.service(config, "checkin", "/checkin", "Check a ticket in.")
    checkout_route = ns.service(config, "checkin-checkout", "/checkin/checkout", "Check a ticket out.")
    validate_route = ns.service(config, "checkin-validate", "/checkin/validate", "Validate a ticket (no change).")
    stats_route = ns.service(config, "checkin-stats", r"/checkin/stats/{event_id:\d+}", "Check-in statistics.")
    recent_route = ns.service(config, "checkin-recent", r"/checkin/recent/{event_id:\d+}", "Recent check-ins.")

    @checkin_route.post(permission="manage_shop", body=schemas.CheckinBody())
    def post_checkin(request):
        v = request.validated
        try:
            with request.db.begin_nested():
                attendee, event_name, already = checkin.check_in(request.db, v["ticket_code"], v.get("event_id"))
        except checkin.TicketError as exc:
            raise _ticket_error(exc)
        except Exception as exc:
            # A plugin's checked_in action failing (or the database): the ticket is left unchanged.
            log.warning("check-in of a ticket failed: %r", exc)
            raise RestError(500, "evt_rest_checkin_failed", "The check-in failed; the ticket is unchanged.")
        tz = site_timezone(request.db)
        return {
            "success": True,
            "already_in": already,
            "message": "Attendee already checked in." if already else "Attendee checked in.",
            "attendee": attendee_summary(attendee, event_name),
            "checked_in_at": plain_local(attendee.checked_in_at, tz),
        }

    @checkout_route.post(permission="manage_shop", body=schemas.CheckoutBody())
    def post_checkout(request):
        try:
            attendee, event_name = checkin.check_out(request.db, request.validated["ticket_code"])
        except checkin.TicketError as exc:
            raise _ticket_error(exc)
        tz = site_timezone(request.db)
        return {
            "success": True,
            "message": "Attendee checked out.",
            "attendee": attendee_summary(attendee, event_name),
            "checked_in_at": plain_local(attendee.checked_in_at, tz),
            "checked_out_at": plain_local(attendee.checked_out_at, tz),
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
        event_id, title = load_event(request, int(request.matchdict["event_id"]))
        counts = dict(request.db.execute(select(Attendee.status, func.count()).where(Attendee.event_id == event_id)
                                         .group_by(Attendee.status)).all())
        total = sum(counts.values())
        checked_in = counts.get("checked_in", 0)
        checked_out = counts.get("checked_out", 0)
        cancelled = counts.get("cancelled", 0)
        admitted = total - cancelled
        percentage = round_money(Decimal(checked_in + checked_out) * 100 / admitted, 1) if admitted else Decimal(0)
        return {
            "event_id": event_id,
            "event_name": title,
            "total": total,
            "pending": counts.get("active", 0),
            "checked_in": checked_in,
            "checked_out": checked_out,
            "cancelled": cancelled,
            "percentage": float(percentage),
        }

    @recent_route.get(permission="manage_shop", query=schemas.RecentQuery())
    def get_recent(request):
        event_id, title = load_event(request, int(request.matchdict["event_id"]))
        limit = min(request.validated["limit"], RECENT_CAP)
        rows = request.db.execute(
            select(Attendee).where(Attendee.event_id == event_id, Attendee.checked_in_at.is_not(None))
            .order_by(Attendee.checked_in_at.desc(), Attendee.id.desc()).limit(limit)).scalars()
        tz = site_timezone(request.db)
        return {
            "event_id": event_id,
            "event_name": title,
            "checkins": [{
                "id": a.id,
                "name": f"{a.first_name} {a.last_name}".strip(),
                "ticket_code": a.ticket_code,
                "status": a.status,
                "checked_in_at": plain_local(a.checked_in_at, tz),
                "checked_out_at": plain_local(a.checked_out_at, tz),
            } for a in rows],
        }
