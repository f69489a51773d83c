"""The Events pages of the admin (``manage_shop``): the list an owner works from (search, event
status, upcoming or past, a range of start dates, paging; venue, organizer, capacity, sold and
checked in per row), its CSV export, and an event's page with its figures and links to its
attendees and the door, and its ticket types (admin_ticket_types.py). Events are made and
changed by admin_event_form.py, venues and organizers by admin_places.py."""
from pyramid.httpexceptions import HTTPBadRequest, HTTPNotFound

from storeplatform.api import (AdminPage, admin_url, admin_view, csv_response, export_filename, id_in_range, list_query,
                               page_of, site_timezone)

from . import event_list, ticket_types
from .models import EVENT_STATUSES
from .queries import today

EVENTS = AdminPage("events", "Events", "/events", "manage_shop", order=30, section="Events")
CSV_HEADER = ("id", "title", "status", "event_status", "start_date", "start_time", "end_date", "venue",
              "organizer", "capacity", "sold", "checked_in")
# The search box reads the title and the summary ("Title or summary"), not the description.
SEARCHED = ("title", "excerpt")
# The columns the list sorts by (event_list.ORDERS' keys), each with its first direction.
SORTS = {"start": "asc", "title": "asc"}


def read_filter(request, figures=False):
    """(the host's ListQuery, the event list's query) from the query string; a bad value is the
    400 page naming it. The admin's row of every event but the trashed ones, soonest first for
    the coming events, latest first otherwise (the owner looks back), or by ``orderby``."""
    query = list_query(request, statuses=EVENT_STATUSES, extra=("when",), sorts=SORTS, default_sort=("start", "desc"))
    if query.extra["when"] == "upcoming":  # the coming events' own order: the soonest first
        query = list_query(request, statuses=EVENT_STATUSES, extra=("when",), sorts=SORTS,
                           default_sort=("start", "asc"))
    when = query.extra["when"]
    if when not in ("",) + event_list.WHEN:
        raise HTTPBadRequest(f"This list cannot be shown: when must be one of {', '.join(event_list.WHEN)}.")
    return query, event_list.EventQuery(
        post_statuses=event_list.LISTED, search=query.search, search_in=SEARCHED, status=query.status, when=when,
        start_from=query.date_from, start_to=query.date_to, orderby=query.orderby, order=query.order.upper(),
        table=True, figures=figures, today=today(request.db))


@admin_view(EVENTS, template="events/events.jinja2")
def list_events(request):
    query, wanted = read_filter(request)
    events = event_list.EventList(request.db, wanted)
    pager = page_of(request, query, events.rows(), total=events.known_total(), keys=events.keys())
    return {"title": "Events", "pager": pager, "figures": event_list.figures(request.db, [r.id for r in pager.rows]),
            "filter": wanted, "query": query,
            "export_url": admin_url(request, "/events/export.csv", **query.params(page=1)),
            "statuses": EVENT_STATUSES, "today": wanted.today}


@admin_view(EVENTS, "/export.csv")
def export_events(request):
    """Every event the list's filter matches (not one page), with the same columns."""
    _, wanted = read_filter(request, figures=True)
    stmt = event_list.EventList(request.db, wanted).rows()

    def cells(r):
        return (r.id, r.title, r.status, r.event_status, r.start_date, r.start_time, r.end_date, r.venue,
                r.organizer, r.capacity, r.sold, r.checked_in)

    return csv_response(request, export_filename("events", site_timezone(request.db)), CSV_HEADER, stmt, cells)


def event_or_404(request):
    """The event of the URL with its details and its places' names (trashed ones are gone)."""
    event_id = int(request.matchdict["id"]) if len(request.matchdict["id"]) <= 10 else 0
    row = event_list.listed_event(request.db, event_id) if id_in_range(event_id) else None
    if row is None:
        raise HTTPNotFound()
    return row


@admin_view(EVENTS, r"/{id:\d+}", template="events/events_one.jinja2")
def show_event(request):
    return event_page(request, event_or_404(request))


def event_page(request, event, ticket_form=None):
    """The event's page: its facts, its figures, its ticket types and the form that adds one
    (``ticket_form``: the values and errors of a refused one)."""
    counts = event_list.status_counts(request.db, event.id)
    came_in = counts["checked_in"] + counts["checked_out"]
    sold = counts["active"] + came_in
    tz = site_timezone(request.db)
    return {"title": event.title or "(no title)", "event": event, "counts": counts, "sold": sold,
            "came_in": came_in, "today": today(request.db), "tz": tz,
            "ticket_types": ticket_types.event_ticket_types(request.db, event.id),
            "ticket_form": ticket_form or {"values": {"capacity": "0"}, "errors": {}}}

