"""Venues of the alternate variant: the standard routes with ``postal_code`` in place of
``postal``."""
from storeplatform.api import Service, make_partial, paginate, site_timezone

from .. import queries
from ..models import EventDetails
from ..posts import VENUE
from ..schemas import DeleteQuery, VenueListQuery
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
from .serialize import venue_json

DOMAIN_NAMES = {"postal_code": "postal"}

venues = Service("events/v1", "/venues", name="venues", description="Venues (published ones are public).")
venue = Service("events/v1", r"/venues/{id:\d+}", name="venue", description="One venue.")


def serializer(request, kind, post, details, tz, embed=False):
    count = queries.event_counts(request.db, EventDetails.venue_id, [post.id]).get(post.id, 0)
    return venue_json(request, post, details, tz, count)


@venues.get(query=VenueListQuery())
def list_venues(request):
    rows = paginate(request, queries.place_list_stmt(VENUE, request.validated), generation="content")
    counts = queries.event_counts(request.db, EventDetails.venue_id, [post.id for post, _ in rows])
    tz = site_timezone(request.db)
    return [venue_json(request, post, details, tz, counts.get(post.id, 0)) for post, details in rows]


@venues.post(permission=may_create, permission_description="edit_posts", body=schemas.VenueBody())
def create_venue(request):
    return create(request, VENUE, renamed(request.validated, DOMAIN_NAMES), serializer)


@venue.get(permission_description=PUBLIC_OR_READ_POST)
def get_venue(request):
    return standard.get_item(request, VENUE, serializer)


@venue.put(permission="edit_posts", body=make_partial(schemas.VenueBody()), permission_description=EDIT_POST)
def update_venue(request):
    return standard.update_item(request, VENUE, renamed(request.validated, DOMAIN_NAMES), serializer)


@venue.delete(permission="delete_posts", query=DeleteQuery(), permission_description=DELETE_POST)
def delete_venue(request):
    return standard.delete_item(request, VENUE, serializer)
