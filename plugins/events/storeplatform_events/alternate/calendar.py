"""The alternate variant's one calendar route: the published events starting in a month."""
from storeplatform.api import Service

from ..models import EventDetails
from ..views.calendar import calendar_events, month_of
from . import schemas

calendar_route = Service("events/v1", "/calendar", name="calendar",
                         description="Published events starting in a month (public).")


@calendar_route.get(query=schemas.CalendarQuery())
def get_calendar(request):
    v = request.validated
    year, month, first, last = month_of(request, v)
    events = calendar_events(request, EventDetails.start_date >= first, EventDetails.start_date <= last,
                             category=str(v["category"]) if "category" in v else None)
    return {
        "year": year,
        "month": month,
        "events": [{"id": e["id"], "title": e["title"], "date": e["start_date"], "time": e["start_time"],
                    "link": e["url"]} for e in events],
    }
