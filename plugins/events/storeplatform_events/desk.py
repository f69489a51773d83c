"""The check-in desk of the admin, without HTTP: which events the door can choose (today's,
the next upcoming ones, the last past ones, or a search), and one scan of a ticket code, told as
a result the desk shows (checked in, already in, cancelled, wrong event, unknown, failed) with
the attendee's name.

A scan calls ``checkin.check_in``, the function behind ``POST events/v1/checkin``, so the
``attendee_checked_in`` action and the ``attendee.checked_in`` webhook fire exactly as there."""
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select

from storeplatform.api import Post

from . import checkin
from .errors import CANCELLED_TICKET, INVALID_TICKET, WRONG_EVENT
from .models import EVENT_TYPE, EventDetails
from .queries import constant, ilike
from .serialize import plain_local
from .tickets import typed_code

log = logging.getLogger(__name__)

# The longest ticket code the desk looks up (codes are 16 characters; the column holds 40):
# a longer text is a scan of something else, refused as bad input before any query.
MAX_CODE_LENGTH = 100
# The chooser: every event of today (up to TODAY_SHOWN), the next UPCOMING_SHOWN, the last
# PAST_SHOWN, and a search by title for the others (up to FOUND_SHOWN matches). Each part is one
# query that stops at its limit (a walk of the start date index), whatever the number of events.
TODAY_SHOWN, UPCOMING_SHOWN, PAST_SHOWN, FOUND_SHOWN = 200, 20, 20, 50
# Today's events are those running today: started today, or started up to this many days ago
# and not yet ended (a festival). Looking back no further keeps the query a bounded walk of the
# start date index; an event running longer than that is found by the search.
LONGEST_RUN_DAYS = 31

KIND_OF_ERROR = {INVALID_TICKET.code: "unknown", WRONG_EVENT.code: "wrong_event",
                 CANCELLED_TICKET.code: "cancelled"}
TITLES = {
    "checked_in": "Checked in",
    "already_in": "Already checked in",
    "cancelled": "Cancelled ticket",
    "wrong_event": "Wrong event",
    "unknown": "Unknown ticket",
    "failed": "Check-in failed",
}


class BadCode(ValueError):
    """A ticket code the desk does not look up (empty, too long, control characters)."""


def clean_code(text):
    """The ticket code of what was typed or scanned, as REST reads one (``tickets.typed_code``:
    surrounding blanks dropped, in capitals); raises BadCode."""
    if not isinstance(text, str):
        raise BadCode("Enter a ticket code.")
    code = typed_code(text)
    if not code:
        raise BadCode("Enter a ticket code.")
    if len(code) > MAX_CODE_LENGTH:
        raise BadCode(f"A ticket code has at most {MAX_CODE_LENGTH} characters.")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in code):
        raise BadCode("A ticket code has no control characters.")
    return code


def local_now(tz):
    """Now in the site's time zone (a function of its own: the tests move the clock)."""
    return datetime.now(tz)


@dataclass(frozen=True)
class DoorEvent:
    id: int
    title: str
    start_date: object
    start_time: str
    end_date: object

    def when(self, today):
        """Where the event stands on ``today``: "today", "upcoming" or "past"."""
        if self.start_date > today:
            return "upcoming"
        return "past" if self.end_date < today else "today"


@dataclass(frozen=True)
class DoorChoice:
    """The events the door can choose: each part in its order, and whether it has more."""

    today: list
    upcoming: list
    past: list
    more_today: bool = False
    more_upcoming: bool = False
    more_past: bool = False


def _door_select():
    return (select(Post.id, Post.title, EventDetails.start_date, EventDetails.start_time, EventDetails.end_date)
            .join(EventDetails, EventDetails.post_id == Post.id)
            .where(Post.post_type == constant(EVENT_TYPE), Post.status != constant("trash")))


def _first(session, stmt, limit):
    """(events, more): at most ``limit`` events of ``stmt`` and whether there were more."""
    rows = session.execute(stmt.limit(limit + 1)).all()
    return [DoorEvent(*row) for row in rows[:limit]], len(rows) > limit


def door_events(session, today):
    """The events the door can choose on ``today`` (a date in the site's time zone); trashed
    events are left out. Today's: running today (started today, or earlier and not yet ended),
    by start; upcoming: starting after today, soonest first; past: ended before today, latest
    first. Three queries, each a walk of the start date index that stops at its limit."""
    # post_id of the details (the join key, = Post.id): the order is the index's, then a column of
    # the same table, which PostgreSQL sorts incrementally and stops at the limit.
    start = (EventDetails.start_date, EventDetails.start_time, EventDetails.post_id)
    running, more_today = _first(session, _door_select().where(
        EventDetails.start_date <= today, EventDetails.start_date >= today - timedelta(days=LONGEST_RUN_DAYS),
        EventDetails.end_date >= today).order_by(*start), TODAY_SHOWN)
    upcoming, more_upcoming = _first(session, _door_select().where(EventDetails.start_date > today)
                                     .order_by(*start), UPCOMING_SHOWN)
    past, more_past = _first(session, _door_select().where(EventDetails.start_date < today,
                                                           EventDetails.end_date < today)
                             .order_by(*(c.desc() for c in start)), PAST_SHOWN)
    return DoorChoice(running, upcoming, past, more_today, more_upcoming, more_past)


def find_door_events(session, search):
    """Events whose title holds ``search`` (case-insensitive), latest start first: one query
    (PostgreSQL's trigram index on titles finds the matches)."""
    return _first(session, _door_select().where(ilike(Post.title, search))
                  .order_by(EventDetails.start_date.desc(), EventDetails.start_time.desc(), EventDetails.post_id.desc()),
                  FOUND_SHOWN)


def door_event(session, event_id):
    """(id, title) of an event the desk can work for, or None."""
    row = session.execute(select(Post.id, Post.title).where(
        Post.id == event_id, Post.post_type == EVENT_TYPE, Post.status != "trash")).first()
    return (row.id, row.title) if row else None


def _person(attendee, event_name):
    return {"name": f"{attendee.first_name} {attendee.last_name}".strip(), "ticket_code": attendee.ticket_code,
            "status": attendee.status, "event_id": attendee.event_id, "event_name": event_name or ""}


def _result(kind, message, attendee=None, event_name=None, checked_in_at=None):
    return {"result": kind, "title": TITLES[kind], "message": message,
            "attendee": None if attendee is None else _person(attendee, event_name),
            "checked_in_at": checked_in_at}


def _check_in(session, code, event_id):
    # A savepoint: when a plugin's action fails after the ticket moved, the move (and the
    # webhook deliveries written with it) are undone and the rest of the request goes on.
    with session.begin_nested():
        return checkin.check_in(session, code, event_id)


def scan(session, text, event_id, tz):
    """Check the ticket ``text`` in for ``event_id``; the result the desk shows. Raises BadCode."""
    # The code is read once, as REST reads it, and checked in once: one scan is one result in
    # the check-in metrics (no "invalid" counted for a first try in small letters).
    code = clean_code(text)
    try:
        attendee, event_name, already = _check_in(session, code, event_id)
    except checkin.TicketError as exc:
        kind = KIND_OF_ERROR.get(exc.error.code, "failed")
        attendee, event_name = (None, None) if kind in ("unknown", "failed") else checkin.find_ticket(session, code)
        return _result(kind, exc.message, attendee, event_name,
                       None if attendee is None else plain_local(attendee.checked_in_at, tz))
    except Exception as exc:  # noqa: BLE001  (shown at the desk, and logged)
        log.warning("check-in at the desk failed: %r", exc)
        return _result("failed", "The check-in failed; the ticket is unchanged. Try again.")
    kind = "already_in" if already else "checked_in"
    message = "Attendee already checked in." if already else "Attendee checked in."
    return _result(kind, message, attendee, event_name, plain_local(attendee.checked_in_at, tz))
