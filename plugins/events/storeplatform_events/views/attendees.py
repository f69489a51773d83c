"""Attendee routes (manage_shop): list, one by id, lookup by ticket code, update.

Every answer is made from ``AttendeeRecord``s read as plain rows (the one shape the serializer
takes and hooks are given); only the update loads the ORM's ``Attendee``, to write it."""
from sqlalchemy import and_, or_, select

from storeplatform.api import Post, Service, count_rows, paginate, site_timezone, utcnow

from .. import actions, queries, schemas
from ..errors import ATTENDEE_INVALID_CODE, ATTENDEE_INVALID_ID
from ..models import Attendee, AttendeeRecord
from ..serialize import attendee_json

attendees = Service("events/v1", "/attendees", name="attendees", description="Attendees (one per ticket sold).")
attendee = Service("events/v1", r"/attendees/{id:\d+}", name="attendee", description="One attendee.")
attendee_by_code = Service("events/v1", "/attendees/code/{ticket_code}", name="attendee-by-code",
                           description="Attendee by ticket code.")


def attendee_rows(model=None):
    """Attendees with their event's title: plain rows of ``AttendeeRecord.COLUMNS`` (building an
    ORM instance per row of a page of 100 costs more than the page's query), or ``model``s."""
    columns = (model,) if model is not None else AttendeeRecord.COLUMNS
    return select(*columns, Post.title).outerjoin(Post, Post.id == Attendee.event_id)


def search_condition(search):
    """Attendees whose first name, last name, e-mail or ticket code holds ``search``
    (case-insensitive; the trigram index narrows it on PostgreSQL: ``queries.attendee_text_holds``)."""
    return and_(queries.attendee_text_holds(search),
                or_(queries.ilike(Attendee.first_name, search), queries.ilike(Attendee.last_name, search),
                    queries.ilike(Attendee.email, search), queries.ilike(Attendee.ticket_code, search)))


def list_stmt(v):
    """The attendee list's statement as ``v`` asks (filters, order)."""
    return list_query(v)[0]


def list_query(v):
    """(statement, keys): the list's rows with their event's title, and their ids alone in the
    same order (the offset is walked on an attendees index, the titles joined to the page only)."""
    conditions = []
    if v.get("search"):
        conditions.append(search_condition(v["search"]))
    if "event" in v:
        conditions.append(Attendee.event_id == v["event"])
    if "order_id" in v:
        conditions.append(Attendee.order_id == v["order_id"])
    if "status" in v:
        conditions.append(Attendee.status == v["status"])
    column = getattr(Attendee, v["orderby"])
    order = [c.desc() if v["order"] == "DESC" else c.asc() for c in (column, Attendee.id)]
    return (attendee_rows().where(*conditions).order_by(*order),
            select(Attendee.id).where(*conditions).order_by(*order))


def list_total(session, v):
    """The list's total as the database keeps it (per status, per event and status), when no
    other filter applies; else None (counted from the match)."""
    if v.get("search") or "order_id" in v:
        return None
    keys = {name: v[given] for name, given in (("event_id", "event"), ("status", "status")) if given in v}
    return count_rows(session, Attendee, **keys)


def page_json(request, stmt, total=None, keys=None):
    """The attendee objects of the requested page of ``stmt`` (a ``list_stmt``)."""
    tz = site_timezone(request.db)
    return [attendee_json(request, AttendeeRecord.of_row(row), row[-1], tz)
            for row in paginate(request, stmt, total=total, keys=keys)]


def read(request, condition, not_found, model=None):
    """(attendee, event title) of the attendee ``condition`` names, in one query: an
    ``AttendeeRecord``, or the ``model`` instance to write; else the 404 ``not_found``."""
    row = queries.first_or_404(request.db, attendee_rows(model).where(condition), not_found)
    return (row[0] if model is not None else AttendeeRecord.of_row(row)), row[-1]


@attendees.get(permission="manage_shop", query=schemas.AttendeeListQuery())
def list_attendees(request):
    v = request.validated
    stmt, keys = list_query(v)
    return page_json(request, stmt, total=list_total(request.db, v), keys=keys)


@attendee.get(permission="manage_shop")
def get_attendee(request):
    a, title = read(request, Attendee.id == request.validated["id"], ATTENDEE_INVALID_ID)
    return attendee_json(request, a, title, site_timezone(request.db))


@attendee.put(permission="manage_shop", body=schemas.AttendeeUpdate())
def update_attendee(request):
    a, title = read(request, Attendee.id == request.validated["id"], ATTENDEE_INVALID_ID, model=Attendee)
    v = request.validated
    for field in ("first_name", "last_name", "email", "phone"):
        if field in v:
            setattr(a, field, v[field])
    now = utcnow()
    if "status" in v:
        a.cancelled_by_order = False  # a status set on purpose is not the order's any more
    if "status" in v and v["status"] != a.status:
        a.status = v["status"]
        if a.status == "checked_in" and a.checked_in_at is None:
            a.checked_in_at = now
        if a.status == "checked_out" and a.checked_out_at is None:
            a.checked_out_at = now
    a.modified_at = now
    request.db.flush()
    actions.attendee_updated(request.db, a.id, request)
    return attendee_json(request, AttendeeRecord.of(a), title, site_timezone(request.db))


@attendee_by_code.get(permission="manage_shop")
def get_attendee_by_code(request):
    a, title = read(request, Attendee.ticket_code == request.matchdict["ticket_code"], ATTENDEE_INVALID_CODE)
    return attendee_json(request, a, title, site_timezone(request.db))
