"""The alternate variant's attendee list: filters ``event_id``, ``status`` and ``search`` (name
or email) over the standard list. The other attendee routes are the standard ones."""
from storeplatform.api import Service

from ..attendee_list import AttendeeQuery
from ..views import attendees as standard
from . import schemas
from .generic import options_of

attendees = Service("events/v1", "/attendees", name="attendees", description=standard.attendees.description)


@attendees.get(**{**options_of(standard.attendees, "GET"), "query": schemas.AttendeeListQuery()})
def list_attendees(request):
    v = request.validated
    # "Anna Nowak" finds Anna Nowak: the name is first, last or both.
    return standard.page_json(request, AttendeeQuery(search=v.get("search") or "", search_by="name_or_email",
                                                     event_id=v.get("event_id"), status=v.get("status", "")))
