"""OAuth works on every namespace (store, events, invoicing, pricecalc), reads and writes, with the
namespace's own capability checks after it."""
import pytest

from storeplatform.testing import assert_error

from .conftest import OAuthClient


@pytest.fixture
def client(make_site):
    site = make_site(**{"storeplatform.plugins": "oauth events invoicing pricecalc"})
    site.set_option("invoicing.rest_api_enabled", True)
    return OAuthClient(site)


@pytest.mark.parametrize("signature_type", ["query", "auth_header"])
def test_every_namespace(client, signature_type):
    creds = client.key()
    kw = {"signature_type": signature_type}
    # store
    product = client.request("POST", "/api/store/v1/products", creds, json={"name": "Rug", "regular_price": "2.00"},
                             **kw)
    assert product.status_int == 201, product.text
    pid = product.json["id"]
    order = client.request("POST", "/api/store/v1/orders", creds, json={
        "line_items": [{"product_id": pid, "quantity": 2}], "status": "completed",
        "billing": {"first_name": "Ann", "last_name": "Lee", "email": "ann@example.com"}}, **kw)
    assert order.status_int == 201, order.text
    # events
    event = client.request("POST", "/api/events/v1/events", creds, json={"title": "Fair"}, **kw)
    assert event.status_int == 201, event.text
    listed = client.request("GET", "/api/events/v1/events", creds, params={"per_page": "5", "page": "1"}, **kw)
    assert listed.status_int == 200, listed.text
    assert [e["id"] for e in listed.json] == [event.json["id"]]
    # pricecalc
    saved = client.request("POST", f"/api/pricecalc/v1/products/{pid}/calculator", creds,
                           json={"calculator_type": "area", "settings": {"pricing_unit": "sq ft"}}, **kw)
    assert saved.status_int == 200 and saved.json["success"] is True, saved.text
    # invoicing
    oid = order.json["id"]
    regen = client.request("POST", f"/api/invoicing/v1/documents/{oid}/regenerate", creds, json={}, **kw)
    assert regen.status_int == 200, regen.text
    meta = client.request("GET", f"/api/invoicing/v1/documents/{oid}", creds, **kw)
    assert meta.status_int == 200 and meta.json["order_id"] == oid
    pdf = client.request("GET", f"/api/invoicing/v1/documents/{oid}/pdf", creds, **kw)
    assert pdf.status_int == 200 and pdf.body.startswith(b"%PDF")


def test_namespace_codes_for_a_user_without_the_capability(client):
    customer = client.key("buyer", "customer")
    assert_error(client.request("POST", "/api/events/v1/events", customer, json={"title": "x"}), 403,
                 "evt_rest_forbidden")
    assert_error(client.request("POST", "/api/pricecalc/v1/products/1/calculator", customer, json={}), 403,
                 "forbidden")
    assert_error(client.request("GET", "/api/invoicing/v1/documents/1", customer), 403, "rest_forbidden")


def test_wrong_signature_on_each_namespace_is_the_oauth_code(client):
    key, _ = client.key()
    for path in ("/api/events/v1/events", "/api/pricecalc/v1/units", "/api/invoicing/v1/documents/1",
                 "/api/store/v1/products", "/api/"):
        assert_error(client.request("GET", path, (key, "cs_wrong")), 401, "rest_oauth_invalid_signature")
