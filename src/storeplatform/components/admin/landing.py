"""The site's root ``{base_url}/`` and its icon ``/favicon.ico``.

The root is answered only when no route claims it (the invoicing storefront link lives there:
``/?invoicing_download=...``), so it is a view of the "not found" that a GET of ``/`` raises:
a small HTML page for a browser (the site's name, the admin, the REST index, the OpenAPI
document and each API's description), for any other client a JSON object with the same links.
Every other path keeps the REST 404 (``rest_no_route``)."""
from pathlib import Path

from pyramid.httpexceptions import HTTPMethodNotAllowed, HTTPNotFound
from pyramid.renderers import render_to_response
from pyramid.response import Response
from pyramid.security import NO_PERMISSION_REQUIRED

from storeplatform.core.headers import ADMIN_ANSWER
from storeplatform.core.jsonutil import dumpb
from storeplatform.core.rest.index import guard_allows
from storeplatform.core.rest.namespaces import NAMESPACES_KEY

FAVICON = Path(__file__).resolve().parent / "static" / "favicon.ico"
# A day in every cache: the icon changes with a release, if ever.
FAVICON_MAX_AGE = 86400
# What a browser asks for first; JSON wins a tie (curl's */*, no Accept header at all).
OFFERS = ("application/json", "text/html")


def includeme(config):
    config.add_view_predicate("site_root", SiteRootPredicate)
    config.add_view(landing, context=HTTPNotFound, site_root=True, request_method=("GET", "HEAD"),
                    permission=NO_PERMISSION_REQUIRED)
    config.add_route("favicon", "/favicon.ico")
    config.add_view(favicon, route_name="favicon", request_method=("GET", "HEAD"), permission=NO_PERMISSION_REQUIRED)
    # Any other method: 405 with Allow, as the REST routes answer.
    config.add_view(_read_only, route_name="favicon", permission=NO_PERMISSION_REQUIRED)
    config.registry["landing.favicon"] = FAVICON.read_bytes()


class SiteRootPredicate:
    """The request is for the site's root and no route took it."""

    def __init__(self, value, config):
        self.value = bool(value)

    def text(self):
        return f"site_root = {self.value}"

    phash = text

    def __call__(self, context, request):
        at_root = request.environ.get("PATH_INFO", "") in ("", "/") and request.matched_route is None
        return at_root == self.value


def links(request):
    """The site's addresses a newcomer needs, absolute, under the request's own base URL."""
    base = request.application_url
    rest_root = base + request.registry.settings["storeplatform.rest_prefix"]
    namespaces = sorted(name for name, ns in request.registry.get(NAMESPACES_KEY, {}).items()
                        if guard_allows(ns, request))
    return {
        "name": request.site_options["site.title"],
        "url": base + "/",
        "admin": base + "/admin/",
        "rest_index": rest_root + "/",
        "openapi": rest_root + "/openapi.json",
        # One description per API the caller could reach (an API switched off is not named).
        "namespaces": {name: f"{rest_root}/{name}/" for name in namespaces},
    }


def wants_html(request):
    offers = request.accept.acceptable_offers(OFFERS)
    return bool(offers) and offers[0][0] == "text/html"


def landing(exc, request):
    values = links(request)
    if wants_html(request):
        response = render_to_response("landing.jinja2", {**values, "favicon": request.application_url + "/favicon.ico"},
                                      request=request)
        # The admin's policy: the site's own styles only, never framed.
        for name, value in ADMIN_ANSWER:
            response.headers[name] = value
    else:
        response = Response(body=dumpb(values), content_type="application/json")
    response.status = 200
    response.vary = ("Accept",)
    response.cache_control = "no-cache"
    return response


def favicon(request):
    response = Response(body=request.registry["landing.favicon"], content_type="image/x-icon")
    response.cache_control = f"public, max-age={FAVICON_MAX_AGE}"
    return response


def _read_only(request):
    raise HTTPMethodNotAllowed(headers={"Allow": "GET, HEAD"})
