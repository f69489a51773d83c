"""Routes of events, venues and organizers: list, get, create, partial update, trash/delete.

The three kinds share their views: each route below is a thin function naming its kind, and
the work is done once by the generic ``*_item`` functions."""
import logging

from sqlalchemy import select
from sqlalchemy.orm import lazyload

from storeplatform.api import (Post, Service, json_body, make_partial, once, paginate, require, site_timezone,
                               user_can)

from .. import event_list, posts, queries, schemas
from ..errors import CANNOT_DELETE, EVENT_INVALID_ID, ORGANIZER_INVALID_ID, VENUE_INVALID_ID
from ..models import EventDetails
from ..posts import EVENT, ORGANIZER, VENUE
from ..serialize import NAMESPACE, event_json, organizer_json, venue_json

log = logging.getLogger(__name__)
NOT_FOUND = {EVENT: EVENT_INVALID_ID, VENUE: VENUE_INVALID_ID, ORGANIZER: ORGANIZER_INVALID_ID}
COUNT_COLUMNS = {VENUE: EventDetails.venue_id, ORGANIZER: EventDetails.organizer_id}
# What the schema index names as the permission of the views whose check depends on the item.
PUBLIC_OR_READ_POST = "public when published; read_post otherwise"
EDIT_POST = "edit_post on the item"
DELETE_POST = "delete_post on the item"

events = Service("events/v1", "/events", name="events", description="Events (published ones are public).")
event = Service("events/v1", r"/events/{id:\d+}", name="event", description="One event.")
venues = Service("events/v1", "/venues", name="venues", description="Venues (published ones are public).")
venue = Service("events/v1", r"/venues/{id:\d+}", name="venue", description="One venue.")
organizers = Service("events/v1", "/organizers", name="organizers",
                     description="Organizers (published ones are public).")
organizer = Service("events/v1", r"/organizers/{id:\d+}", name="organizer", description="One organizer.")


# --- the shared work -------------------------------------------------------------------------

def load(request, kind, not_found=None):
    """(post, details) of the item in the URL, which must be of ``kind``; else its 404
    (``not_found``: the catalogue entry, for kinds of another variant)."""
    item_id = request.validated["id"]
    stmt = (select(Post, kind.model).join(kind.model, kind.model.post_id == Post.id)
            .where(Post.id == item_id, Post.post_type == kind.post_type))
    if kind is not EVENT:
        stmt = stmt.options(lazyload(Post.terms))
    return queries.first_or_404(request.db, stmt, not_found or NOT_FOUND[kind])


def embeds(request, rows, tz):
    """Venue and organizer objects for the events in ``rows`` (three queries at most)."""
    ids = {d.venue_id for _, d in rows if d.venue_id} | {d.organizer_id for _, d in rows if d.organizer_id}
    places = queries.places_by_id(request.db, ids)
    readable = {pid: p for pid, p in places.items() if can_read(request, p[0])}
    venue_ids = [pid for pid, (_, v, _o) in readable.items() if v is not None]
    organizer_ids = [pid for pid, (_, _v, o) in readable.items() if o is not None]
    venue_counts = queries.event_counts(request.db, EventDetails.venue_id, venue_ids)
    organizer_counts = queries.event_counts(request.db, EventDetails.organizer_id, organizer_ids)
    venues_by_id = {pid: venue_json(request, readable[pid][0], readable[pid][1], tz, venue_counts.get(pid, 0))
                    for pid in venue_ids}
    organizers_by_id = {pid: organizer_json(request, readable[pid][0], readable[pid][2], tz,
                                            organizer_counts.get(pid, 0))
                        for pid in organizer_ids}
    return venues_by_id, organizers_by_id


def item_json(request, kind, post, details, tz, embed=False, place_json=None):
    """``place_json``: the JSON of a venue or organizer, when not the standard's (the alternate
    variant's venue)."""
    if kind is EVENT:
        return event_json(request, post, details, tz, embeds(request, [(post, details)], tz) if embed else None)
    count = queries.event_counts(request.db, COUNT_COLUMNS[kind], [post.id]).get(post.id, 0)
    serializer = place_json or (venue_json if kind is VENUE else organizer_json)
    return serializer(request, post, details, tz, count)


def can_read(request, post):
    # read_post of a trashed item needs editing-level access (the host decides it).
    return post.status == "publish" or user_can(request, "read_post", post)


def require_readable(request, post):
    if not can_read(request, post):
        require(request, "read_post", post)


def check_publish(request, status):
    # Publishing needs publish_posts, as in a classic CMS (contributors submit for review).
    if status in ("publish", "private"):
        require(request, "publish_posts")


def event_query(v):
    """The event list's query as the list's parameters ``v`` (validated) ask."""
    return event_list.EventQuery(
        search=v.get("search") or "", status=v.get("status", ""), category=v.get("category") or "",
        venue=v.get("venue"), organizer=v.get("organizer"), start_from=v.get("start_after"),
        start_to=v.get("start_before"), from_today=bool(v.get("upcoming")), featured=v.get("featured"),
        include=tuple(v.get("include") or ()), exclude=tuple(v.get("exclude") or ()), orderby=v["orderby"],
        order=v["order"])


def list_items(request, kind, place_json=None):
    v = request.validated
    tz = site_timezone(request.db)
    if kind is EVENT:
        events = event_list.EventList(request.db, event_query(v))
        rows = paginate(request, events.rows(), total=events.known_total(), keys=events.keys())
        embed = embeds(request, rows, tz) if v["_embed"] else None
        return [event_json(request, post, details, tz, embed) for post, details in rows]
    rows = paginate(request, queries.place_list_stmt(kind, v), total=queries.place_total(request.db, kind, v))
    counts = queries.event_counts(request.db, COUNT_COLUMNS[kind], [post.id for post, _ in rows])
    serializer = place_json or (venue_json if kind is VENUE else organizer_json)
    return [serializer(request, post, details, tz, counts.get(post.id, 0)) for post, details in rows]


# The item functions below serve the alternate variant too: it passes the values it validated
# under its own field names (``values``, as ``posts`` names them), its JSON (``serializer``,
# called like ``item_json``) and its 404 (``not_found``).

def create_item(request, kind, values=None, serializer=item_json):
    v = request.validated if values is None else values
    if kind.statuses:
        check_publish(request, v.get("status", "publish"))
    post, details = posts.create(request.db, kind, v, author_id=request.identity.user.id, request=request)
    request.response.status = 201
    request.response.headers["Location"] = request.rest_url(NAMESPACE, f"/{kind.collection}/{post.id}")
    return serializer(request, kind, post, details, site_timezone(request.db))


def get_item(request, kind, serializer=item_json, not_found=None):
    post, details = load(request, kind, not_found)
    require_readable(request, post)
    return serializer(request, kind, post, details, site_timezone(request.db),
                      embed=request.validated.get("_embed", False))


def update_item(request, kind, values=None, serializer=item_json, not_found=None):
    post, details = load(request, kind, not_found)
    require(request, "edit_post", post)
    v = request.validated if values is None else values
    if kind.statuses and "status" in v and v["status"] != post.status:
        check_publish(request, v["status"])
    posts.update(request.db, kind, post, details, v, request=request)
    return serializer(request, kind, post, details, site_timezone(request.db))


def delete_item(request, kind, serializer=item_json, not_found=None):
    post, details = load(request, kind, not_found)
    require(request, "delete_post", post)
    previous = serializer(request, kind, post, details, site_timezone(request.db))
    try:
        with request.db.begin_nested():
            posts.remove(request.db, kind, post, request.validated["force"])
    except Exception as exc:
        # A database refusal or a plugin's deleted action failing: nothing is deleted.
        log.warning("delete of %s %s failed: %r", kind.name, post.id, exc)
        raise CANNOT_DELETE(f"The {kind.name} could not be deleted.")
    return {"deleted": True, "previous": previous}


# --- events ----------------------------------------------------------------------------------

@events.get(query=schemas.EventListQuery(), cache="public")
def list_events(request):
    return list_items(request, EVENT)


def event_checks(request):
    """The bindings of an event body: its references and its date order (the stored event's
    dates on an update), each worked out once, on first use, from the raw body."""
    def date_order():
        dates = schemas.typed_dates(json_body(request))
        if dates is None:
            return {}
        stored = request.db.get(EventDetails, request.validated["id"]) if "id" in request.validated else None
        return posts.date_order_problems(request.db, stored, dates)

    return {"references": once(lambda: posts.reference_problems(request.db, json_body(request))),
            "date_order": once(date_order)}


@events.post(permission="edit_posts", body=schemas.EventBody(), bind=event_checks)
def create_event(request):
    return create_item(request, EVENT)


@event.get(query=schemas.EmbedQuery(), permission_description=PUBLIC_OR_READ_POST, cache="public")
def get_event(request):
    return get_item(request, EVENT)


@event.put(permission="edit_posts", body=make_partial(schemas.EventBody()), bind=event_checks,
           permission_description=EDIT_POST)
def update_event(request):
    return update_item(request, EVENT)


@event.delete(permission="delete_posts", query=schemas.DeleteQuery(), permission_description=DELETE_POST)
def delete_event(request):
    return delete_item(request, EVENT)


# --- venues ----------------------------------------------------------------------------------

@venues.get(query=schemas.VenueListQuery(), cache="public")
def list_venues(request):
    return list_items(request, VENUE)


@venues.post(permission="edit_posts", body=schemas.VenueBody())
def create_venue(request):
    return create_item(request, VENUE)


@venue.get(permission_description=PUBLIC_OR_READ_POST)
def get_venue(request):
    return get_item(request, VENUE)


@venue.put(permission="edit_posts", body=make_partial(schemas.VenueBody()), permission_description=EDIT_POST)
def update_venue(request):
    return update_item(request, VENUE)


@venue.delete(permission="delete_posts", query=schemas.DeleteQuery(), permission_description=DELETE_POST)
def delete_venue(request):
    return delete_item(request, VENUE)


# --- organizers ------------------------------------------------------------------------------

@organizers.get(query=schemas.OrganizerListQuery(), cache="public")
def list_organizers(request):
    return list_items(request, ORGANIZER)


@organizers.post(permission="edit_posts", body=schemas.OrganizerBody())
def create_organizer(request):
    return create_item(request, ORGANIZER)


@organizer.get(permission_description=PUBLIC_OR_READ_POST)
def get_organizer(request):
    return get_item(request, ORGANIZER)


@organizer.put(permission="edit_posts", body=make_partial(schemas.OrganizerBody()), permission_description=EDIT_POST)
def update_organizer(request):
    return update_item(request, ORGANIZER)


@organizer.delete(permission="delete_posts", query=schemas.DeleteQuery(), permission_description=DELETE_POST)
def delete_organizer(request):
    return delete_item(request, ORGANIZER)
