"""Check-in and check-out. The database settles races: a conditional UPDATE ... WHERE status
moves the ticket, and its row count tells which of two simultaneous scans won. When it moves
nothing, a read says why; when the read finds that the ticket could move after all (other scans
moved it between the two statements), the answer is decided from the row read under its lock
(``FOR UPDATE``; on SQLite the transaction's write already holds the one writer's lock), which
no other scan can change until this one commits: a ticket that can move always moves, whatever
the interleaving, and the usual refusals (already in, unknown, cancelled) lock nothing."""
from sqlalchemy import Integer, String, bindparam, insert, literal_column, select, update

from storeplatform.api import Post, UTCDateTime, acting_user, id_in_range, utcnow
from storeplatform.api.advanced import DriverStatement

from . import actions, metrics
from .errors import (
    CANCELLED_TICKET,
    INVALID_TICKET,
    NOT_CHECKED_IN,
    WRONG_EVENT,
)
from .models import Attendee, AttendeeRecord, CheckinScan

# A checked-out ticket may come back in (a pass-out), as the scanner at the door expects.
CHECK_IN_FROM = ("active", "checked_out")


class TicketError(Exception):
    """A ticket that cannot be checked in or out now. ``error`` is its entry in the catalogue
    (``errors.py``), ``message`` the text for this case. Not a REST error: the REST API answers
    it through the one translation in ``views.includeme``, the CLI prints ``code: message``."""

    def __init__(self, error, message=None):
        self.error = error
        self.message = message or error.message
        super().__init__(self.message)


def find_ticket(session, ticket_code, locked=False):
    """(attendee, event name) for a ticket code, or (None, None). One query, on the driver; the
    attendee is an ``AttendeeRecord``. ``locked``: the ticket's row stays locked until the
    transaction ends."""
    row = (_FIND_LOCKED if locked else _FIND).first(session, code=ticket_code)
    return (AttendeeRecord._make(row[:-1]), row[-1]) if row else (None, None)


def refusal(attendee, event_id):
    """Why a check-in of this ticket would be refused now, or None."""
    if event_id is not None and attendee.event_id != event_id:
        return TicketError(WRONG_EVENT)
    if attendee.status == "cancelled":
        return TicketError(CANCELLED_TICKET)
    return None


_ATTENDEES = Attendee.__table__
_SCANS = CheckinScan.__table__


def _event_name(event_id):
    return select(Post.title).where(Post.id == event_id).scalar_subquery().label("event_name")


class _Move:
    """A ticket's move (in or out) by its code, on the driver (``DriverStatement``: SQLAlchemy's
    work around one execution through the session, and the ORM instance built from its row, cost
    more than the round trip), and the scan it leaves for the order's history
    (``evt_checkin_scans``, a ticket of an order only). ``first`` returns the row's columns in
    the table's order, then the event's name, or None when nothing moved.

    On PostgreSQL the UPDATE ... RETURNING runs in a WITH whose INSERT records the scan: one
    statement, one round trip, as the move alone. SQLite cannot write in a WITH: the scan is a
    second statement there, in the process."""

    def __init__(self, conditions, values, action):
        moving = update(_ATTENDEES).where(*conditions).values(**values)
        self.alone = DriverStatement(moving.returning(*_ATTENDEES.c, _event_name(_ATTENDEES.c.event_id)))
        moved = moving.returning(*_ATTENDEES.c).cte("moved")
        scan = insert(_SCANS).from_select(
            ["attendee_id", "order_id", "action", "at", "user_id", "user_name"],
            select(moved.c.id, moved.c.order_id, literal_column(f"'{action}'"), bindparam("now", type_=UTCDateTime()),
                   bindparam("user_id", type_=Integer()), bindparam("user_name", type_=String()))
            .where(moved.c.order_id.is_not(None))).cte("scan")
        self.with_scan = DriverStatement(select(*moved.c, _event_name(moved.c.event_id)).add_cte(scan))
        self.scan = DriverStatement(insert(_SCANS).values(
            attendee_id=bindparam("attendee_id"), order_id=bindparam("order_id"), action=literal_column(f"'{action}'"),
            at=bindparam("now"), user_id=bindparam("user_id"), user_name=bindparam("user_name")))

    def first(self, session, **values):
        user = acting_user(session)
        values["user_id"] = user.id if user is not None else None
        values["user_name"] = (user.display_name or user.login)[:250] if user is not None else None
        if session.bind.dialect.name == "postgresql":
            return self.with_scan.first(session, **values)
        moved = self.alone.first(session, **values)
        if moved is not None and moved[_ORDER_ID] is not None:
            self.scan.rowcount(session, attendee_id=moved[0], order_id=moved[_ORDER_ID], now=values["now"],
                               user_id=values["user_id"], user_name=values["user_name"])
        return moved


_ORDER_ID = list(_ATTENDEES.c.keys()).index("order_id")
_EVENT_NAME = _event_name(_ATTENDEES.c.event_id)


def _move_in(by_event):
    # The statuses written in the SQL: an IN of bound values is expanded on every execution.
    statuses = [literal_column(f"'{status}'") for status in CHECK_IN_FROM]
    conditions = [_ATTENDEES.c.ticket_code == bindparam("code"), _ATTENDEES.c.status.in_(statuses)]
    if by_event:
        conditions.append(_ATTENDEES.c.event_id == bindparam("for_event"))
    return _Move(conditions, {"status": "checked_in", "checked_in_at": bindparam("now"), "checked_out_at": None,
                              "modified_at": bindparam("now")}, "checked_in")


_MOVE_IN = {False: _move_in(False), True: _move_in(True)}
# Each returns the attendee's columns in the table's order, then its event's name.
_FIND = DriverStatement(select(*_ATTENDEES.c, _EVENT_NAME).where(_ATTENDEES.c.ticket_code == bindparam("code")))
# The same read holding the ticket's row until the transaction ends: a scan whose move found the
# ticket in another state decides from it. Only the attendee's row is locked, not its event's.
_FIND_LOCKED = DriverStatement(select(*_ATTENDEES.c, _EVENT_NAME)
                               .where(_ATTENDEES.c.ticket_code == bindparam("code"))
                               .with_for_update(of=_ATTENDEES))
_MOVE_OUT = _Move([_ATTENDEES.c.ticket_code == bindparam("code"), _ATTENDEES.c.status == literal_column("'checked_in'")],
                  {"status": "checked_out", "checked_out_at": bindparam("now"), "modified_at": bindparam("now")},
                  "checked_out")


def check_in(session, ticket_code, event_id=None):
    """Returns (attendee, event_name, already_in); raises TicketError. Counted by result in the
    site's metrics (``metrics.CHECKINS``), whichever channel called it."""
    try:
        found = _check_in(session, ticket_code, event_id)
    except TicketError as exc:
        metrics.check_in_refused(exc.error)
        raise
    (metrics.ALREADY_IN if found[2] else metrics.CHECKED_IN)()
    return found


def _check_in(session, ticket_code, event_id):
    """check_in's work.

    The ticket is moved first, by its code, in one round trip that brings back the row and its
    event's name: at the door nearly every scan is a ticket that can come in. Only when nothing
    moved is the ticket read to say why (unknown, another event, cancelled, already in); when
    the read finds it could come in after all (another scan checked it in and a third out again
    between the two statements), it is read again under its row's lock and moved. The attendee
    returned is an ``AttendeeRecord`` of the row the UPDATE returned, or of the read."""
    values = {"code": ticket_code, "now": utcnow()}
    if event_id is not None:
        values["for_event"] = event_id
    move = _MOVE_IN[event_id is not None]
    # An event id no event can have (beyond the id column) moves nothing and would fail the
    # statement's bind: the ticket is read to say why, as for any other event.
    moved = move.first(session, **values) if event_id is None or id_in_range(event_id) else None
    if moved is None:
        for locked in (False, True):
            attendee, name = find_ticket(session, ticket_code, locked)
            if attendee is None:
                raise TicketError(INVALID_TICKET)
            error = refusal(attendee, event_id)
            if error:
                raise error
            if attendee.status == "checked_in":
                return attendee, name, True
        # Under the lock no other scan can change it: this move is certain.
        moved = move.first(session, **values)
        if moved is None:
            raise RuntimeError(f"ticket {attendee.id} ({attendee.status}) did not move under its row's lock")
    attendee = AttendeeRecord._make(moved[:-1])
    actions.attendee_checked_in(session, attendee)
    return attendee, moved[-1], False


def check_out(session, ticket_code):
    """Returns (attendee, event_name); raises TicketError.

    Moved first by its code (one round trip for a ticket that is in); when nothing moved, the
    ticket is read to say why (unknown, not checked in). A read that finds it in after all
    (checked in again by another scan in between) reads it again under its row's lock and moves
    it."""
    moved = _MOVE_OUT.first(session, code=ticket_code, now=utcnow())
    if moved is None:
        for locked in (False, True):
            attendee, _ = find_ticket(session, ticket_code, locked)
            if attendee is None:
                raise TicketError(INVALID_TICKET)
            if attendee.status != "checked_in":
                raise TicketError(NOT_CHECKED_IN)
        moved = _MOVE_OUT.first(session, code=ticket_code, now=utcnow())
        if moved is None:
            raise RuntimeError(f"ticket {attendee.id} did not move out under its row's lock")
    attendee = AttendeeRecord._make(moved[:-1])
    actions.attendee_checked_out(session, attendee)
    return attendee, moved[-1]


def validate(session, ticket_code, event_id=None):
    """(valid, message, attendee, event_name) without changing anything."""
    attendee, event_name = find_ticket(session, ticket_code)
    if attendee is None:
        return False, INVALID_TICKET.message, None, None
    error = refusal(attendee, event_id)
    if error:
        return False, error.message, attendee, event_name
    if attendee.status == "checked_in":
        return False, "This ticket is already checked in.", attendee, event_name
    return True, "Valid ticket.", attendee, event_name
