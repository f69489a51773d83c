"""The REST namespace ``events/v1``."""
from storeplatform.rest import RestError, namespace
from storeplatform.store.options import get_option

from . import attendees, calendar, checkin, posts, tickets


def api_guard(request):
    if not get_option(request.db, "events.rest_api_enabled"):
        raise RestError(403, "evt_api_disabled", "The events REST API is disabled in the settings.")


def includeme(config):
    ns = namespace(config, "events/v1").configure(
        unauthenticated_code="evt_rest_forbidden", forbidden_code="evt_rest_forbidden", guard=api_guard,
        description="Event ticketing: events, venues, organizers, attendees, check-in, calendar.")
    posts.add_routes(config, ns)
    attendees.add_routes(config, ns)
    checkin.add_routes(config, ns)
    calendar.add_routes(config, ns)
    tickets.add_routes(config, ns)
