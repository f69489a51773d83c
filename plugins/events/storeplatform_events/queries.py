"""SQL of the lists: filters, sorting, and the counts and embeds a page needs (a constant
number of queries whatever the page size; the page itself is the host's ``paginate``); and the
one lookup that answers a catalogue 404."""
from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.orm import lazyload

from storeplatform.api import (
    Post,
    PostTerm,
    Term,
    id_in_range,
    is_digits,
    site_timezone,
)

from .models import (
    CATEGORY_TAXONOMY,
    EVENT_TYPE,
    EventDetails,
    OrganizerDetails,
    VenueDetails,
)


def like_pattern(text):
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def ilike(column, text):
    return column.ilike(like_pattern(text), escape="\\")


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


def event_list_stmt(session, v):
    stmt = published_events()
    if v.get("search"):
        stmt = stmt.where(or_(ilike(Post.title, v["search"]), ilike(Post.content, v["search"]),
                              ilike(Post.excerpt, v["search"])))
    if "status" in v:
        stmt = stmt.where(EventDetails.event_status == v["status"])
    if v.get("category"):
        stmt = stmt.where(category_condition(v["category"]))
    if "venue" in v:
        stmt = stmt.where(EventDetails.venue_id == v["venue"])
    if "organizer" in v:
        stmt = stmt.where(EventDetails.organizer_id == v["organizer"])
    if "start_after" in v:
        stmt = stmt.where(EventDetails.start_date >= v["start_after"])
    if "start_before" in v:
        stmt = stmt.where(EventDetails.start_date <= v["start_before"])
    if v.get("upcoming"):
        stmt = stmt.where(EventDetails.start_date >= today(session))
    if "featured" in v:
        stmt = stmt.where(EventDetails.featured == v["featured"])
    if v.get("include"):
        stmt = stmt.where(Post.id.in_(v["include"]))
    if v.get("exclude"):
        stmt = stmt.where(Post.id.not_in(v["exclude"]))
    columns = {
        "date": [Post.created_at], "title": [Post.title], "modified": [Post.modified_at], "id": [],
        "meta_value": [EventDetails.start_date, EventDetails.start_time],
    }[v["orderby"]] + [Post.id]
    return stmt.order_by(*[c.desc() if v["order"] == "DESC" else c.asc() for c in columns])


def place_list_stmt(kind, v):
    model = kind.model
    stmt = (select(Post, model).join(model, model.post_id == Post.id)
            .where(Post.post_type == kind.post_type, Post.status == "publish").options(lazyload(Post.terms)))
    if v.get("search"):
        extra = model.address if model is VenueDetails else model.email
        stmt = stmt.where(or_(ilike(Post.title, v["search"]), ilike(extra, v["search"])))
    for field in ("city", "country"):
        if v.get(field):
            stmt = stmt.where(func.lower(getattr(model, field)) == v[field].strip().lower())
    columns = {"title": [Post.title], "date": [Post.created_at], "modified": [Post.modified_at], "id": []}[
        v["orderby"]] + [Post.id]
    return stmt.order_by(*[c.desc() if v["order"] == "DESC" else c.asc() for c in columns])


def event_counts(session, column, ids):
    """Published events per venue or organizer id, one query."""
    if not ids:
        return {}
    stmt = (select(column, func.count()).select_from(EventDetails).join(Post, Post.id == EventDetails.post_id)
            .where(Post.status == "publish", column.in_(sorted(ids))).group_by(column))
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
