"""Repeated query parameters keep their last value on every route (docs/decisions.md), and a
signature over the parameters as sent or, failing that, with identical repeated pairs sent once
is accepted: the WooCommerce Python client signs ``?per_page=5`` and then sends
``?per_page=5&oauth_…&per_page=5`` (requests appends its ``params`` to the signed URL)."""
import re

import pytest

from storeplatform.testing import assert_error

from .conftest import OAuthClient, send


@pytest.fixture
def client(make_site):
    site = make_site(**{"storeplatform.plugins": "oauth events invoicing pricecalc"})
    site.set_option("invoicing.rest_api_enabled", True)
    return OAuthClient(site)


def _parameter_value(parameter):
    # The users list's role names a role of the site: plugins add roles, so its schema lists none.
    if parameter["name"] == "role":
        return "customer"
    return _value(parameter.get("schema", {}))


def _value(schema):
    if "enum" in schema:
        return schema["enum"][0]
    if "default" in schema:
        value = schema["default"]
        return str(value).lower() if isinstance(value, bool) else str(value)
    kind = schema.get("type")
    if kind == "integer":
        return str(schema.get("minimum", 1))
    if kind == "boolean":
        return "true"
    if schema.get("format") == "date":
        return "2026-01-15"
    if "pattern" in schema:
        return "1"
    return "a"


def test_every_get_route_reads_a_repeated_parameter_as_sent_once(client):
    """Each GET route of every namespace, with each of its query parameters sent twice, answers
    exactly what it answers with each sent once."""
    site = client.site
    headers = site.headers_for("administrator")
    site.app.post_json("/api/store/v1/products", {"name": "Lamp", "regular_price": "3"}, headers=headers, status=201)
    spec = site.app.get("/api/openapi.json").json
    checked = 0
    for path, operations in spec["paths"].items():
        params = [p for p in operations.get("get", {}).get("parameters", []) if p["in"] == "query"]
        if not params:
            continue
        url = "/api" + re.sub(r"\{[^}]+\}", "1", path)
        query = "&".join(f"{p['name']}={_parameter_value(p)}" for p in params)
        once = site.app.get(f"{url}?{query}", headers=headers, expect_errors=True)
        twice = site.app.get(f"{url}?{query}&{query}", headers=headers, expect_errors=True)
        assert (twice.status_int, twice.body) == (once.status_int, once.body), (url, query)
        assert once.status_int != 400, (url, query, once.text)
        checked += 1
    assert checked >= 12  # store, events, pricecalc, invoicing lists and reads


def test_last_value_wins(client):
    headers = client.site.headers_for("administrator")
    for name in ("a", "b", "c"):
        client.app.post_json("/api/store/v1/products", {"name": name, "regular_price": "1"}, headers=headers)
    res = client.app.get("/api/store/v1/products?per_page=1&per_page=2", headers=headers)
    assert len(res.json) == 2


def _woocommerce_style(client, creds, path, query):
    """What the WooCommerce Python client sends: the URL with its query, signed, and the same
    query appended once more by requests."""
    prepared = client.prepare("GET", f"{path}?{query}", creds, signature_type="query")
    prepared.url += "&" + query
    return prepared


def test_woocommerce_client_repeats_the_signed_query(client):
    creds = client.key()
    headers = client.site.headers_for("administrator")
    for name in "abcdefg":
        client.app.post_json("/api/store/v1/products", {"name": name, "regular_price": "1"}, headers=headers)
    prepared = _woocommerce_style(client, creds, "/api/store/v1/products", "per_page=5&page=1")
    assert prepared.url.count("per_page=5") == 2
    res = send(client.app, prepared)
    assert res.status_int == 200, res.text
    assert len(res.json) == 5 and res.headers["X-Total"] == "7"


def test_a_signature_over_the_repeated_parameters_as_sent(client):
    creds = client.key()
    res = client.request("GET", "/api/store/v1/products?per_page=5&per_page=5", creds, signature_type="query")
    assert res.status_int == 200, res.text


def test_different_repeated_values_are_not_collapsed(client):
    creds = client.key()
    prepared = client.prepare("GET", "/api/store/v1/products?per_page=5", creds, signature_type="query")
    prepared.url += "&per_page=6"
    assert_error(send(client.app, prepared), 401, "rest_oauth_invalid_signature")
