"""Public calendar data of published events: month, range, upcoming, categories."""
import calendar as pycalendar
from datetime import date, datetime

from sqlalchemy import and_, func, select
from sqlalchemy.orm import aliased

from storeplatform.api import InvalidParams, Post, PostTerm, Service, Term, site_timezone

from .. import queries, schemas
from ..models import CATEGORY_TAXONOMY, EVENT_TYPE, EventDetails
from ..serialize import calendar_event_json

MAX_RANGE_DAYS = 365

month_route = Service("events/v1", "/calendar/month", name="calendar-month", description="Published events of a month.")
range_route = Service("events/v1", "/calendar/range", name="calendar-range",
                      description="Published events starting in a range.")
upcoming_route = Service("events/v1", "/calendar/upcoming", name="calendar-upcoming",
                         description="Next published events.")
categories_route = Service("events/v1", "/calendar/categories", name="calendar-categories",
                           description="Event categories.")


def calendar_events(request, *conditions, category=None, limit=None):
    """Published events matching ``conditions`` in start order, with venue names and
    categories: two queries of plain columns (no ORM objects: a month may hold hundreds)."""
    venue = aliased(Post)
    stmt = (select(Post.id, Post.title, Post.slug, EventDetails.start_date, EventDetails.start_time,
                   EventDetails.end_date, EventDetails.end_time, EventDetails.all_day, EventDetails.venue_id,
                   EventDetails.event_status, EventDetails.event_type, EventDetails.featured,
                   EventDetails.featured_image, venue.title.label("venue_name"))
            .join(EventDetails, EventDetails.post_id == Post.id)
            .outerjoin(venue, and_(venue.id == EventDetails.venue_id, venue.status == "publish"))
            .where(Post.post_type == EVENT_TYPE, Post.status == "publish", *conditions)
            .order_by(EventDetails.start_date, EventDetails.start_time, Post.id))
    if category:
        stmt = stmt.where(queries.category_condition(category))
    if limit:
        stmt = stmt.limit(limit)
    rows = request.db.execute(stmt).all()
    categories = {}
    if rows:
        for post_id, term_id, name, slug, color in request.db.execute(
                select(PostTerm.post_id, Term.id, Term.name, Term.slug, Term.color)
                .join(Term, Term.id == PostTerm.term_id)
                .where(Term.taxonomy == CATEGORY_TAXONOMY, PostTerm.post_id.in_([r.id for r in rows]))
                .order_by(Term.id)):
            categories.setdefault(post_id, []).append({"id": term_id, "name": name, "slug": slug, "color": color})
    site = request.application_url
    options = request.site_options
    return [calendar_event_json(options, site, row, categories.get(row.id, [])) for row in rows]


def month_of(request, v):
    """(year, month, first day, last day) of ``year``/``month`` in ``v``, each left out being the
    current one in the site time zone."""
    now = datetime.now(site_timezone(request.db))
    year, month = v.get("year", now.year), v.get("month", now.month)
    return year, month, date(year, month, 1), date(year, month, pycalendar.monthrange(year, month)[1])


@month_route.get(query=schemas.MonthQuery())
def get_month(request):
    v = request.validated
    year, month, first, last = month_of(request, v)
    events = calendar_events(request, EventDetails.start_date >= first, EventDetails.start_date <= last,
                             category=v.get("category"))
    by_date = {}
    for event in events:
        by_date.setdefault(event["start_date"], []).append(event)
    return {
        "year": year,
        "month": month,
        "month_name": pycalendar.month_name[month],
        "start_date": first.isoformat(),
        "end_date": last.isoformat(),
        "total_events": len(events),
        "events": events,
        "events_by_date": by_date,
    }


@range_route.get(query=schemas.RangeQuery())
def get_range(request):
    v = request.validated
    if v["end"] < v["start"]:
        raise InvalidParams({"end": "end must not be before start"})
    if (v["end"] - v["start"]).days > MAX_RANGE_DAYS:
        raise InvalidParams({"end": f"the range may span at most {MAX_RANGE_DAYS} days"})
    return calendar_events(request, EventDetails.start_date >= v["start"], EventDetails.start_date <= v["end"],
                           category=v.get("category"))


@upcoming_route.get(query=schemas.UpcomingQuery())
def get_upcoming(request):
    v = request.validated
    return calendar_events(request, EventDetails.start_date >= queries.today(request.db),
                           category=v.get("category"), limit=v["limit"])


@categories_route.get(query=schemas.CategoriesQuery())
def get_categories(request):
    published = (select(PostTerm.term_id, func.count().label("n"))
                 .join(Post, and_(Post.id == PostTerm.post_id, Post.post_type == EVENT_TYPE,
                                  Post.status == "publish"))
                 .group_by(PostTerm.term_id).subquery())
    count = func.coalesce(published.c.n, 0)
    stmt = (select(Term, count).outerjoin(published, published.c.term_id == Term.id)
            .where(Term.taxonomy == CATEGORY_TAXONOMY).order_by(Term.name, Term.id))
    if request.validated["hide_empty"]:
        stmt = stmt.where(count > 0)
    rows = request.db.execute(stmt).all()
    return {
        "total": len(rows),
        "categories": [{"id": t.id, "name": t.name, "slug": t.slug, "description": t.description,
                        "count": n, "color": t.color} for t, n in rows],
    }
