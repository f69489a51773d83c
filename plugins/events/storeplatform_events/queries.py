"""SQL shared by the lists and lookups: a search's substring test, the constants written into a
statement, the category filter, the site's date; the venue and organizer lists with the counts
and embeds a page needs (a constant number of queries whatever the page size; the page itself is
the host's ``paginate``); and the one lookup that answers a catalogue 404. The event list is
``event_list``'s, the attendee list ``attendee_list``'s."""
from datetime import datetime

from sqlalchemy import func, literal, or_, select
from sqlalchemy.orm import lazyload

from storeplatform.api import (
    Post,
    PostTerm,
    Term,
    count_rows,
    id_in_range,
    is_digits,
    site_timezone,
)

from .models import CATEGORY_TAXONOMY, EVENT_TYPE, EventDetails, OrganizerDetails, VenueDetails


def like_pattern(text):
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def ilike(column, text):
    return column.ilike(like_pattern(text), escape="\\")


def constant(value):
    """``value`` written into the statement rather than sent as a parameter: a value of the code
    (a post type, a status), which the database's plan of a prepared statement must know (with
    ``status = $2`` unknown, PostgreSQL's generic plan of a search intersected the matches with
    every post of the type: a scan of the whole index at each search)."""
    return literal(value, literal_execute=True)


def first_or_404(session, stmt, not_found):
    """The first row of ``stmt`` or ``not_found()`` (a catalogue entry): for the lookups that
    are more than an id (a post of one type, an attendee with its event's title, a ticket code);
    plain id lookups use the host's ``get_or_404``."""
    row = session.execute(stmt).first()
    if row is None:
        raise not_found()
    return row


def category_condition(category):
    """Events in the category given by id or slug (an unknown one matches nothing)."""
    text = category.strip()
    if is_digits(text):
        # An id beyond the integer columns names no category (and never reaches int() or SQL).
        term = Term.id == (int(text) if len(text) <= 10 and id_in_range(int(text)) else 0)
    else:
        term = Term.slug == text
    return Post.id.in_(select(PostTerm.post_id).join(Term, Term.id == PostTerm.term_id)
                       .where(Term.taxonomy == CATEGORY_TAXONOMY, term))


def published_events():
    return (select(Post, EventDetails).join(EventDetails, EventDetails.post_id == Post.id)
            .where(Post.post_type == EVENT_TYPE, Post.status == "publish"))


def today(session):
    return datetime.now(site_timezone(session)).date()


def place_list_stmt(kind, v):
    model = kind.model
    stmt = (select(Post, model).join(model, model.post_id == Post.id)
            .where(Post.post_type == constant(kind.post_type), Post.status == constant("publish"))
            .options(lazyload(Post.terms)))
    if v.get("search"):
        extra = model.address if model is VenueDetails else model.email
        stmt = stmt.where(or_(ilike(Post.title, v["search"]), ilike(extra, v["search"])))
    for field in ("city", "country"):
        if v.get(field):
            stmt = stmt.where(func.lower(getattr(model, field)) == v[field].strip().lower())
    # By title: its first 200 characters, the key of the index ix_posts_type_title_id (as the
    # event list's ``TITLE_KEY``), so that a page is a walk of the index, not a sort of every place.
    title = func.substr(Post.title, constant(1), constant(200))
    columns = {"title": [title], "date": [Post.created_at], "modified": [Post.modified_at], "id": []}[
        v["orderby"]] + [Post.id]
    return stmt.order_by(*[c.desc() if v["order"] == "DESC" else c.asc() for c in columns])


def place_total(session, kind, v):
    """The total of a venue or organizer list the database keeps (published posts of the
    kind), when nothing filters it; else None (counted from the match)."""
    if v.get("search") or v.get("city") or v.get("country"):
        return None
    return count_rows(session, Post, post_type=kind.post_type, status="publish")


def event_counts(session, column, ids):
    """Published events per venue or organizer id, one query: the events of those places (an
    index) with each one's status looked up by its id, so that it costs those events whatever
    the size of the site (a join let the planner hash every post once the places had a thousand
    events between them)."""
    if not ids:
        return {}
    status = select(Post.status).where(Post.id == EventDetails.post_id).scalar_subquery()
    stmt = (select(column, func.count()).select_from(EventDetails)
            .where(column.in_(sorted(ids)), status == "publish").group_by(column))
    return dict(session.execute(stmt).all())


def places_by_id(session, ids):
    """Venues and organizers by post id in one query: {id: (post, venue_details, organizer_details)}."""
    if not ids:
        return {}
    rows = session.execute(
        select(Post, VenueDetails, OrganizerDetails)
        .outerjoin(VenueDetails, VenueDetails.post_id == Post.id)
        .outerjoin(OrganizerDetails, OrganizerDetails.post_id == Post.id)
        .where(Post.id.in_(ids)).options(lazyload(Post.terms))).all()
    return {post.id: (post, venue, organizer) for post, venue, organizer in rows}
