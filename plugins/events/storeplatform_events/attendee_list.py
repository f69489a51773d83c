"""The attendee list, built in one place for every reader of it: REST's ``GET attendees`` (both
variants) and the admin's Attendees pages and their CSV export; and the statement of one
attendee with its event's title (REST's item routes).

An ``AttendeeQuery`` says what a list asks for (search, event, order, status; its order).
``rows`` is its statement: plain rows of ``AttendeeRecord.COLUMNS`` with the event's title last
(building an ORM instance per row of a page of 100 costs more than the page's query), or the
columns the caller names (the export's); ``keys`` the same ids in the same order from the
attendees alone (the offset is walked on an attendees index, the titles joined to the page
only); ``known_total`` the number of rows when the database keeps it; ``read_page`` the page a
REST request asks for, as records (REST's lists in both variants and the plugin's face)."""
from dataclasses import dataclass

from sqlalchemy import and_, func, or_, select

from storeplatform.api import Post, count_rows, paginate

from .models import Attendee, AttendeeRecord, AttendeeSearch
from .queries import ilike, like_pattern


def text_holders(text):
    """The ids of the attendees whose first name, last name, e-mail and ticket code, as one
    lower-case text (``AttendeeSearch``), hold ``text``: on PostgreSQL a read of its trigram
    index, where a search of the columns one by one scans every attendee."""
    return select(AttendeeSearch.attendee_id).where(
        AttendeeSearch.words.like(func.lower(like_pattern(text)), escape="\\"))


def attendee_text_holds(text):
    """Attendees among ``text_holders(text)``. A search of any of the four texts (or of two
    joined by a space) is narrowed by it, then checked exactly: a match here may run across two
    of them."""
    return Attendee.id.in_(text_holders(text))


def search_condition(search):
    """Attendees whose first name, last name, e-mail or ticket code holds ``search``
    (case-insensitive; the trigram index narrows it on PostgreSQL: ``attendee_text_holds``)."""
    return and_(attendee_text_holds(search),
                or_(ilike(Attendee.first_name, search), ilike(Attendee.last_name, search),
                    ilike(Attendee.email, search), ilike(Attendee.ticket_code, search)))


def name_or_email_condition(search):
    """Attendees whose first name, last name, both ("Anna Nowak") or e-mail holds ``search``
    (the alternate variant's search; narrowed by the same index)."""
    return and_(attendee_text_holds(search),
                or_(ilike(Attendee.first_name, search), ilike(Attendee.last_name, search),
                    ilike(Attendee.first_name + " " + Attendee.last_name, search), ilike(Attendee.email, search)))


SEARCHES = {"text": search_condition, "name_or_email": name_or_email_condition}


@dataclass(frozen=True)
class AttendeeQuery:
    """What an attendee list asks for, already checked. A filter left at its default is off."""

    search: str = ""
    search_by: str = "text"  # a key of SEARCHES
    event_id: int | None = None
    order_id: int | None = None
    status: str = ""  # an ATTENDEE_STATUSES value
    orderby: str = "created_at"  # a column of the attendees
    order: str = "DESC"


def attendee_rows(model=None):
    """Attendees with their event's title: plain rows of ``AttendeeRecord.COLUMNS``, or
    ``model``s (to write one)."""
    columns = (model,) if model is not None else AttendeeRecord.COLUMNS
    return select(*columns, Post.title).outerjoin(Post, Post.id == Attendee.event_id)


def find(session, condition):
    """(``AttendeeRecord``, event title) of the attendee ``condition`` names (an id, a ticket code),
    or None: one query, REST's item routes and the plugin's face alike."""
    row = session.execute(attendee_rows().where(condition)).first()
    return None if row is None else (AttendeeRecord.of_row(row), row[-1])


def _conditions(q):
    found = []
    if q.search:
        found.append(SEARCHES[q.search_by](q.search))
    if q.event_id is not None:
        found.append(Attendee.event_id == q.event_id)
    if q.order_id is not None:
        found.append(Attendee.order_id == q.order_id)
    if q.status:
        found.append(Attendee.status == q.status)
    return found


def _order(q):
    """The list's order: ``orderby`` (a column of the attendees), then the id; each walks an index
    of all attendees and one of an event's (``Attendee``'s)."""
    return [c.desc() if q.order == "DESC" else c.asc() for c in (getattr(Attendee, q.orderby), Attendee.id)]


def rows(q, columns=None):
    """The list's statement; ``columns``: the ones read in place of the list's (the CSV export's,
    ``Post.title`` the event's title), its filters, join and order kept."""
    stmt = attendee_rows().where(*_conditions(q)).order_by(*_order(q))
    return stmt if columns is None else stmt.with_only_columns(*columns)


def keys(q):
    """The ids of ``rows`` in the same order, from the attendees alone."""
    return select(Attendee.id).where(*_conditions(q)).order_by(*_order(q))


def known_total(session, q):
    """The list's total as the database keeps it (per status, per event and status), when no
    other filter applies; else None (counted from the match)."""
    if q.search or q.order_id is not None:
        return None
    kept = {name: value for name, value in (("event_id", q.event_id), ("status", q.status or None))
            if value is not None}
    return count_rows(session, Attendee, **kept)


def read_page(request, q):
    """The page of the list ``q`` that ``request.validated`` asks for (``page``, ``per_page``), with
    the list's headers set (``X-Total``, ``X-TotalPages``, ``Link``): (``AttendeeRecord``, event
    title) pairs. REST's attendee lists and the face's ``attendee_page`` both read through it."""
    found = paginate(request, rows(q), total=known_total(request.db, q), keys=keys(q))
    return [(AttendeeRecord.of_row(row), row[-1]) for row in found]
