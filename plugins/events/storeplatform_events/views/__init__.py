"""The REST namespace ``events/v1`` as the standard variant serves it: its policies, its services
(in the order of the schema index) and the one place where the check-in's domain error becomes
a REST error. ``alternate/`` serves the other variant."""
from ..checkin import TicketError
from ..errors import API_DISABLED, REST_FORBIDDEN
from ..serialize import NAMESPACE
from ..webhooks import views as webhook_views
from . import attendees, calendar, checkin, order_tickets, posts, tickets


def api_guard(request):
    if not request.site_options["events.rest_api_enabled"]:
        raise API_DISABLED()


def includeme(config):
    config.add_rest_namespace(
        NAMESPACE, unauthenticated_code=REST_FORBIDDEN.code, forbidden_code=REST_FORBIDDEN.code, guard=api_guard,
        description="Event ticketing: events, venues, organizers, attendees, check-in, calendar.")
    config.add_rest_services(posts, attendees, checkin, calendar, tickets, order_tickets, webhook_views)
    config.add_error_translation(TicketError, lambda exc: exc.error(exc.message))
