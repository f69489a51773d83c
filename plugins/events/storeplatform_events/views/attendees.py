"""Attendee routes (manage_shop): list, one by id, lookup by ticket code, update.

Every answer is made from ``AttendeeRecord``s read as plain rows (the one shape the serializer
takes and hooks are given); only the update loads the ORM's ``Attendee``, to write it."""
from storeplatform.api import Service, site_timezone, utcnow

from .. import actions, attendee_list, queries, schemas
from ..errors import ATTENDEE_INVALID_CODE, ATTENDEE_INVALID_ID
from ..models import Attendee, AttendeeRecord
from ..serialize import attendee_json
from ..tickets import typed_code

attendees = Service("events/v1", "/attendees", name="attendees", description="Attendees (one per ticket sold).")
attendee = Service("events/v1", r"/attendees/{id:\d+}", name="attendee", description="One attendee.")
attendee_by_code = Service("events/v1", "/attendees/code/{ticket_code}", name="attendee-by-code",
                           description="Attendee by ticket code.")


def attendee_query(v):
    """The attendee list's query as the list's parameters ``v`` (validated) ask."""
    return attendee_list.AttendeeQuery(search=v.get("search") or "", event_id=v.get("event"),
                                       order_id=v.get("order_id"), status=v.get("status", ""),
                                       orderby=v["orderby"], order=v["order"])


def page_json(request, wanted):
    """The attendee objects of the requested page of the list ``wanted`` (an
    ``attendee_list.AttendeeQuery``) asks for."""
    tz = site_timezone(request.db)
    return [attendee_json(request, record, title, tz) for record, title in attendee_list.read_page(request, wanted)]


def read(request, condition, not_found, model=None):
    """(attendee, event title) of the attendee ``condition`` names, in one query: an
    ``AttendeeRecord``, or the ``model`` instance to write; else the 404 ``not_found``."""
    if model is None:
        found = attendee_list.find(request.db, condition)
        if found is None:
            raise not_found()
        return found
    row = queries.first_or_404(request.db, attendee_list.attendee_rows(model).where(condition), not_found)
    return row[0], row[-1]


@attendees.get(permission="manage_shop", query=schemas.AttendeeListQuery())
def list_attendees(request):
    return page_json(request, attendee_query(request.validated))


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
    a, title = read(request, Attendee.ticket_code == typed_code(request.matchdict["ticket_code"]),
                    ATTENDEE_INVALID_CODE)
    return attendee_json(request, a, title, site_timezone(request.db))
