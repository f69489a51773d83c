"""The alternate variant's attendee list: filters ``event_id``, ``status`` and ``search`` (name
or email). The other attendee routes are the standard ones."""
from sqlalchemy import or_

from storeplatform.api import Service

from ..models import Attendee
from ..queries import ilike
from ..views.attendees import list_stmt, page_json
from . import schemas

attendees = Service("events/v1", "/attendees", name="attendees", description="Attendees (one per ticket sold).")


@attendees.get(permission="manage_shop", query=schemas.AttendeeListQuery())
def list_attendees(request):
    v = request.validated
    wanted = {"orderby": "created_at", "order": "DESC"}
    if "event_id" in v:
        wanted["event"] = v["event_id"]
    if "status" in v:
        wanted["status"] = v["status"]
    stmt = list_stmt(wanted)
    if v.get("search"):
        s = v["search"]
        # "Anna Nowak" finds Anna Nowak: the name is first, last or both.
        stmt = stmt.where(or_(ilike(Attendee.first_name, s), ilike(Attendee.last_name, s),
                              ilike(Attendee.first_name + " " + Attendee.last_name, s), ilike(Attendee.email, s)))
    return page_json(request, stmt)
