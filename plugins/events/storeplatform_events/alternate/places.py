"""Venues and organizers of the alternate variant: the standard routes, a venue's ``postal`` being
its ``postal_code``."""
from ..posts import ORGANIZER, VENUE
from ..schemas import OrganizerBody, VenueListQuery
from ..views import posts as standard
from . import renames, schemas
from .generic import options_of
from .items import item_services
from .serialize import venue_json


def venue_serializer(request, kind, post, details, tz, embed=False):
    return standard.item_json(request, kind, post, details, tz, place_json=venue_json)


def list_venues(request):
    return standard.list_items(request, VENUE, place_json=venue_json)


venues, venue = item_services(VENUE, schemas.VenueBody, venue_serializer,
                              (list_venues, {"query": VenueListQuery(), "cache": "public"}), renames.VENUE)
organizers, organizer = item_services(ORGANIZER, OrganizerBody, standard.item_json,
                                      (standard.list_organizers, options_of(standard.organizers, "GET")))
