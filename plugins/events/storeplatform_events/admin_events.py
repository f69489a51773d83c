"""The Events pages of the admin (``manage_shop``): the list an owner works from (search, event
status, upcoming or past, a range of start dates, paging; venue, organizer, capacity, sold and
checked in per row), its CSV export, and an event's page with its figures and links to its
attendees and the door. Nothing here edits an event: that is the REST API's (and the check-in's,
on the attendees pages)."""
from datetime import datetime

from pyramid.httpexceptions import HTTPBadRequest, HTTPNotFound

from storeplatform.api import (AdminPage, Post, admin_url, admin_view, csv_response, export_filename, id_in_range, list_query,
                               page_of, site_timezone)

from . import event_table
from .models import EVENT_STATUSES

EVENTS = AdminPage("events", "Events", "/events", "manage_shop", order=30, section="Events")
CSV_HEADER = ("id", "title", "status", "event_status", "start_date", "start_time", "end_date", "venue",
              "organizer", "capacity", "sold", "checked_in")


def read_filter(request):
    """(the host's ListQuery, the events' filter) from the query string; a bad value is the 400
    page naming it."""
    query = list_query(request, statuses=EVENT_STATUSES, extra=("when",))
    when = query.extra["when"]
    if when not in ("",) + event_table.WHEN:
        raise HTTPBadRequest(f"This list cannot be shown: when must be one of {', '.join(event_table.WHEN)}.")
    return query, event_table.EventFilter(search=query.search, status=query.status, when=when,
                                          start_from=query.date_from, start_to=query.date_to)


def site_today(session):
    return datetime.now(site_timezone(session)).date()


@admin_view(EVENTS, template="events/events.jinja2")
def list_events(request):
    query, f = read_filter(request)
    today = site_today(request.db)
    pager = page_of(request, query, event_table.rows_stmt(request.db, f, today),
                    total=event_table.known_total(request.db, f, today), keys=event_table.keys_stmt(request.db, f, today))
    return {"title": "Events", "pager": pager, "figures": event_table.figures(request.db, [r.id for r in pager.rows]),
            "filter": f, "export_url": admin_url(request, "/events/export.csv", **query.params(page=1)),
            "statuses": EVENT_STATUSES, "today": today}


@admin_view(EVENTS, "/export.csv")
def export_events(request):
    """Every event the list's filter matches (not one page), with the same columns."""
    _, f = read_filter(request)
    stmt = event_table.export_stmt(request.db, f, site_today(request.db))

    def cells(r):
        return (r.id, r.title, r.status, r.event_status, r.start_date, r.start_time, r.end_date, r.venue,
                r.organizer, r.capacity, r.sold, r.checked_in)

    return csv_response(request, export_filename("events", site_timezone(request.db)), CSV_HEADER, stmt, cells)


def event_or_404(request):
    """The event of the URL with its details and its places' names (trashed ones are gone)."""
    event_id = int(request.matchdict["id"]) if len(request.matchdict["id"]) <= 10 else 0
    if not id_in_range(event_id):
        raise HTTPNotFound()
    row = request.db.execute(event_table.rows_stmt(request.db, event_table.EventFilter(), None).order_by(None)
                             .where(Post.id == event_id)).first()
    if row is None:
        raise HTTPNotFound()
    return row


@admin_view(EVENTS, r"/{id:\d+}", template="events/events_one.jinja2")
def show_event(request):
    event = event_or_404(request)
    counts = event_table.event_counts(request.db, event.id)
    came_in = counts["checked_in"] + counts["checked_out"]
    sold = counts["active"] + came_in
    return {"title": event.title or "(no title)", "event": event, "counts": counts, "sold": sold,
            "came_in": came_in, "today": site_today(request.db)}

