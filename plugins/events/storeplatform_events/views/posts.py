"""Routes of events, venues and organizers: list, get, create, partial update, trash/delete."""
import logging

from sqlalchemy import select
from sqlalchemy.orm import lazyload

from storeplatform.auth import require, user_can
from storeplatform.rest import RestError, invalid_params, make_partial
from storeplatform.store.models import Post
from storeplatform.store.options import site_timezone

from .. import posts, queries, schemas
from ..models import EventDetails
from ..posts import EVENT, ORGANIZER, VENUE, InvalidFields
from ..serialize import event_json, organizer_json, rest_base, venue_json

BODIES = {"event": schemas.EventBody(), "venue": schemas.VenueBody(), "organizer": schemas.OrganizerBody()}
LIST_QUERIES = {"event": schemas.EventListQuery(), "venue": schemas.VenueListQuery(),
                "organizer": schemas.OrganizerListQuery()}
log = logging.getLogger(__name__)
COUNT_COLUMNS = {"venue": EventDetails.venue_id, "organizer": EventDetails.organizer_id}


def not_found(kind):
    return RestError(404, f"evt_rest_{kind.name}_invalid_id", f"Invalid {kind.name} ID.")


def load(request, kind, item_id):
    stmt = (select(Post, kind.model).join(kind.model, kind.model.post_id == Post.id)
            .where(Post.id == item_id, Post.post_type == kind.post_type))
    if kind is not EVENT:
        stmt = stmt.options(lazyload(Post.terms))
    row = request.db.execute(stmt).first()
    if row is None:
        raise not_found(kind)
    return row


def embeds(request, rows, tz):
    """Venue and organizer objects for the events in ``rows`` (three queries at most)."""
    ids = {d.venue_id for _, d in rows if d.venue_id} | {d.organizer_id for _, d in rows if d.organizer_id}
    places = queries.places_by_id(request.db, ids)
    readable = {pid: p for pid, p in places.items() if can_read(request, p[0])}
    venue_ids = [pid for pid, (_, v, _o) in readable.items() if v is not None]
    organizer_ids = [pid for pid, (_, _v, o) in readable.items() if o is not None]
    venue_counts = queries.event_counts(request.db, EventDetails.venue_id, venue_ids)
    organizer_counts = queries.event_counts(request.db, EventDetails.organizer_id, organizer_ids)
    venues = {pid: venue_json(request, readable[pid][0], readable[pid][1], tz, venue_counts.get(pid, 0))
              for pid in venue_ids}
    organizers = {pid: organizer_json(request, readable[pid][0], readable[pid][2], tz, organizer_counts.get(pid, 0))
                  for pid in organizer_ids}
    return venues, organizers


def item_json(request, kind, post, details, tz, embed=False):
    if kind is EVENT:
        return event_json(request, post, details, tz, embeds(request, [(post, details)], tz) if embed else None)
    count = queries.event_counts(request.db, COUNT_COLUMNS[kind.name], [post.id]).get(post.id, 0)
    serializer = venue_json if kind is VENUE else organizer_json
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


def add_routes(config, ns):
    for kind in (EVENT, VENUE, ORGANIZER):
        _add_kind(config, ns, kind)


def _add_kind(config, ns, kind):
    plural = kind.collection
    collection = ns.service(config, plural, f"/{plural}", f"{kind.name.title()}s (published ones are public).")
    item = ns.service(config, kind.name, rf"/{plural}/{{id:\d+}}", f"One {kind.name}.")
    body = BODIES[kind.name]
    partial = make_partial(body)

    @collection.get(query=LIST_QUERIES[kind.name])
    def list_items(request):
        v = request.validated
        tz = site_timezone(request.db)
        if kind is EVENT:
            rows = queries.page_of(request, queries.event_list_stmt(request.db, v))
            embed = embeds(request, rows, tz) if v["_embed"] else None
            return [event_json(request, post, details, tz, embed) for post, details in rows]
        rows = queries.page_of(request, queries.place_list_stmt(kind, v))
        counts = queries.event_counts(request.db, COUNT_COLUMNS[kind.name], [post.id for post, _ in rows])
        serializer = venue_json if kind is VENUE else organizer_json
        return [serializer(request, post, details, tz, counts.get(post.id, 0)) for post, details in rows]

    @collection.post(permission="edit_posts", body=body)
    def create_item(request):
        v = request.validated
        if kind is EVENT:
            check_publish(request, v.get("status", "publish"))
        try:
            post, details = posts.create(request.db, kind, v, author_id=request.identity.user.id, request=request)
        except InvalidFields as exc:
            raise invalid_params(exc.params)
        request.response.status = 201
        request.response.headers["Location"] = f"{rest_base(request)}/{kind.collection}/{post.id}"
        return item_json(request, kind, post, details, site_timezone(request.db))

    @item.get(query=schemas.EmbedQuery() if kind is EVENT else None,
              permission_description="public when published; read_post otherwise")
    def get_item(request):
        post, details = load(request, kind, int(request.matchdict["id"]))
        require_readable(request, post)
        return item_json(request, kind, post, details, site_timezone(request.db),
                         embed=request.validated.get("_embed", False))

    @item.put(permission="edit_posts", body=partial, permission_description="edit_post on the item")
    def update_item(request):
        post, details = load(request, kind, int(request.matchdict["id"]))
        require(request, "edit_post", post)
        v = request.validated
        if kind is EVENT and "status" in v and v["status"] != post.status:
            check_publish(request, v["status"])
        try:
            posts.update(request.db, kind, post, details, v, request=request)
        except InvalidFields as exc:
            raise invalid_params(exc.params)
        return item_json(request, kind, post, details, site_timezone(request.db))

    @item.delete(permission="delete_posts", query=schemas.DeleteQuery(),
                 permission_description="delete_post on the item")
    def delete_item(request):
        post, details = load(request, kind, int(request.matchdict["id"]))
        require(request, "delete_post", post)
        previous = item_json(request, kind, post, details, site_timezone(request.db))
        try:
            with request.db.begin_nested():
                posts.remove(request.db, kind, post, request.validated["force"])
        except Exception as exc:
            # A database refusal or a plugin's deleted action failing: nothing is deleted.
            log.warning("delete of %s %s failed: %r", kind.name, post.id, exc)
            raise RestError(500, "evt_rest_cannot_delete", f"The {kind.name} could not be deleted.")
        return {"deleted": True, "previous": previous}
