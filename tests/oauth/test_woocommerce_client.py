"""The official WooCommerce Python client, unchanged, against a real HTTP server of the site:
it signs with OAuth 1.0a over plain HTTP and sends its query twice (``?per_page=5&oauth_…&
per_page=5``)."""
import pytest
from webtest.http import StopableWSGIServer
from woocommerce import API

from .conftest import OAuthClient


@pytest.fixture
def shop(make_site):
    # The client builds {url}/wp-json/{version}/{endpoint}: serve the REST root there.
    site = make_site(**{"storeplatform.plugins": "oauth", "storeplatform.rest_prefix": "/wp-json"})
    headers = site.headers_for("administrator")
    for name in ("Lamp", "Desk", "Chair", "Rug", "Shelf", "Stool", "Table"):
        site.app.post_json("/wp-json/store/v1/products", {"name": name, "regular_price": "1"}, headers=headers)
    server = StopableWSGIServer.create(site.wsgi, host="127.0.0.1")
    key, secret = OAuthClient(site).key()
    yield API(url=server.application_url.rstrip("/"), consumer_key=key, consumer_secret=secret,
              version="store/v1", timeout=20)
    server.shutdown()


def test_list_with_parameters(shop):
    res = shop.get("products", params={"per_page": 2, "page": 2, "search": "a"})
    assert res.request.url.count("per_page=2") == 2  # signed once, sent twice
    assert res.status_code == 200, res.text
    assert res.headers["X-Total"] == "3" and len(res.json()) == 1  # Lamp, Chair, Table


def test_create_update_delete(shop):
    created = shop.post("products", {"name": "Bench", "regular_price": "25.50"})
    assert created.status_code == 201, created.text
    pid = created.json()["id"]
    assert shop.put(f"products/{pid}", {"name": "Long bench"}).json()["name"] == "Long bench"
    assert shop.delete(f"products/{pid}", params={"force": True}).json()["deleted"] is True
    assert shop.get(f"products/{pid}").status_code == 404


def test_a_slash_in_a_query_value_is_signed_against_rfc_5849(shop):
    """That client leaves "/" unencoded in the values it signs (RFC 5849 encodes it): such a
    request does not verify (docs/oauth.md)."""
    res = shop.get("products", params={"search": "a/b"})
    assert res.status_code == 401 and res.json()["code"] == "rest_oauth_invalid_signature"
