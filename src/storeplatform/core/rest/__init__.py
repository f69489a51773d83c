"""The REST server: namespaces, module-level services, one error body, schema index, pagination."""
from cornice.errors import Errors
from cornice.pyramidhook import wrap_request
from pyramid.exceptions import ConfigurationError
from pyramid.httpexceptions import HTTPMethodNotAllowed
from pyramid.interfaces import ITraverser
from pyramid.traversal import ResourceTreeTraverser
from pyramid.tweens import EXCVIEW

from ..cache import stop_reading
from ..errors import INVALID_URL, RestError
from ..jsonutil import dumpb
from .answers import json_answer
from .errors import add_error_translation, add_error_views, error_response
from .index import root_index
from .namespaces import Namespace, namespace_for_path
from .openapi import openapi_document
from .pagination import PaginationSchema, page_nodes, paginate, set_headers
from .schema import deserialize, json_body, make_partial
from .service import (
    RestService,
    Service,
    add_rest_namespace,
    add_rest_services,
    namespace,
)
from .types import DecimalText, StrictBoolean, StrictInt, StrictString
from .urls import rest_url, site_rest_url, site_url


def includeme(config):
    settings = config.get_settings()
    settings["handle_exceptions"] = "false"  # our error views, not Cornice's
    config.include("cornice")
    config.add_renderer("restjson", json_renderer_factory)
    prefix = settings["storeplatform.rest_prefix"]
    config.add_route("rest-root", prefix + "/")
    config.add_view(root_index, route_name="rest-root", request_method="GET", renderer="restjson")
    config.add_route("rest-root:noslash", prefix)
    config.add_view(root_index, route_name="rest-root:noslash", request_method="GET", renderer="restjson")
    config.add_route("rest-openapi", prefix + "/openapi.json")
    config.add_view(openapi_document, route_name="rest-openapi", request_method="GET", renderer="restjson")
    for route in ("rest-root", "rest-root:noslash", "rest-openapi"):
        # Any other method: 405 with Allow, as the services answer, not 404.
        config.add_view(_read_only, route_name=route)
    config.add_request_method(lambda request: None, "rest_namespace", reify=True)
    config.add_request_method(lambda request: False, "is_rest", reify=True)
    config.add_traverser(GuardingTraverser)
    config.add_request_method(rest_url, "rest_url")
    config.add_directive("add_rest_namespace", add_rest_namespace)
    config.add_directive("add_rest_services", add_rest_services)
    config.add_directive("add_error_translation", add_error_translation)
    # Under the error views: its refusals (a NUL in the path) are answered as every RestError.
    config.add_tween("storeplatform.core.rest.rest_tween_factory", under=EXCVIEW)


def json_renderer_factory(info):
    """The renderer of the REST views outside the services (indexes, the OpenAPI document; a
    service's views answer through ``answers.answered``): the same JSON answer."""

    def render(value, system):
        request = system.get("request")
        return dumpb(value) if request is None else json_answer(request, value).body

    return render


def _read_only(request):
    raise HTTPMethodNotAllowed(headers={"Allow": "GET, HEAD"})


def rest_tween_factory(handler, registry):
    prefix = registry.settings["storeplatform.rest_prefix"]
    localized = bool(registry.settings.get("available_languages"))

    def rest_tween(request):
        # What Cornice's own NewRequest subscriber gives every request (``quiet_cornice``).
        request.validated, request.info = {}, {}
        request.errors = Errors(localizer=request.localizer) if localized else Errors()
        # The raw WSGI path: decoding a malformed one is the router's job (a 400 error view).
        path = request.environ.get("SCRIPT_NAME", "") + request.environ.get("PATH_INFO", "")
        if path == prefix or path.startswith(prefix + "/"):
            if "\x00" in path:  # a %00 in the path: no route has it, no database could store it
                raise INVALID_URL("The URL must not contain NUL characters.")
            request.rest_namespace = namespace_for_path(registry, path)
            request.is_rest = True
            try:
                return handler(request)
            finally:
                stop_reading()  # a cached view's recording, when its validators refused the request
        return handler(request)

    return rest_tween


def quiet_cornice(registry):
    """Cornice gives each request ``validated``, ``errors`` and ``info`` from a NewRequest
    subscriber, which also adds two response callbacks: its services' filters and CORS, and an
    ``X-Content-Type-Options`` that every answer of the site carries anyway
    (``core.headers``). One subscriber makes the router notify its four events on every request
    (a registry lookup each). When no service has filters or CORS (none of the host's or the
    shipped plugins' has), the rest tween gives those attributes and the subscriber is dropped;
    with no other subscriber (tracing off) the router then notifies nothing. Called once the
    site is configured (``make_app``): every service is known."""
    for service in registry.cornice_services.values():
        if service.cors_enabled or any(args.get("filters") for _, _, args in service.definitions):
            return
    for registration in list(registry.registeredHandlers()):
        if getattr(registration.handler, "__wrapped__", None) is wrap_request:
            registry.unregisterHandler(registration.handler, registration.required)
    registry.has_listeners = any(True for _ in registry.registeredHandlers()) or \
        any(True for _ in registry.registeredSubscriptionAdapters())


def check_traversers(registry):
    """Every traverser of the site is ``GuardingTraverser`` or made from it: one registered
    instead (``config.add_traverser`` in a plugin) would skip the REST guard and credentials.
    Raises ``ConfigurationError`` naming it, which stops start-up."""
    for registration in registry.registeredAdapters():
        if registration.provided is not ITraverser:
            continue
        factory = registration.factory
        if not (isinstance(factory, type) and issubclass(factory, GuardingTraverser)):
            raise ConfigurationError(
                f"the traverser {factory!r} replaces the site's (storeplatform.core.rest.GuardingTraverser), "
                "which checks every REST request's guard and credentials: plugins route by URL and register "
                "no traverser")


class GuardingTraverser(ResourceTreeTraverser):
    """Pyramid's traverser, which its router asks for every request once the route is known
    (matched or not) and before it looks up a view: the REST requests' namespace guard and the
    caller's credentials are checked here first (``guard_and_identify``). A hook of the router's
    own, not an event: a site with no event subscriber makes the router notify none of its four
    events per request (``quiet_cornice``), and what subscribes to ``BeforeTraversal`` (the
    tracing's span) still comes first."""

    def __call__(self, request):
        if request.is_rest:
            guard_and_identify(request)
        return super().__call__(request)


def guard_and_identify(request):
    """Once the route is known (a view declared ``read_only`` gets a read session, and the
    guard's option read is the session's first statement), before any view: the namespace's
    guard, then the caller's credentials. Wrong credentials fail every REST request, public
    routes and unknown paths included."""
    ns = request.rest_namespace
    if ns is not None and ns.guard is not None:
        ns.guard(request)
    request.identity


__all__ = [
    "Namespace", "RestService", "RestError", "Service", "namespace", "namespace_for_path", "add_error_views",
    "error_response", "PaginationSchema", "page_nodes", "paginate", "set_headers", "deserialize", "json_body",
    "make_partial", "DecimalText", "StrictBoolean", "StrictInt", "StrictString", "rest_url", "site_rest_url",
    "site_url",
]
