"""The alternate variant's attendee list: filters ``event_id``, ``status`` and ``search`` (name
or email) over the standard list. The other attendee routes are the standard ones."""
from sqlalchemy import or_

from storeplatform.api import Service

from ..models import Attendee
from ..queries import attendee_text_holds, ilike
from ..views import attendees as standard
from . import renames, schemas
from .generic import options_of

FILTERS = renames.Renames({"event": "event_id"})

attendees = Service("events/v1", "/attendees", name="attendees", description=standard.attendees.description)


@attendees.get(**{**options_of(standard.attendees, "GET"), "query": schemas.AttendeeListQuery()})
def list_attendees(request):
    v = request.validated
    stmt = standard.list_stmt({"orderby": "created_at", "order": "DESC",
                               **FILTERS.to_standard({key: v[key] for key in ("event_id", "status") if key in v})})
    if v.get("search"):
        s = v["search"]
        # "Anna Nowak" finds Anna Nowak: the name is first, last or both.
        stmt = stmt.where(attendee_text_holds(s),
                          or_(ilike(Attendee.first_name, s), ilike(Attendee.last_name, s),
                              ilike(Attendee.first_name + " " + Attendee.last_name, s), ilike(Attendee.email, s)))
    return standard.page_json(request, stmt)
