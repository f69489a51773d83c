"""URL dispatch by literal segments picks the very route Pyramid's ordered scan picks."""
import itertools

import pytest
from pyramid.interfaces import IRoutesMapper
from pyramid.request import Request
from pyramid.urldispatch import RoutesMapper

from storeplatform.core.routing import IndexedRoutesMapper, literal_segments

PLUGINS = "invoicing pricecalc events oauth"


@pytest.mark.parametrize("pattern, segments", [
    ("/", ("",)),
    ("", ("",)),
    ("/api/events/v1/events", ("api", "events", "v1", "events")),
    ("/api/events/v1/events/{id}", ("api", "events", "v1", "events")),
    ("/api/events/v1/ev{id}", ("api", "events", "v1")),
    ("api/store/v1/", ("api", "store", "v1", "")),
    ("/static/*subpath", ("static",)),
    ("/old/:name/x", ("old",)),
    ("{anything:.*}", ()),
])
def test_literal_segments(pattern, segments):
    assert literal_segments(pattern) == segments


def _paths(mapper):
    """For every route: a URL it generates, with neighbours that may belong to another route."""
    values = ["1", "x", "123456789012345678901234567890", "%C3%A9", ""]
    for route in mapper.get_routes():
        for value in values:
            try:
                path = route.generate({"id": value, "event_id": value, "order_id": value, "document_id": value,
                                       "subpath": (value,), "namespace": value, "path": value, "slug": value,
                                       "type": value, "key": value, "section": value, "uuid": value,
                                       "product_id": value, "variation_id": value, "name": value,
                                       "ticket_code": value, "password_id": value, "attendee_id": value,
                                       "delivery_id": value, "group": value, "note_id": value,
                                       "refund_id": value, "key_id": value})
            except KeyError:
                continue
            yield path
            yield path + "/"
            yield path.rsplit("/", 1)[0]
    yield from ("/", "/?invoicing_download=1", "", "/api", "/api/", "/nowhere", "/api/events/v1/events/1/2/3", "//api//events")


def test_the_same_route_as_pyramids_scan_for_every_route_of_a_site(make_site):
    site = make_site(**{"storeplatform.plugins": PLUGINS})
    mapper = site.registry.getUtility(IRoutesMapper)
    assert isinstance(mapper, IndexedRoutesMapper)
    assert len(mapper.get_routes()) > 50
    matched = set()
    for path, method in itertools.product(set(_paths(mapper)), ("GET", "POST", "PUT", "DELETE", "OPTIONS")):
        request = Request.blank(path, method=method)
        request.registry = site.registry
        ours, pyramids = mapper(request), RoutesMapper.__call__(mapper, request)
        assert ours["route"] is pyramids["route"], path
        assert ours["match"] == pyramids["match"], path
        matched.add(ours["route"] and ours["route"].name)
    # Every route was found through the index at least once.
    assert {route.name for route in mapper.get_routes()} - matched == set()


def test_a_route_added_later_is_found():
    mapper = IndexedRoutesMapper()
    mapper.connect("a", "/a/{id}")
    request = Request.blank("/a/1")
    assert mapper(request)["route"].name == "a"
    mapper.connect("b", "/b")
    assert mapper(Request.blank("/b"))["route"].name == "b"
    # The first route added wins where two match, as in Pyramid.
    mapper.connect("a-catchall", "/{anything:.*}")
    mapper.connect("a-fixed", "/a/fixed")
    assert mapper(Request.blank("/a/fixed"))["route"].name == "a"
    assert mapper(Request.blank("/zzz"))["route"].name == "a-catchall"
