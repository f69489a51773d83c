"""The admin's table of events, without HTTP: which events a filter matches (search, event
status, upcoming or past, a range of start dates), in which order, and the figures of each row
(venue, organizer, capacity, tickets sold, checked in), at a constant number of statements per
page whatever the page's size. The CSV export reads the same rows through one statement.

A page is the host's ``paginate``: the offset is walked on the ids alone (a deferred join) and a
page past the middle is read from the far end, so the last page costs what the first does."""
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import case, func, or_, select
from sqlalchemy.orm import aliased

from storeplatform.api import POST_STATUSES, Post, cached, count_rows

from .models import ATTENDEE_STATUSES, EVENT_TYPE, Attendee, EventDetails
from .queries import constant, ilike

# Every event the owner works with: a trashed event is gone from the back office's lists.
LISTED_STATUSES = tuple(s for s in POST_STATUSES if s != "trash")
WHEN = ("upcoming", "past")
_VENUE = aliased(Post, name="venue")
_ORGANIZER = aliased(Post, name="organizer")


@dataclass(frozen=True)
class EventFilter:
    """What the owner asked for, already checked (``admin_events.read_filter``): ``start_from``
    and ``start_to`` are dates of the events' start (their own local dates)."""

    search: str = ""
    status: str = ""  # an EVENT_STATUSES value, or "" for every one
    when: str = ""  # "upcoming", "past" or "" for both
    start_from: date | None = None
    start_to: date | None = None

    @property
    def filtered(self):
        return bool(self.search or self.status or self.when or self.start_from or self.start_to)


def _conditions(session, f, today):
    """(on the post, on the details) of the filter ``f``; ``today`` is the site's date."""
    on_post = [Post.post_type == constant(EVENT_TYPE), Post.status.in_([constant(s) for s in LISTED_STATUSES])]
    on_details = []
    if f.search:
        on_post.append(or_(ilike(Post.title, f.search), ilike(Post.excerpt, f.search)))
    if f.status:
        on_details.append(EventDetails.event_status == f.status)
    # An event that has not ended is upcoming (today's included); one that ended before today is
    # past. Each also bounds the start date, which implies nothing more (an event never ends
    # before it starts: ``posts.date_order_problems``) but lets the start index be walked over
    # that range only instead of every event of the other side (there is no index of end dates).
    if f.when == "upcoming":
        on_details.append(EventDetails.end_date >= today)
        on_details.append(EventDetails.start_date >= today - timedelta(days=longest_event_days(session)))
    elif f.when == "past":
        on_details.append(EventDetails.end_date < today)
        on_details.append(EventDetails.start_date < today)
    if f.start_from is not None:
        on_details.append(EventDetails.start_date >= f.start_from)
    if f.start_to is not None:
        on_details.append(EventDetails.start_date <= f.start_to)
    return on_post, on_details


@cached
def longest_event_days(session):
    """The most days an event runs past its start date (0 when every event is a one-day one):
    how far before today an event that has not ended can have started. One scan of the events'
    dates, kept until an event changes."""
    if session.get_bind().dialect.name == "postgresql":
        span = EventDetails.end_date - EventDetails.start_date  # days, an integer
    else:
        span = func.julianday(EventDetails.end_date) - func.julianday(EventDetails.start_date)
    return int(session.execute(select(func.max(span))).scalar() or 0)


def _order(f):
    """Soonest first for the coming events; latest first otherwise (the owner looks back)."""
    columns = (EventDetails.start_date, EventDetails.start_time, EventDetails.post_id)
    return [c.asc() for c in columns] if f.when == "upcoming" else [c.desc() for c in columns]


def rows_stmt(session, f, today):
    """Events with their venue's and organizer's names, as the table shows them, in its order."""
    on_post, on_details = _conditions(session, f, today)
    return (select(Post.id, Post.title, Post.status, EventDetails.start_date, EventDetails.start_time,
                   EventDetails.end_date, EventDetails.event_status, EventDetails.capacity,
                   EventDetails.venue_id, _VENUE.title.label("venue"),
                   EventDetails.organizer_id, _ORGANIZER.title.label("organizer"))
            .join(EventDetails, EventDetails.post_id == Post.id)
            .outerjoin(_VENUE, _VENUE.id == EventDetails.venue_id)
            .outerjoin(_ORGANIZER, _ORGANIZER.id == EventDetails.organizer_id)
            .where(*on_post, *on_details).order_by(*_order(f)))


def keys_stmt(session, f, today):
    """The ids of ``rows_stmt``'s rows in the same order, from the events and their posts only
    (no venue or organizer joined before the page is known)."""
    on_post, on_details = _conditions(session, f, today)
    return (select(EventDetails.post_id).join(Post, Post.id == EventDetails.post_id)
            .where(*on_post, *on_details).order_by(*_order(f)))


def known_total(session, f, today):
    """The number of events the filter matches, without joining every match to its post: the
    count the database keeps when nothing filters (events per post type and status); for a
    filter on the events' own columns, the matching events counted alone less the trashed ones
    among them (few: a join from the trashed posts' index). None for a search (the page counts
    its match, which the posts' trigram indexes find)."""
    if not f.filtered:
        return count_rows(session, Post, post_type=EVENT_TYPE, status=LISTED_STATUSES)
    if f.search:
        return None
    _, on_details = _conditions(session, f, today)
    matching = select(func.count()).select_from(EventDetails).where(*on_details)
    trashed = (select(func.count()).select_from(EventDetails).join(Post, Post.id == EventDetails.post_id)
               .where(Post.post_type == constant(EVENT_TYPE), Post.status == constant("trash"), *on_details))
    return session.execute(select(matching.scalar_subquery() - trashed.scalar_subquery())).scalar_one()


_SOLD = ("active", "checked_in", "checked_out")
_CAME_IN = ("checked_in", "checked_out")


def figures(session, event_ids):
    """{event id: {"sold", "checked_in", "cancelled"}} for the events of a page, in one grouped
    statement on the attendees' (event_id, status) index: what the page's events sold, whatever
    the size of the site. ``checked_in`` counts who came in (checked out again included)."""
    found = {event_id: {"sold": 0, "checked_in": 0, "cancelled": 0} for event_id in event_ids}
    if not found:
        return found
    rows = session.execute(select(Attendee.event_id, Attendee.status, func.count())
                           .where(Attendee.event_id.in_(sorted(found)))
                           .group_by(Attendee.event_id, Attendee.status))
    for event_id, status, n in rows:
        counts = found[event_id]
        if status in _SOLD:
            counts["sold"] += n
        if status in _CAME_IN:
            counts["checked_in"] += n
        if status == "cancelled":
            counts["cancelled"] += n
    return found


def event_counts(session, event_id):
    """{status: n} of one event's attendees as the database keeps them (a lookup per status:
    four, whatever the size of the event)."""
    return {status: count_rows(session, Attendee, event_id=event_id, status=status) for status in ATTENDEE_STATUSES}


def export_stmt(session, f, today):
    """Every row the filter matches, with its figures, in the table's order: one statement for the
    CSV export, read through a server-side cursor (the attendees counted per event once)."""
    per_event = (select(Attendee.event_id,
                        func.sum(case((Attendee.status.in_(_SOLD), 1), else_=0)).label("sold"),
                        func.sum(case((Attendee.status.in_(_CAME_IN), 1), else_=0)).label("checked_in"))
                 .group_by(Attendee.event_id).subquery("per_event"))
    stmt = rows_stmt(session, f, today)
    return (stmt.add_columns(func.coalesce(per_event.c.sold, 0).label("sold"),
                             func.coalesce(per_event.c.checked_in, 0).label("checked_in"))
            .outerjoin(per_event, per_event.c.event_id == Post.id))
