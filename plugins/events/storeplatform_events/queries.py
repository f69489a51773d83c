"""SQL of the lists: filters, sorting, one page, and the counts and embeds a page needs
(a constant number of queries whatever the page size)."""
from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.orm import lazyload

from storeplatform.rest import set_headers
from storeplatform.store.models import Post, PostTerm, Term
from storeplatform.store.options import site_timezone

from .models import CATEGORY_TAXONOMY, EVENT_TYPE, EventDetails, OrganizerDetails, VenueDetails


def like_pattern(text):
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def ilike(column, text):
    return column.ilike(like_pattern(text), escape="\\")


def page_of(request, stmt):
    """One page of ``stmt`` (rows as tuples) with X-Total, X-TotalPages and Link set. Two queries."""
    page = request.validated.get("page", 1)
    per_page = request.validated.get("per_page", 10)
    total = request.db.execute(select(func.count()).select_from(stmt.order_by(None).subquery())).scalar_one()
    rows = request.db.execute(stmt.limit(per_page).offset((page - 1) * per_page)).all() if total else []
    set_headers(request, total, page, per_page)
    return rows


def category_condition(category):
    """Events in the category given by id or slug (an unknown one matches nothing)."""
    term = Term.id == int(category) if category.strip().isdigit() else Term.slug == category.strip()
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
    rows = session.execute(
        select(column, func.count()).select_from(EventDetails).join(Post, Post.id == EventDetails.post_id)
        .where(Post.status == "publish", column.in_(ids)).group_by(column)).all()
    return dict(rows)


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
