"""The events plugin's panels of the admin dashboard (``storeplatform_admin_dashboard_panels``):
tickets sold against capacity for the next events, the check-in curve of today's events (both
``manage_shop``, as the check-in desk and the attendees' routes), and the webhooks' health
(``manage_options``, as the webhooks page). Each reads a bounded number of statements whatever
the size of the site: the next events are the first rows of the events list's order (the start
index), today's are a range of it, their attendees are read through (event_id, status) and
(event_id, checked_in_at), and the webhooks' failures are the newest of the delivery log's
(status, id) index."""
from datetime import datetime, time, timedelta, timezone

from sqlalchemy import BigInteger, Integer, cast, func, or_, select
from sqlalchemy.orm import lazyload

from storeplatform.api import Post, admin_url, site_timezone, user_can

from .event_list import EventList, EventQuery
from .models import Attendee, EventDetails
from .queries import published_events, today
from .webhooks.models import FAILED, Webhook, WebhookDelivery

UPCOMING_SHOWN = 8
TODAY_SHOWN = 6
# A multi-day event is today's if it started at most this many days ago (the start index is read
# as a range; an event running longer than that is not on the dashboard's curve).
LONGEST_EVENT_DAYS = 31
PROBLEM_WEBHOOKS_SHOWN = 8
FAILURES_SHOWN = 5
QUARTER = 900


def _quarter(column, session):
    """The quarter hour of UTC (seconds since 1970 // 900) of a UTC time column: every time zone
    is a whole number of quarter hours from UTC, so the site's local quarters are these."""
    if session.get_bind().dialect.name == "sqlite":
        return cast(func.strftime("%s", column), Integer) // QUARTER
    return cast(func.floor(func.extract("epoch", column) / QUARTER), BigInteger)


def attendee_counts(session, event_ids):
    """{event_id: {"sold", "checked_in", "checked_out", "cancelled"}} of the events, one statement
    (their attendees through the (event_id, status) index), counted as ``checkin/stats`` counts
    (``checkin_report.event_stats``): sold is every ticket not cancelled."""
    counts = {event_id: {"sold": 0, "checked_in": 0, "checked_out": 0, "cancelled": 0} for event_id in event_ids}
    if not event_ids:
        return counts
    rows = session.execute(select(Attendee.event_id, Attendee.status, func.count())
                           .where(Attendee.event_id.in_(sorted(event_ids)))
                           .group_by(Attendee.event_id, Attendee.status)).all()
    for event_id, status, n in rows:
        if status != "cancelled":
            counts[event_id]["sold"] += n
        if status in ("checked_in", "checked_out", "cancelled"):
            counts[event_id][status] += n
    return counts


def upcoming_events(session, limit=UPCOMING_SHOWN):
    """[(post, details)] of the next published events, soonest first: the events list of
    ``GET events/v1/events?upcoming=1&orderby=meta_value&order=ASC&per_page=<limit>``."""
    stmt = EventList(session, EventQuery(from_today=True, orderby="meta_value", order="ASC")).rows()
    return session.execute(stmt.options(lazyload(Post.terms)).limit(limit)).all()


def todays_events(session, day, limit=TODAY_SHOWN):
    """[(post, details)] of the published events running on ``day`` (started on it or at most
    LONGEST_EVENT_DAYS before, not ended before it), by start."""
    stmt = (published_events().options(lazyload(Post.terms))
            .where(EventDetails.start_date <= day, EventDetails.start_date >= day - timedelta(days=LONGEST_EVENT_DAYS),
                   EventDetails.end_date >= day)
            .order_by(EventDetails.start_date, EventDetails.start_time, Post.id).limit(limit))
    return session.execute(stmt).all()


def checkins_per_quarter(session, event_ids, start, end):
    """{(event_id, quarter): check-ins} of the events in [start, end) (UTC), one statement over
    the (event_id, checked_in_at) index. A ticket checked out keeps its check-in time."""
    if not event_ids:
        return {}
    quarter = _quarter(Attendee.checked_in_at, session).label("quarter")
    rows = session.execute(
        select(Attendee.event_id, quarter, func.count())
        .where(Attendee.event_id.in_(sorted(event_ids)), Attendee.checked_in_at >= start,
               Attendee.checked_in_at < end)
        .group_by(Attendee.event_id, quarter)).all()
    return {(event_id, int(q)): n for event_id, q, n in rows}


def _tickets_panel(request):
    session = request.db
    events = upcoming_events(session)
    counts = attendee_counts(session, [post.id for post, _ in events])
    rows = []
    for post, details in events:
        c = counts[post.id]
        capacity = details.capacity or 0
        rows.append({
            "id": post.id, "title": post.title or f"Event {post.id}", "start": details.start_date.isoformat(),
            "time": "" if details.all_day else details.start_time, "sold": c["sold"], "capacity": capacity,
            "left": max(capacity - c["sold"], 0) if capacity else None,
            "percent": round(c["sold"] * 100 / capacity) if capacity else None,
        })
    chart = {
        "labels": [_short(r["title"]) for r in rows],
        "datasets": [
            {"label": "Sold", "data": [r["sold"] for r in rows], "stack": "tickets", "color": "#1f5fbf"},
            {"label": "Still free", "data": [r["left"] or 0 for r in rows], "stack": "tickets", "color": "#d6dae0"},
        ],
    }
    return {"name": "tickets", "title": "Tickets for the next events", "template": "events/dashboard_tickets.jinja2",
            "order": 20, "values": {"events": rows, "chart": chart}}


def _checkins_panel(request):
    session = request.db
    tz = site_timezone(session)
    day = today(session)
    start = datetime.combine(day, time(0), tzinfo=tz).astimezone(timezone.utc)
    end = datetime.combine(day + timedelta(days=1), time(0), tzinfo=tz).astimezone(timezone.utc)
    events = todays_events(session, day)
    ids = [post.id for post, _ in events]
    counts = attendee_counts(session, ids)
    per_quarter = checkins_per_quarter(session, ids, start, end)
    quarters = sorted({q for _, q in per_quarter})
    # Quarter hours when the door is open for a few hours; hours when check-ins spread wider.
    step = 1
    if quarters and quarters[-1] - quarters[0] >= 6 * 4:
        step = 4
    slots = []
    if quarters:
        first, last = quarters[0] - quarters[0] % step, quarters[-1] - quarters[-1] % step
        slots = list(range(first, last + step, step))
    labels = [datetime.fromtimestamp(q * QUARTER, timezone.utc).astimezone(tz).strftime("%H:%M") for q in slots]

    def slot_counts(event_id):
        return [sum(per_quarter.get((event_id, q + i), 0) for i in range(step)) for q in slots]

    rows = []
    for post, details in events:
        rows.append({"id": post.id, "title": post.title or f"Event {post.id}", "counts": slot_counts(post.id),
                     "checked_in": counts[post.id]["checked_in"] + counts[post.id]["checked_out"],
                     "sold": counts[post.id]["sold"],
                     "desk": admin_url(request, f"/checkin/{post.id}")})
    chart = {"labels": labels,
             "datasets": [{"label": _short(r["title"]), "data": r["counts"], "stack": "checkins"} for r in rows]}
    return {"name": "checkins", "title": "Check-ins today", "template": "events/dashboard_checkins.jinja2",
            "order": 30, "values": {"day": day.isoformat(), "events": rows, "labels": labels, "chart": chart,
                                    "step_minutes": step * 15, "timezone": str(tz),
                                    "total": sum(sum(r["counts"]) for r in rows)}}


def _webhooks_panel(request):
    session = request.db
    by_status = {status: 0 for status in ("active", "failing", "paused", "disabled")}
    # The webhooks are few (each made by hand): their states are counted whole.
    for status, failures, n in session.execute(
            select(Webhook.status, Webhook.failures, func.count()).group_by(Webhook.status, Webhook.failures)):
        key = "failing" if status == "active" and failures else status
        by_status[key] = by_status.get(key, 0) + n
    problems = session.execute(
        select(Webhook.id, Webhook.name, Webhook.topic, Webhook.status, Webhook.failures)
        .where(or_(Webhook.status != "active", Webhook.failures > 0))
        .order_by(Webhook.failures.desc(), Webhook.id).limit(PROBLEM_WEBHOOKS_SHOWN)).all()
    failures = session.execute(
        select(WebhookDelivery.id, WebhookDelivery.webhook_id, WebhookDelivery.topic, WebhookDelivery.finished_at,
               WebhookDelivery.response_code, WebhookDelivery.error, Webhook.name)
        .outerjoin(Webhook, Webhook.id == WebhookDelivery.webhook_id)
        .where(WebhookDelivery.status == FAILED)
        .order_by(WebhookDelivery.id.desc()).limit(FAILURES_SHOWN)).all()
    tz = site_timezone(session)
    chart = {"labels": ["Active", "Failing", "Paused", "Disabled"],
             "datasets": [{"label": "Webhooks", "data": [by_status["active"], by_status["failing"],
                                                         by_status["paused"], by_status["disabled"]],
                           "colors": ["#17753a", "#a35b00", "#5b6470", "#b3261e"]}]}
    return {"name": "webhooks", "title": "Webhooks", "template": "events/dashboard_webhooks.jinja2", "order": 50,
            "values": {
                "by_status": by_status, "total": sum(by_status.values()), "chart": chart,
                "problems": [{"id": w.id, "name": w.name, "topic": w.topic, "status": w.status, "failures": w.failures,
                              "url": admin_url(request, f"/webhooks/{w.id}/deliveries")} for w in problems],
                "failures": [{"id": d.id, "webhook": d.name or f"Webhook {d.webhook_id} (deleted)", "topic": d.topic,
                              "when": d.finished_at.astimezone(tz).strftime("%Y-%m-%d %H:%M") if d.finished_at else "",
                              "code": d.response_code, "error": (d.error or "")[:200],
                              "url": admin_url(request, f"/webhooks/{d.webhook_id}/deliveries") if d.name else None}
                             for d in failures],
                "list_url": admin_url(request, "/webhooks"),
            }}


def _short(title, length=20):
    return title if len(title) <= length else title[:length - 1] + "…"


def dashboard_panels(request):
    """The panels of ``storeplatform_admin_dashboard_panels`` this user may see."""
    panels = []
    if user_can(request, "manage_shop"):
        panels += [_tickets_panel(request), _checkins_panel(request)]
    if user_can(request, "manage_options"):
        panels.append(_webhooks_panel(request))
    return panels
