"""What the door sees of an event: check-in statistics and the recent check-ins. Shared by the
REST routes (``checkin/stats``, ``checkin/recent``) and the admin's check-in desk, so both
count the same way. Nothing here knows about HTTP."""
from decimal import Decimal

from sqlalchemy import func, select

from storeplatform.api import round_money

from .models import Attendee
from .serialize import plain_local

RECENT_CAP = 50


def event_stats(session, event_id):
    """total, pending, checked_in, checked_out, cancelled and percentage (of the tickets not
    cancelled that came in, one decimal) of an event's attendees. One query."""
    counts = dict(session.execute(select(Attendee.status, func.count()).where(Attendee.event_id == event_id)
                                  .group_by(Attendee.status)).all())
    total = sum(counts.values())
    checked_in = counts.get("checked_in", 0)
    checked_out = counts.get("checked_out", 0)
    cancelled = counts.get("cancelled", 0)
    admitted = total - cancelled
    percentage = round_money(Decimal(checked_in + checked_out) * 100 / admitted, 1) if admitted else Decimal(0)
    return {
        "total": total,
        "pending": counts.get("active", 0),
        "checked_in": checked_in,
        "checked_out": checked_out,
        "cancelled": cancelled,
        "percentage": float(percentage),
    }


def recent_checkins(session, event_id, limit, tz):
    """The last ``limit`` (capped at RECENT_CAP) check-ins of an event, newest first, times
    as ``YYYY-MM-DD HH:MM:SS`` in ``tz``."""
    rows = session.execute(
        select(Attendee).where(Attendee.event_id == event_id, Attendee.checked_in_at.is_not(None))
        .order_by(Attendee.checked_in_at.desc(), Attendee.id.desc()).limit(min(limit, RECENT_CAP))).scalars()
    return [{
        "id": a.id,
        "name": f"{a.first_name} {a.last_name}".strip(),
        "ticket_code": a.ticket_code,
        "status": a.status,
        "checked_in_at": plain_local(a.checked_in_at, tz),
        "checked_out_at": plain_local(a.checked_out_at, tz),
    } for a in rows]
