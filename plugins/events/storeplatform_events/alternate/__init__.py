"""The alternate variant of ``events/v1`` (``events.api_variant = alternate``): the "differing
variant" of the spec's Versioning section, over the same data as the standard one.

It is the standard API plus what differs: the standard fields under the variant's names
(``renames.py``: the schemas, values and JSON are derived from the standard ones), routes built
once per kind over the standard item views (``items.py``), and its own modules for what only it
has (speakers, its event list and object, its attendee filters, check-in answers, one calendar
route). The other routes are the standard services. Every route is served through
``with_generic_errors``, so the standard catalogue's ``evt_rest_*`` codes leave as the
variant's generic ones. Domain code (posts, queries, check-in, tickets, webhooks) is shared."""
from storeplatform.api import Service

from ..checkin import TicketError
from ..serialize import NAMESPACE
from ..views import api_guard, order_tickets, tickets
from ..views import attendees as standard_attendees
from ..views import checkin as standard_checkin
from ..webhooks import views as webhook_views
from . import attendees, calendar, checkin, events, places, speakers
from .errors import REST_FORBIDDEN, generic
from .generic import with_generic_errors


def services():
    """The variant's services in the order of its schema index."""
    found = []
    for source in (events, places, speakers, attendees,
                   standard_attendees.attendee, standard_attendees.attendee_by_code, checkin,
                   standard_checkin.validate_route, standard_checkin.stats_route, standard_checkin.recent_route,
                   calendar, tickets, order_tickets, webhook_views):
        found += [source] if isinstance(source, Service) else \
            [value for value in vars(source).values() if isinstance(value, Service)]
    return found


def includeme(config):
    config.add_rest_namespace(
        NAMESPACE, unauthenticated_code=REST_FORBIDDEN.code, forbidden_code=REST_FORBIDDEN.code, guard=api_guard,
        description="Event ticketing (alternate variant): events, venues, organizers, speakers, attendees, "
                    "check-in, calendar.")
    config.add_rest_services(*[with_generic_errors(service) for service in services()])
    # The variant's check-in views answer refusals themselves; a TicketError raised anywhere
    # else leaves as the generic error of its status.
    config.add_error_translation(TicketError, lambda exc: generic(exc.error(exc.message)))
