"""The events plugin's face for other plugins: what a plugin that builds on events reads, by
documented names (docs/events.md, "For other plugins"; docs/plugins.md, "Building on another
plugin"). Another plugin imports this module and nothing else of ``storeplatform_events``
(tests/host/test_structure.py); everything else here may change without notice.

    from storeplatform_events import api as events

Its records are the ones the plugin's REST answers are built from (``EventRecord``: every event
answer of both variants; ``AttendeeRecord``: every attendee answer), read through the same
statements (``event_list``, ``attendee_list``, ``checkin_report``), so the face and REST cannot
part; their field names are pinned by tests/events/test_face.py, so a refactor of the tables
that would change them fails there first. Events are kept like REST's event answers (``@cached``:
computed afresh once an event, post or category changes); attendees change at the door, so their
reads are never kept, and their totals are the counts the database keeps."""
from storeplatform.api import POST_STATUSES, cached, id_in_range

from . import attendee_list, checkin_report, event_list
from .errors import EVENT_INVALID_ID
from .event_record import EventRecord
from .models import ATTENDEE_STATUSES, EVENT_STATUSES, Attendee, AttendeeRecord
from .tickets import typed_code
from .variant import ALTERNATE, api_variant

__all__ = [
    "EventRecord", "AttendeeRecord", "EVENT_STATUSES", "ATTENDEE_STATUSES", "PUBLISHED", "LISTED", "NOT_IN",
    "CAME_IN", "SOLD", "event", "events", "event_or_404", "attendee", "attendee_by_code", "attendees",
    "attendee_page", "attendee_counts", "checkin_stats", "is_in",
]

# Which events a reader sees, by their post status: the public's (REST's lists), or the back
# office's (every status but trash: a trashed event is gone from every list but the trash).
PUBLISHED = event_list.PUBLISHED
LISTED = event_list.LISTED
# An attendee's status at the door. "active": a ticket sold, not scanned yet (not yet in);
# "checked_in": inside; "checked_out": came in and left (may come back in); "cancelled": no
# ticket any more (its order cancelled or refunded, or cancelled by hand).
NOT_IN = "active"
CAME_IN = ("checked_in", "checked_out")
SOLD = ("active", "checked_in", "checked_out")
# A list read at once, without paging, holds at most this many records.
MOST = 10_000


# --- events ----------------------------------------------------------------------------------

def events(session, *, ids=(), statuses=PUBLISHED, upcoming=False, venue_id=None, organizer_id=None, search="",
           limit=100):
    """Events as ``EventRecord``s, by start (date, time, id), at most ``limit`` (1..10,000) of
    them: the events ``ids`` (all when empty) whose post status is one of ``statuses``;
    ``upcoming``: not ended yet (today's included, the site's date); ``venue_id``,
    ``organizer_id``: at that place; ``search``: in the title, content or excerpt. A tuple, kept
    until an event changes."""
    statuses = _statuses(statuses)
    if not 1 <= limit <= MOST:
        raise ValueError(f"limit must be 1..{MOST}, not {limit!r}")
    return _events(session, tuple(int(i) for i in ids), statuses, bool(upcoming), venue_id, organizer_id,
                   str(search), limit)


def event(session, event_id, statuses=PUBLISHED):
    """The ``EventRecord`` of the event ``event_id`` if its post status is one of ``statuses``,
    else None (another post type, a trashed event, an id that names no row)."""
    if not isinstance(event_id, int) or not id_in_range(event_id):
        return None
    found = _events(session, (event_id,), _statuses(statuses), False, None, None, "", 1)
    return found[0] if found else None


def event_or_404(request, event_id, statuses=PUBLISHED):
    """``event(request.db, event_id, statuses)``, or the namespace's own 404 for an unknown event in
    the variant the site serves (``evt_rest_event_invalid_id``; the alternate variant's
    ``rest_not_found``): a route another plugin adds to ``events/v1`` answers as the owner's do."""
    found = event(request.db, event_id, statuses)
    if found is None:
        raise _in_variant(request, EVENT_INVALID_ID())
    return found


@cached
def _events(session, ids, statuses, upcoming, venue_id, organizer_id, search, limit):
    # The event list's own statement (REST's lists, the admin's): the same rows, the same record.
    query = event_list.EventQuery(post_statuses=statuses, include=ids, when="upcoming" if upcoming else "",
                                  venue=venue_id, organizer=organizer_id, search=search, orderby="meta_value",
                                  order="ASC")
    rows = session.execute(event_list.EventList(session, query).rows().limit(limit)).all()
    return tuple(EventRecord.of(post, details) for post, details in rows)


def _statuses(statuses):
    statuses = (statuses,) if isinstance(statuses, str) else tuple(statuses)
    unknown = [s for s in statuses if s not in POST_STATUSES]
    if not statuses or unknown:
        raise ValueError(f"statuses must be post statuses ({', '.join(POST_STATUSES)}), not {statuses!r}")
    return statuses


def _in_variant(request, error):
    if api_variant(request.registry.settings) == ALTERNATE:
        from .alternate.errors import generic

        return generic(error)
    return error


# --- attendees -------------------------------------------------------------------------------

def attendee(session, attendee_id):
    """The ``AttendeeRecord`` of attendee ``attendee_id``, or None."""
    if not isinstance(attendee_id, int) or not id_in_range(attendee_id):
        return None
    found = attendee_list.find(session, Attendee.id == attendee_id)
    return found[0] if found else None


def attendee_by_code(session, ticket_code):
    """The ``AttendeeRecord`` of a ticket code as typed or scanned (blanks and case as the door
    reads them), or None."""
    if not isinstance(ticket_code, str):
        return None
    found = attendee_list.find(session, Attendee.ticket_code == typed_code(ticket_code))
    return found[0] if found else None


def attendees(session, *, event_id=None, status="", order_id=None, limit=1000):
    """Attendees as ``AttendeeRecord``s, oldest ticket first, at most ``limit`` (1..10,000): of
    the event ``event_id``, with the status ``status`` (one of ``ATTENDEE_STATUSES``; ``NOT_IN``
    for those not yet in), of the order ``order_id``. One query; a REST list pages with
    ``attendee_page`` instead."""
    if not 1 <= limit <= MOST:
        raise ValueError(f"limit must be 1..{MOST}, not {limit!r}")
    wanted = attendee_list.AttendeeQuery(event_id=event_id, order_id=order_id, status=_status(status), order="ASC")
    rows = session.execute(attendee_list.rows(wanted).limit(limit)).all()
    return tuple(AttendeeRecord.of_row(row) for row in rows)


def attendee_page(request, *, event_id=None, status="", search="", order="DESC"):
    """The page ``request.validated`` asks for (``page``, ``per_page``: a route's query is a
    ``PaginationSchema``) of the attendees of ``event_id`` with ``status``, whose name, e-mail or
    ticket code holds ``search``, newest ticket first (``order="ASC"``: oldest), with the list's
    headers set (``X-Total``, ``X-TotalPages``, ``Link``): a list of ``AttendeeRecord``s, read as
    REST's ``GET events/v1/attendees`` reads its page."""
    if order not in ("ASC", "DESC"):
        raise ValueError(f"order must be ASC or DESC, not {order!r}")
    wanted = attendee_list.AttendeeQuery(search=str(search), event_id=event_id, status=_status(status), order=order)
    return [record for record, _title in attendee_list.read_page(request, wanted)]


def attendee_counts(session, event_id=None):
    """{status: attendees} of one event (of every event when None), for each of
    ``ATTENDEE_STATUSES``: the counts the database keeps, a lookup each."""
    if event_id is None:
        return {status: attendee_list.known_total(session, attendee_list.AttendeeQuery(status=status))
                for status in ATTENDEE_STATUSES}
    return event_list.status_counts(session, event_id)


def checkin_stats(session, event_id):
    """The event's check-in figures as ``GET events/v1/checkin/stats/{event_id}`` answers them:
    ``total``, ``pending`` (not yet in), ``checked_in``, ``checked_out``, ``cancelled`` and
    ``percentage`` (of the tickets not cancelled that came in, one decimal)."""
    return dict(checkin_report.event_stats(session, event_id))


def is_in(record):
    """Whether the attendee of ``record`` is inside now (checked in, not out again)."""
    return record.status == "checked_in"


def _status(status):
    if status and status not in ATTENDEE_STATUSES:
        raise ValueError(f"status must be one of {', '.join(ATTENDEE_STATUSES)}, not {status!r}")
    return status or ""
