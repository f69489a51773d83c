"""The event list, built in one place for every reader of it: REST's ``GET events`` (both variants),
the admin's Events page, its CSV export and an event's page, and the dashboard's next events.

An ``EventQuery`` says what a list asks for: which events (post statuses, search, event status,
category, places, type, dates), in which order, and which columns (the events with their details,
or the admin's table row, with each row's tickets for the export). ``EventList`` builds its
statements: ``rows``, ``keys`` (the same ids in the same order from fewer tables, when that spares
joins before the page is known: the host's ``paginate`` and ``page_of`` walk the offset there and
read only the page's rows) and ``known_total`` (the number of rows without counting them, when the
database keeps it). A page costs the same statements whatever its size and the site's; a page past
the middle is read from the far end, so the last page costs what the first does."""
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import case, func, or_, select
from sqlalchemy.orm import aliased

from storeplatform.api import POST_STATUSES, Post, cached, count_rows

from .models import ATTENDEE_STATUSES, EVENT_TYPE, Attendee, EventDetails
from .queries import category_condition, constant, ilike, today

PUBLISHED = ("publish",)
# Every event the owner works with: a trashed event is gone from the back office's lists.
LISTED = tuple(s for s in POST_STATUSES if s != "trash")
WHEN = ("upcoming", "past")
SEARCHED = ("title", "content", "excerpt")
# The title as the lists sort it: its first 200 characters, which the host's posts index holds
# (``ix_posts_type_title_id``; a whole title may be longer than an index entry can be), the id
# breaking ties. Written as constants: an index of an expression serves that very expression.
TITLE_KEY = func.substr(Post.title, constant(1), constant(200))
ORDERS = {
    "date": (Post.created_at, Post.id),
    "title": (TITLE_KEY, Post.id),
    "modified": (Post.modified_at, Post.id),
    "id": (Post.id,),
    "meta_value": (EventDetails.start_date, EventDetails.start_time, Post.id),
    # The admin's start order ends on the events' own id (the join key, = Post.id), so that its keys
    # are a walk of the start index that PostgreSQL sorts incrementally and stops at the page.
    "start": (EventDetails.start_date, EventDetails.start_time, EventDetails.post_id),
}
ON_POSTS = ("date", "title", "modified", "id")
_VENUE = aliased(Post, name="venue")
_ORGANIZER = aliased(Post, name="organizer")
TABLE_COLUMNS = (Post.id, Post.title, Post.status, EventDetails.start_date, EventDetails.start_time,
                 EventDetails.end_date, EventDetails.event_status, EventDetails.capacity,
                 EventDetails.venue_id, _VENUE.title.label("venue"),
                 EventDetails.organizer_id, _ORGANIZER.title.label("organizer"))
_SOLD = ("active", "checked_in", "checked_out")
_CAME_IN = ("checked_in", "checked_out")


@dataclass(frozen=True)
class EventQuery:
    """What an event list asks for, already checked. A filter left at its default is off."""

    post_statuses: tuple = PUBLISHED  # REST lists the published events, the admin every one but trashed
    search: str = ""  # a case-insensitive substring of any of the post's ``search_in`` columns
    search_in: tuple = SEARCHED
    status: str = ""  # an EVENT_STATUSES value
    category: str = ""  # an id or a slug
    venue: int | None = None
    organizer: int | None = None
    event_type: str = ""
    when: str = ""  # "upcoming": not ended (today's included); "past": ended before today
    start_from: date | None = None  # the events' start dates, their own local dates
    start_to: date | None = None
    from_today: bool = False  # starting today or later (REST's ``upcoming``)
    featured: bool | None = None
    include: tuple = ()
    exclude: tuple = ()
    orderby: str = "date"  # a key of ORDERS
    order: str = "DESC"
    table: bool = False  # the admin's row (TABLE_COLUMNS: its venue's and organizer's names) for the entities
    figures: bool = False  # with ``table``: each row's tickets sold and checked in (a page: ``figures()``)
    today: date | None = None  # the site's date, for the filters that need it (else read from the site)

    @property
    def filtered(self):
        """Whether anything narrows the events of ``post_statuses``."""
        return bool(self.search or self.status or self.category or self.venue is not None
                    or self.organizer is not None or self.event_type or self.when or self.start_from
                    or self.start_to or self.from_today or self.featured is not None or self.include
                    or self.exclude)


def _post_status(statuses):
    if len(statuses) == 1:
        return Post.status == constant(statuses[0])
    return Post.status.in_([constant(s) for s in statuses])


def _post_conditions(q):
    """The filters of ``q`` on the posts table (beyond the type and status)."""
    found = []
    if q.search:
        found.append(or_(*(ilike(getattr(Post, column), q.search) for column in q.search_in)))
    if q.category:
        found.append(category_condition(q.category))
    if q.include:
        found.append(Post.id.in_(q.include))
    if q.exclude:
        found.append(Post.id.not_in(q.exclude))
    return found


def _when_conditions(session, when, day):
    # An event that has not ended is upcoming (today's included); one that ended before today is
    # past. Each also bounds the start date, which implies nothing more (an event never ends
    # before it starts: ``posts.date_order_problems``) but lets the start index be walked over
    # that range only instead of every event of the other side (there is no index of end dates).
    if when == "upcoming":
        return [EventDetails.end_date >= day,
                EventDetails.start_date >= day - timedelta(days=longest_event_days(session))]
    return [EventDetails.end_date < day, EventDetails.start_date < day]


def _detail_conditions(session, q):
    """The filters of ``q`` on the events' own columns."""
    day = q.today
    if day is None and (q.when or q.from_today):
        day = today(session)
    found = []
    if q.status:
        found.append(EventDetails.event_status == q.status)
    if q.venue is not None:
        found.append(EventDetails.venue_id == q.venue)
    if q.organizer is not None:
        found.append(EventDetails.organizer_id == q.organizer)
    if q.when:
        found += _when_conditions(session, q.when, day)
    if q.start_from is not None:
        found.append(EventDetails.start_date >= q.start_from)
    if q.start_to is not None:
        found.append(EventDetails.start_date <= q.start_to)
    if q.from_today:
        found.append(EventDetails.start_date >= day)
    if q.featured is not None:
        found.append(EventDetails.featured == q.featured)
    if q.event_type:
        found.append(EventDetails.event_type == q.event_type)
    return found


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


class EventList:
    """The statements of the list ``query`` asks for (its conditions worked out once)."""

    def __init__(self, session, query):
        self.session = session
        self.query = query
        self.kind = [Post.post_type == constant(EVENT_TYPE), _post_status(query.post_statuses)]
        self.on_post = _post_conditions(query)
        self.on_details = _detail_conditions(session, query)

    def ordered(self, columns):
        return [c.desc() if self.query.order == "DESC" else c.asc() for c in columns]

    def rows(self):
        """The list: (post, details) pairs, or the admin's table rows (``table``, ``figures``)."""
        q = self.query
        if not q.table:
            stmt = select(Post, EventDetails).join(EventDetails, EventDetails.post_id == Post.id)
        else:
            stmt = (select(*TABLE_COLUMNS).join(EventDetails, EventDetails.post_id == Post.id)
                    .outerjoin(_VENUE, _VENUE.id == EventDetails.venue_id)
                    .outerjoin(_ORGANIZER, _ORGANIZER.id == EventDetails.organizer_id))
        stmt = stmt.where(*self.kind, *self.on_post, *self.on_details).order_by(*self.ordered(ORDERS[q.orderby]))
        return _with_figures(stmt) if q.table and q.figures else stmt

    def keys(self):
        """The ids of ``rows`` in the same order from fewer tables, or None when there are none
        fewer: the posts alone when nothing filters or sorts on the events' own columns (every
        event post has its details row, made in the transaction that makes the post); else, for
        the admin's row, the events and their posts without the places."""
        q = self.query
        columns = ORDERS[q.orderby]
        if not self.on_details and q.orderby in ON_POSTS:
            if not q.search:
                return select(Post.id).where(*self.kind, *self.on_post).order_by(*self.ordered(columns))
            # The matches first, then their order (OFFSET 0 keeps the planner from walking the
            # list's order and testing every post until a page of matches is found): a search
            # costs its matches, which the trigram indexes find on PostgreSQL.
            named = {getattr(c, "key", None) or f"sort_{i}": c for i, c in enumerate(columns)}  # the title's key
            matched = (select(*(c if getattr(c, "key", None) == name else c.label(name) for name, c in named.items()))
                       .where(*self.kind, *self.on_post).offset(0).subquery("matched"))
            return select(matched.c.id).order_by(*self.ordered([matched.c[name] for name in named]))
        if q.table:
            return (select(EventDetails.post_id).join(Post, Post.id == EventDetails.post_id)
                    .where(*self.kind, *self.on_post, *self.on_details).order_by(*self.ordered(columns)))
        return None

    def known_total(self):
        """The number of rows without joining every match to its post, or None (the page counts
        its match): the count the database keeps when nothing filters (events per post type and
        status); for the admin's filters on the events' own columns, the matching events counted
        alone less the trashed ones among them (few: a join from the trashed posts' index)."""
        q = self.query
        if not q.filtered:
            return count_rows(self.session, Post, post_type=EVENT_TYPE, status=q.post_statuses)
        if self.on_post or q.post_statuses != LISTED:
            return None
        matching = select(func.count()).select_from(EventDetails).where(*self.on_details)
        trashed = (select(func.count()).select_from(EventDetails).join(Post, Post.id == EventDetails.post_id)
                   .where(Post.post_type == constant(EVENT_TYPE), Post.status == constant("trash"),
                          *self.on_details))
        return self.session.execute(select(matching.scalar_subquery() - trashed.scalar_subquery())).scalar_one()


def _with_figures(stmt):
    """``stmt`` (the admin's rows) with each row's tickets sold and checked in: one statement for
    the CSV export, read through a server-side cursor (the attendees counted per event once)."""
    per_event = (select(Attendee.event_id,
                        func.sum(case((Attendee.status.in_(_SOLD), 1), else_=0)).label("sold"),
                        func.sum(case((Attendee.status.in_(_CAME_IN), 1), else_=0)).label("checked_in"))
                 .group_by(Attendee.event_id).subquery("per_event"))
    return (stmt.add_columns(func.coalesce(per_event.c.sold, 0).label("sold"),
                             func.coalesce(per_event.c.checked_in, 0).label("checked_in"))
            .outerjoin(per_event, per_event.c.event_id == Post.id))


def listed_event(session, event_id):
    """The admin's row of one event (any status but trashed), or None."""
    stmt = EventList(session, EventQuery(post_statuses=LISTED, table=True)).rows()
    return session.execute(stmt.order_by(None).where(Post.id == event_id)).first()


def figures(session, event_ids):
    """{event id: {"sold", "checked_in", "cancelled"}} for the events of a page, in one grouped
    statement on the attendees' (event_id, status) index: what the page's events sold, whatever
    the size of the site (``figures`` of the query, for a page). ``checked_in`` counts who came
    in (checked out again included); sold, every ticket not cancelled."""
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


def status_counts(session, event_id):
    """{status: n} of one event's attendees as the database keeps them (a lookup per status:
    four, whatever the size of the event)."""
    return {status: count_rows(session, Attendee, event_id=event_id, status=status) for status in ATTENDEE_STATUSES}
