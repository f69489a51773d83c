"""The alternate variant's one calendar route: the published events starting in a month, each
with a few of the standard calendar event's fields under its own names."""
from storeplatform.api import Service

from ..models import EventDetails
from ..views.calendar import calendar_events, month_of
from . import schemas

# The standard calendar event's fields the variant's has, under the variant's names.
EVENT_FIELDS = {"id": "id", "title": "title", "start_date": "date", "start_time": "time", "url": "link"}

calendar_route = Service("events/v1", "/calendar", name="calendar",
                         description="Published events starting in a month (public).")


@calendar_route.get(query=schemas.CalendarQuery())
def get_calendar(request):
    v = request.validated
    year, month, first, last = month_of(request, v)
    events = calendar_events(request, EventDetails.start_date >= first, EventDetails.start_date <= last,
                             category=str(v["category"]) if "category" in v else None)
    return {"year": year, "month": month,
            "events": [{name: event[field] for field, name in EVENT_FIELDS.items()} for event in events]}
