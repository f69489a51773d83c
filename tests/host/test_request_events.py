"""The router's events (NewRequest, BeforeTraversal, ContextFound, NewResponse) cost every request
a registry lookup each once anything subscribes to one of them: the host subscribes to none
(``core.rest.quiet_cornice``, ``GuardingTraverser``), and what a plugin subscribes still hears
each event once, with the REST guard and the caller's credentials checked as before."""
import base64

import pytest
from cornice import Service as CorniceService
from pyramid.events import BeforeTraversal, ContextFound, NewRequest, NewResponse
from pyramid.exceptions import ConfigurationError

from storeplatform.api import Service, hookimpl
from storeplatform.testing import assert_error

heard = Service("heard/v1", "/thing")


@heard.get()
def get_thing(request):
    return {"validated": request.validated, "errors": len(request.errors), "info": request.info}


class Listening:
    """A plugin subscribing to each of the router's events."""

    def __init__(self):
        self.events = []

    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_rest_namespace("heard/v1", description="Heard.")
        config.add_rest_services(heard)
        for kind in (NewRequest, BeforeTraversal, ContextFound, NewResponse):
            config.add_subscriber(lambda event, kind=kind: self.events.append(kind.__name__), kind)


# A plugin using Cornice itself, with Cornice's CORS: Cornice's own request subscriber then stays.
shared = CorniceService(name="cors-thing", path="/cors/thing", cors_origins=("*",))


@shared.get()
def get_shared(request):
    return {"validated": request.validated}


class CorsPlugin:
    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_cornice_service(shared)


def basic(login, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()}


def test_the_host_subscribes_to_no_router_event(site):
    registry = site.wsgi.registry
    assert registry.has_listeners is False
    assert list(registry.registeredHandlers()) == []
    res = site.app.get("/api/store/v1/products", status=200)
    assert res.headers["X-Content-Type-Options"] == "nosniff"


def test_wrong_credentials_fail_every_rest_request_without_events(site):
    bad = basic("nobody", "x" * 24)
    assert_error(site.app.get("/api/store/v1/products", headers=bad, status=401), 401, "rest_authentication_failed")
    # An unknown path under the REST root: the credentials are checked before the 404.
    assert_error(site.app.get("/api/store/v1/no-such-thing", headers=bad, status=401), 401, "rest_authentication_failed")
    site.app.get("/api/store/v1/no-such-thing", status=404)


def test_a_plugins_subscribers_hear_each_event_once(make_site):
    plugin = Listening()
    site = make_site(plugins=[plugin])
    res = site.app.get("/api/heard/v1/thing", status=200)
    assert res.json == {"validated": {}, "errors": 0, "info": {}}
    assert plugin.events == ["NewRequest", "BeforeTraversal", "ContextFound", "NewResponse"]
    del plugin.events[:]
    bad = basic("nobody", "x" * 24)
    assert_error(site.app.get("/api/heard/v1/thing", headers=bad, status=401), 401, "rest_authentication_failed")
    # The guard ran after BeforeTraversal and failed before the view's context was found.
    assert plugin.events == ["NewRequest", "BeforeTraversal", "NewResponse"]


def test_cornice_keeps_its_subscriber_for_a_service_with_cors(make_site):
    site = make_site(plugins=[CorsPlugin()])
    assert site.wsgi.registry.has_listeners is True
    res = site.app.get("/cors/thing", headers={"Origin": "https://shop.example"}, status=200)
    assert res.headers["Access-Control-Allow-Origin"] == "*"
    assert res.json == {"validated": {}}


class OwnTraverser:
    def __init__(self, root):
        self.root = root

    def __call__(self, request):
        return {"context": self.root, "view_name": "", "subpath": (), "traversed": (), "virtual_root": self.root,
                "virtual_root_path": (), "root": self.root}


class TraversingPlugin:
    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_traverser(OwnTraverser)


def test_a_plugin_traverser_that_would_skip_the_guard_stops_start_up(make_site):
    with pytest.raises(ConfigurationError, match=r"OwnTraverser.*plugins route by URL and register no traverser"):
        make_site(plugins=[TraversingPlugin()])
