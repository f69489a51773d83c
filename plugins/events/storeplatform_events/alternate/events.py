"""Events of the alternate variant: its list parameters (``type``, ``after``, ``before``,
``category`` id, ``status``, ``search``) and its event object, over the standard domain code."""
from storeplatform.api import (
    InvalidParams,
    Service,
    json_body,
    make_partial,
    once,
    paginate,
    site_timezone,
)

from .. import posts, queries
from ..models import EventDetails
from ..posts import EVENT
from ..schemas import DeleteQuery
from ..views import posts as standard
from . import schemas
from .items import (
    DELETE_POST,
    EDIT_POST,
    PUBLIC_OR_READ_POST,
    create,
    may_create,
    renamed,
)
from .serialize import event_json, events_json, place_names, registrations

# Body fields of the variant -> the names of the domain code (posts.py).
DOMAIN_NAMES = {"description": "content", "status": "event_status", "type": "event_type", "venue": "venue_id",
                "organizer": "organizer_id"}
VARIANT_NAMES = {domain: name for name, domain in DOMAIN_NAMES.items()}

events = Service("events/v1", "/events", name="events", description="Events (published ones are public).")
event = Service("events/v1", r"/events/{id:\d+}", name="event", description="One event.")


def serializer(request, kind, post, details, tz, embed=False):
    """One event, as the item views write it."""
    names = place_names(request.db, [(post, details)])
    return event_json(request, post, details, tz, names, registrations(request.db, [post.id]).get(post.id, 0))


def checks(request):
    """The bindings of an event body: the standard ones (references, date order), with the
    references read and reported under the variant's names."""
    bindings = standard.event_checks(request)
    bindings["references"] = once(lambda: renamed(
        posts.reference_problems(request.db, renamed(json_body(request), DOMAIN_NAMES)), VARIANT_NAMES))
    return bindings


def variant_params(exc):
    """The domain's InvalidParams (``end_date``, ``venue_id``...) under the variant's names."""
    return InvalidParams(renamed(exc.params, VARIANT_NAMES))


@events.get(query=schemas.EventListQuery())
def list_events(request):
    v = request.validated
    # In start order: the variant has no sort parameters, and after/before ask for a period.
    wanted = {"orderby": "meta_value", "order": "ASC"}
    for name, domain in (("search", "search"), ("status", "status"), ("after", "start_after"),
                         ("before", "start_before")):
        if name in v:
            wanted[domain] = v[name]
    if "category" in v:
        wanted["category"] = str(v["category"])
    stmt = queries.event_list_stmt(request.db, wanted)
    if "type" in v:
        stmt = stmt.where(EventDetails.event_type == v["type"])
    rows = paginate(request, stmt, generation="content")
    return events_json(request, rows, site_timezone(request.db))


@events.post(permission=may_create, permission_description="edit_posts", body=schemas.EventBody(),
             bind=checks)
def create_event(request):
    try:
        return create(request, EVENT, renamed(request.validated, DOMAIN_NAMES), serializer)
    except InvalidParams as exc:
        raise variant_params(exc) from None


@event.get(permission_description=PUBLIC_OR_READ_POST)
def get_event(request):
    return standard.get_item(request, EVENT, serializer)


@event.put(permission="edit_posts", body=make_partial(schemas.EventBody()), bind=checks,
           permission_description=EDIT_POST)
def update_event(request):
    try:
        return standard.update_item(request, EVENT, renamed(request.validated, DOMAIN_NAMES), serializer)
    except InvalidParams as exc:
        raise variant_params(exc) from None


@event.delete(permission="delete_posts", query=DeleteQuery(), permission_description=DELETE_POST)
def delete_event(request):
    return standard.delete_item(request, EVENT, serializer)
