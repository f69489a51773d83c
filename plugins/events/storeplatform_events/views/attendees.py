"""Attendee routes (manage_shop): list, one by id, lookup by ticket code, update."""
from sqlalchemy import or_, select

from storeplatform.db.types import utcnow
from storeplatform.rest import RestError
from storeplatform.store.models import Post
from storeplatform.store.options import site_timezone

from .. import actions, queries, schemas
from ..models import Attendee
from ..serialize import attendee_json


def attendee_rows():
    return select(Attendee, Post.title).outerjoin(Post, Post.id == Attendee.event_id)


def list_stmt(v):
    stmt = attendee_rows()
    if v.get("search"):
        s = v["search"]
        stmt = stmt.where(or_(queries.ilike(Attendee.first_name, s), queries.ilike(Attendee.last_name, s),
                              queries.ilike(Attendee.email, s), queries.ilike(Attendee.ticket_code, s)))
    if "event" in v:
        stmt = stmt.where(Attendee.event_id == v["event"])
    if "order_id" in v:
        stmt = stmt.where(Attendee.order_id == v["order_id"])
    if "status" in v:
        stmt = stmt.where(Attendee.status == v["status"])
    column = getattr(Attendee, v["orderby"])
    columns = [column, Attendee.id]
    return stmt.order_by(*[c.desc() if v["order"] == "DESC" else c.asc() for c in columns])


def add_routes(config, ns):
    attendees = ns.service(config, "attendees", "/attendees", "Attendees (one per ticket sold).")
    attendee = ns.service(config, "attendee", r"/attendees/{id:\d+}", "One attendee.")
    by_code = ns.service(config, "attendee-by-code", "/attendees/code/{ticket_code}", "Attendee by ticket code.")

    @attendees.get(permission="manage_shop", query=schemas.AttendeeListQuery())
    def list_attendees(request):
        tz = site_timezone(request.db)
        rows = queries.page_of(request, list_stmt(request.validated))
        return [attendee_json(request, a, title, tz) for a, title in rows]

    def load(request):
        row = request.db.execute(attendee_rows().where(Attendee.id == int(request.matchdict["id"]))).first()
        if row is None:
            raise RestError(404, "evt_rest_attendee_invalid_id", "Invalid attendee ID.")
        return row

    @attendee.get(permission="manage_shop")
    def get_attendee(request):
        a, title = load(request)
        return attendee_json(request, a, title, site_timezone(request.db))

    @attendee.put(permission="manage_shop", body=schemas.AttendeeUpdate())
    def update_attendee(request):
        a, title = load(request)
        v = request.validated
        for field in ("first_name", "last_name", "email", "phone"):
            if field in v:
                setattr(a, field, v[field])
        now = utcnow()
        if "status" in v and v["status"] != a.status:
            a.status = v["status"]
            if a.status == "checked_in" and a.checked_in_at is None:
                a.checked_in_at = now
            if a.status == "checked_out" and a.checked_out_at is None:
                a.checked_out_at = now
        a.modified_at = now
        request.db.flush()
        actions.attendee_updated(request.db, a.id, request)
        return attendee_json(request, a, title, site_timezone(request.db))

    @by_code.get(permission="manage_shop")
    def get_by_code(request):
        row = request.db.execute(
            attendee_rows().where(Attendee.ticket_code == request.matchdict["ticket_code"])).first()
        if row is None:
            raise RestError(404, "evt_rest_attendee_invalid_code", "Invalid ticket code.")
        return attendee_json(request, row[0], row[1], site_timezone(request.db))
