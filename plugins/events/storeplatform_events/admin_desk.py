"""The check-in desk of the admin (``manage_shop``), made for a phone at the door:
``/admin/checkin`` chooses an event (today's, upcoming, past, or a search by title, dates in the
site's time zone); ``/admin/checkin/<event_id>`` scans with the camera or takes a
typed code; its script posts each code to ``.../scan`` and reads ``.../live`` (stats and the
recent check-ins). Both answer JSON. A scan runs ``desk.scan``, which calls the same check-in
function as ``POST events/v1/checkin``: the same actions and webhooks fire. The desk works
whether or not the events REST API is switched on, and in both variants of it."""
from pyramid.httpexceptions import HTTPNotFound
from pyramid.response import Response

from storeplatform.api import AdminPage, admin_view, form_values, id_in_range, query_values, site_timezone

from . import checkin_report, desk

DESK = AdminPage("events-checkin", "Check-in desk", "/checkin", "manage_shop", order=40, section="Events")
RECENT_SHOWN = 10
MAX_SEARCH = 200


def _json(request, body, status=200):
    response = Response(json_body=body, status=status)
    response.headers["Cache-Control"] = "no-store"
    return response


def _event(request):
    """(id, title) of the event in the URL, or None (unknown, trashed, or an id beyond the columns)."""
    event_id = int(request.matchdict["event_id"])
    return desk.door_event(request.db, event_id) if id_in_range(event_id) else None


def _live(request, event_id):
    return {"stats": checkin_report.event_stats(request.db, event_id),
            "recent": checkin_report.recent_checkins(request.db, event_id, RECENT_SHOWN, site_timezone(request.db))}


@admin_view(DESK, template="events/desk_events.jinja2")
def choose_event(request):
    today = desk.local_now(site_timezone(request.db)).date()
    search = query_values(request).get("search", "").strip()[:MAX_SEARCH]
    values = {"title": "Check-in desk", "today": today, "search": search, "choice": None, "found": None,
              "more_found": False}
    if search:
        values["found"], values["more_found"] = desk.find_door_events(request.db, search)
    else:
        values["choice"] = desk.door_events(request.db, today)
    return values


@admin_view(DESK, r"/{event_id:\d+}", template="events/desk.jinja2")
def desk_page(request):
    event = _event(request)
    if event is None:
        raise HTTPNotFound()
    event_id, title = event
    return {"title": f"Check-in: {title}", "event_id": event_id, "event_title": title,
            "live": _live(request, event_id)}


@admin_view(DESK, r"/{event_id:\d+}/scan", request_method="POST")
def scan(request):
    event = _event(request)
    if event is None:
        return _json(request, {"message": "There is no such event."}, 404)
    try:
        result = desk.scan(request.db, form_values(request).get("code"), event[0], site_timezone(request.db))
    except desk.BadCode as exc:
        return _json(request, {"message": str(exc)}, 400)
    return _json(request, result)


@admin_view(DESK, r"/{event_id:\d+}/live")
def live(request):
    event = _event(request)
    if event is None:
        return _json(request, {"message": "There is no such event."}, 404)
    return _json(request, {"event_id": event[0], "event_name": event[1], **_live(request, event[0])})
