"""Events of the alternate variant: its list parameters (``type``, ``after``, ``before``,
``category`` id, ``status``, ``search``) and its event object, over the standard domain code."""
from storeplatform.api import json_body, once, paginate, site_timezone

from .. import event_list, posts
from ..posts import EVENT
from ..views import posts as standard
from . import renames, schemas
from .items import item_services
from .serialize import event_json, events_json, place_names, registrations


def serializer(request, kind, post, details, tz, embed=False):
    """One event, as the item views write it."""
    names = place_names(request.db, [(post, details)])
    return event_json(request, post, details, tz, names, registrations(request.db, [post.id]).get(post.id, 0))


def checks(request):
    """The bindings of an event body: the standard ones (references, date order), with the
    references read and reported under the variant's names."""
    bindings = standard.event_checks(request)
    bindings["references"] = once(lambda: renames.EVENT.to_variant(
        posts.reference_problems(request.db, renames.EVENT.to_standard(json_body(request)))))
    return bindings


def list_events(request):
    v = request.validated
    # In start order: the variant has no sort parameters, and after/before ask for a period.
    events = event_list.EventList(request.db, event_list.EventQuery(
        search=v.get("search") or "", status=v.get("status", ""), start_from=v.get("after"),
        start_to=v.get("before"), category=str(v["category"]) if "category" in v else "",
        event_type=v.get("type", ""), orderby="meta_value", order="ASC"))
    rows = paginate(request, events.rows(), total=events.known_total(), keys=events.keys())
    return events_json(request, rows, site_timezone(request.db))


# Not cached: each event's registrations are counted from the attendees, written at every sale
# and check-in (no generation counts them).
events, event = item_services(EVENT, schemas.EventBody, serializer, (list_events, {"query": schemas.EventListQuery()}),
                              renames.EVENT, bind=checks)
