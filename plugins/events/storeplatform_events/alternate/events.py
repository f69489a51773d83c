"""Events of the alternate variant: its list parameters (``type``, ``after``, ``before``,
``category`` id, ``status``, ``search``) and its event object, over the standard domain code."""
from storeplatform.api import json_body, once, paginate, site_timezone

from .. import posts, queries
from ..models import EventDetails
from ..posts import EVENT
from ..views import posts as standard
from . import renames, schemas
from .items import item_services
from .serialize import event_json, events_json, place_names, registrations

# The variant's list parameters under the names of queries.event_list.
LIST_PARAMETERS = renames.Renames({"start_after": "after", "start_before": "before"})


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
    given = {key: v[key] for key in ("search", "status", "after", "before") if key in v}
    wanted = {"orderby": "meta_value", "order": "ASC", **LIST_PARAMETERS.to_standard(given)}
    if "category" in v:
        wanted["category"] = str(v["category"])
    stmt, _, total = queries.event_list(request.db, wanted, counted="type" not in v)
    if "type" in v:
        stmt = stmt.where(EventDetails.event_type == v["type"])
    rows = paginate(request, stmt, total=total)
    return events_json(request, rows, site_timezone(request.db))


# Not cached: each event's registrations are counted from the attendees, written at every sale
# and check-in (no generation counts them).
events, event = item_services(EVENT, schemas.EventBody, serializer, (list_events, {"query": schemas.EventListQuery()}),
                              renames.EVENT, bind=checks)
