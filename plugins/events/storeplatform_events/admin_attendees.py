"""The Attendees pages of the admin (``manage_shop``): an event's attendees
(``/admin/events/<id>/attendees``) and every attendee (``/admin/attendees``), each with search
(name, e-mail, ticket code), a status filter, paging and a CSV export, and a check-in or
check-out by hand on each row.

The list is the attendee list REST reads (``attendee_list``, its totals from the counts the
database keeps); a check-in by hand is ``checkin.check_in``, the function behind
``POST events/v1/checkin`` and the desk, a check-out ``checkin.check_out``: the same actions and
webhooks fire. A refused one (already in, cancelled, not in) is shown on the list again, above
the table and on its row, and nothing is written."""
import logging
from urllib.parse import urlencode

from pyramid.httpexceptions import HTTPNotFound
from sqlalchemy import select

from storeplatform.api import (AdminPage, Post, admin_redirect, admin_url, admin_view, csv_response,
                               export_filename, form_values, id_in_range, is_digits, list_query, page_of, refuse_form,
                               site_timezone)

from . import attendee_list, checkin
from .admin_events import EVENTS
from .errors import CHECKIN_FAILED
from .models import ATTENDEE_STATUSES, EVENT_TYPE, Attendee, AttendeeRecord
from .serialize import plain_local

log = logging.getLogger(__name__)

ATTENDEES = AdminPage("attendees", "Attendees", "/attendees", "manage_shop", order=31, section="Events")
STATUS_LABELS = {"active": "Not checked in", "checked_in": "Checked in", "checked_out": "Checked out",
                 "cancelled": "Cancelled"}
STATUS_BADGES = {"active": "badge-warn", "checked_in": "badge-ok", "checked_out": "", "cancelled": "badge-bad"}
CSV_HEADER = ("id", "ticket_code", "first_name", "last_name", "email", "phone", "status", "event_id", "event",
              "order_id", "checked_in_at", "checked_out_at", "created_at")
# The columns of the header; "event" is the event's title, joined by the list's statement.
EXPORT_COLUMNS = tuple(Post.title if name == "event" else getattr(Attendee, name) for name in CSV_HEADER)
# The columns the list sorts by (the attendee list's ``orderby``: a column of the attendees), each
# with its first direction; the list's own order is the newest first.
SORTS = {"name": "asc", "email": "asc", "status": "asc", "checked_in": "desc"}
SORTED_BY = {"name": "last_name", "email": "email", "status": "status", "checked_in": "checked_in_at",
             "created": "created_at"}
ONE_EVENT = r"/{id:\d+}/attendees"
ONE_ATTENDEE = r"/{attendee_id:\d+}"


def _id(text):
    """An id of the URL or a form, or 0 (which names no row) for one beyond the columns."""
    number = int(text) if is_digits(text) and len(text) <= 10 else 0
    return number if id_in_range(number) else 0


def _event(request, event_id):
    """(id, title) of an event (any status but gone: a trashed event's tickets are still
    worked with), or a 404."""
    row = request.db.execute(select(Post.id, Post.title).where(
        Post.id == event_id, Post.post_type == EVENT_TYPE)).first() if event_id else None
    if row is None:
        raise HTTPNotFound()
    return row


def _wanted(query, event):
    """The attendee list the page shows (its filters already checked), newest first."""
    return attendee_list.AttendeeQuery(search=query.search, status=query.status or "",
                                       event_id=event.id if event is not None else None,
                                       orderby=SORTED_BY[query.orderby], order=query.order.upper())


def _base(event):
    return "/attendees" if event is None else f"/events/{event.id}/attendees"


def _query(request):
    # No date filter: an attendee list is read by event, name, code and status.
    return list_query(request, statuses=ATTENDEE_STATUSES, dates=False, sorts={**SORTS, "created": "desc"},
                      default_sort=("created", "desc"))


def _list_page(request, event, query, problem=None, problem_row=None, row_problem=None):
    wanted = _wanted(query, event)
    pager = page_of(request, query, attendee_list.rows(wanted), total=attendee_list.known_total(request.db, wanted),
                    keys=attendee_list.keys(wanted))
    tz = site_timezone(request.db)
    rows = [(AttendeeRecord.of_row(row), row[-1]) for row in pager.rows]
    return {"title": "Attendees" if event is None else f"Attendees: {event.title or '(no title)'}",
            "event": event, "attendees": rows, "pager": pager, "query": query, "kept": query.params(),
            "statuses": ATTENDEE_STATUSES, "labels": STATUS_LABELS, "badges": STATUS_BADGES, "base": _base(event),
            "export_url": admin_url(request, _base(event) + "/export.csv", **query.params(page=1)),
            "local": lambda moment: plain_local(moment, tz), "problem": problem, "problem_row": problem_row,
            "row_problem": row_problem}


@admin_view(ATTENDEES, template="events/attendees.jinja2")
def list_all(request):
    return _list_page(request, None, _query(request))


@admin_view(EVENTS, ONE_EVENT, template="events/attendees.jinja2")
def list_of_event(request):
    return _list_page(request, _event(request, _id(request.matchdict["id"])), _query(request))


def _export(request, event):
    """Every attendee the list's filter matches (not one page), in the list's order, streamed
    on a connection of its own (the host's ``csv_response``)."""
    # The export's own columns only (no custom fields to decode, no bookkeeping).
    stmt = attendee_list.rows(_wanted(_query(request), event), columns=EXPORT_COLUMNS)
    stem = "attendees" if event is None else f"attendees-event-{event.id}"
    return csv_response(request, export_filename(stem, site_timezone(request.db)), CSV_HEADER, stmt)


@admin_view(ATTENDEES, "/export.csv")
def export_all(request):
    return _export(request, None)


@admin_view(EVENTS, ONE_EVENT + "/export.csv")
def export_of_event(request):
    return _export(request, _event(request, _id(request.matchdict["id"])))


# --- check-in and check-out by hand ---------------------------------------------------------------

def _attendee(request):
    attendee_id = _id(request.matchdict["attendee_id"])
    row = request.db.execute(select(Attendee.id, Attendee.ticket_code, Attendee.event_id)
                             .where(Attendee.id == attendee_id)).first() if attendee_id else None
    if row is None:
        raise HTTPNotFound()
    return row


def _move(request, verb):
    """Check the attendee of the URL in or out, then back to the list the form came from (its
    filters and page kept), or that list again with why it was refused."""
    attendee = _attendee(request)
    form = form_values(request)
    scope = _id(form.get("scope", "")) if form.get("scope") else None
    event = _event(request, scope) if scope is not None else None
    # The list the form came from: its filters and page are the form's query string, as the
    # list's own address had them (checked the same way).
    query = _query(request)
    try:
        # A savepoint: a plugin's action failing after the ticket moved undoes the move and the
        # webhook deliveries written with it, as at the desk.
        with request.db.begin_nested():
            if verb == "in":
                _, _, already = checkin.check_in(request.db, attendee.ticket_code, attendee.event_id)
                if already:
                    raise checkin.TicketError(CHECKIN_FAILED, "This attendee is already checked in.")
            else:
                checkin.check_out(request.db, attendee.ticket_code)
    except checkin.TicketError as exc:
        problem, status = exc.message, 409
    except Exception as exc:  # noqa: BLE001  (a plugin's action or the database: shown, and logged)
        log.error("check-%s by hand of attendee %s answered 500: %r", verb, attendee.id, exc)
        problem, status = "The change failed; the ticket is unchanged. Try again.", 500
    else:
        done = "checked in" if verb == "in" else "checked out"
        kept = query.params()
        path = _base(event) + ("?" + urlencode(kept) if kept else "")
        return admin_redirect(request, path, notice=f"Ticket {attendee.ticket_code} {done}.")
    refuse_form(request, status=status)
    values = _list_page(request, event, query, problem=f"Ticket {attendee.ticket_code}: {problem}",
                        problem_row=attendee.id, row_problem=problem)
    # The pager's links lead to the list, not to this form's address.
    pager = values["pager"]
    pager.prev_url, pager.next_url = (
        admin_url(request, values["base"], **query.params(page=n)) if url else None
        for url, n in ((pager.prev_url, pager.page - 1), (pager.next_url, pager.page + 1)))
    return values


@admin_view(ATTENDEES, ONE_ATTENDEE + "/checkin", request_method="POST", template="events/attendees.jinja2")
def check_in_by_hand(request):
    return _move(request, "in")


@admin_view(ATTENDEES, ONE_ATTENDEE + "/checkout", request_method="POST", template="events/attendees.jinja2")
def check_out_by_hand(request):
    return _move(request, "out")
