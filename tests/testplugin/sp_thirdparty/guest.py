"""A plugin that only adds a route to the events plugin's namespace, whether events is on or
not: with events off, start-up stops naming it."""
from storeplatform.api import Service, hookimpl

badges = Service("events/v1", "/guest-badges", name="guest-badges", description="Badges (a guest's route).")


@badges.get()
def get_badges(request):
    return [{"id": 1, "name": "new"}]


@hookimpl
def storeplatform_includeme(config):
    config.add_rest_services(badges)
