"""Requests signed by requests-oauthlib are accepted: query string, Authorization header and
form body; HMAC-SHA1 and HMAC-SHA256; the URL as the client saw it."""
import pytest

from storeplatform.testing import assert_error

from .conftest import HMAC_SHA1, HMAC_SHA256, OAuthClient, prepare, send

METHODS = [HMAC_SHA1, HMAC_SHA256]


@pytest.mark.parametrize("signature_type", ["query", "auth_header"])
@pytest.mark.parametrize("method", METHODS)
def test_signed_get_authenticates_the_keys_user(client, signature_type, method):
    creds = client.key()
    res = client.request("GET", "/api/store/v1/users/me", creds, signature_type=signature_type,
                         signature_method=method)
    assert res.status_int == 200, res.text
    assert res.json["login"] == "shop" and "manage_shop" in res.json["capabilities"]


@pytest.mark.parametrize("signature_type", ["query", "auth_header"])
@pytest.mark.parametrize("method", METHODS)
def test_signed_json_write(client, signature_type, method):
    creds = client.key()
    res = client.request("POST", "/api/store/v1/products?context=edit", creds, signature_type=signature_type,
                         signature_method=method, json={"name": "Lamp", "regular_price": "12.50"})
    assert res.status_int == 201, res.text
    assert res.json["name"] == "Lamp" and res.json["regular_price"] == 12.5


@pytest.mark.parametrize("signature_type", ["auth_header", "body"])
def test_signed_form_body_counts_in_the_signature(client, signature_type):
    """A flat form's fields are signed parameters; with ``body`` the OAuth parameters travel in
    the form too."""
    creds = client.key()
    prepared = client.prepare("POST", "/api/store/v1/products", creds, signature_type=signature_type,
                              data={"name": "Desk", "regular_price": "99.90"})
    assert prepared.headers["Content-Type"] in ("application/x-www-form-urlencoded", b"application/x-www-form-urlencoded")
    res = send(client.app, prepared)
    assert res.status_int == 201, res.text
    assert res.json["name"] == "Desk"


def test_a_changed_form_field_breaks_the_signature(client):
    creds = client.key()
    prepared = client.prepare("POST", "/api/store/v1/products", creds, data={"name": "Desk", "regular_price": "1"})
    prepared.body = "name=Desk&regular_price=0.01"
    assert_error(send(client.app, prepared), 401, "rest_oauth_invalid_signature")


def test_query_parameters_with_reserved_and_unicode_characters(client):
    creds = client.key()
    client.request("POST", "/api/store/v1/products", creds, json={"name": "Café & Bar/2", "regular_price": "1"})
    res = client.request("GET", "/api/store/v1/products", creds, signature_type="query",
                         params={"search": "Café & Bar/2", "per_page": "5"})
    assert res.status_int == 200, res.text
    assert [p["name"] for p in res.json] == ["Café & Bar/2"]


@pytest.mark.parametrize("base", ["http://localhost", "http://localhost:80", "http://LOCALHOST"])
def test_default_port_and_host_case_are_normalized(oauth_site, base):
    client = OAuthClient(oauth_site, base=base)
    res = client.request("GET", "/api/store/v1/users/me", client.key())
    assert res.status_int == 200, res.text


def test_a_non_default_port_is_signed(oauth_site):
    client = OAuthClient(oauth_site, base="http://shop.example:8080")
    creds = client.key()
    assert client.request("GET", "/api/store/v1/users/me", creds).status_int == 200
    # Signed for another port than the one the request reached: not the URL the client saw.
    prepared = prepare("GET", "http://shop.example:8081/api/store/v1/users/me", *creds)
    prepared.url = prepared.url.replace(":8081", ":8080")
    assert_error(send(client.app, prepared), 401, "rest_oauth_invalid_signature")


def test_https_behind_a_trusted_proxy_is_signed_as_https(make_site):
    """The scheme is the one the client used: X-Forwarded-Proto from a trusted proxy."""
    site = make_site(**{"storeplatform.plugins": "oauth", "storeplatform.trusted_proxies": "127.0.0.1"})
    client = OAuthClient(site, base="https://shop.example")
    creds = client.key()
    good = client.prepare("GET", "/api/store/v1/users/me", creds)
    good.url = good.url.replace("https://", "http://")  # the proxy talks plain HTTP to the app
    good.headers.update({"X-Forwarded-Proto": "https", "Host": "shop.example"})
    res = send(site.app, good)
    assert res.status_int == 200, res.text
    # The same request signed for http:// is not what the client saw.
    plain = prepare("GET", "http://shop.example/api/store/v1/users/me", *creds)
    plain.headers.update({"X-Forwarded-Proto": "https", "Host": "shop.example"})
    assert_error(send(site.app, plain), 401, "rest_oauth_invalid_signature")


def test_over_plain_http_where_basic_with_a_consumer_secret_is_refused(make_site):
    site = make_site(**{"storeplatform.plugins": "oauth", "storeplatform.allow_http_consumer_keys": "false"})
    client = OAuthClient(site)
    key, secret = client.key()
    site.app.authorization = ("Basic", (key, secret))
    assert_error(site.app.get("/api/store/v1/users/me", status=401), 401, "rest_consumer_key_https_required")
    site.app.authorization = None
    assert client.request("GET", "/api/store/v1/users/me", (key, secret)).json["login"] == "shop"


@pytest.mark.in_process
def test_over_https_also_accepted(make_site):
    site = make_site(**{"storeplatform.plugins": "oauth", "storeplatform.allow_http_consumer_keys": "false"})
    client = OAuthClient(site, base="https://localhost")
    res = client.request("GET", "/api/store/v1/users/me", client.key())
    assert res.status_int == 200 and res.json["login"] == "shop"


def test_basic_with_a_consumer_key_still_works_beside_oauth(client):
    key, secret = client.key()
    client.app.authorization = ("Basic", (key, secret))
    assert client.app.get("/api/store/v1/users/me").json["login"] == "shop"


@pytest.mark.parametrize("signature_type", ["query", "auth_header"])
def test_plugin_off_an_oauth_request_is_anonymous(make_site, signature_type):
    site = make_site()
    client = OAuthClient(site)
    creds = client.key()
    assert_error(client.request("GET", "/api/store/v1/users/me", creds, signature_type=signature_type),
                 401, "rest_not_logged_in")
    res = client.request("GET", "/api/store/v1/products", creds, signature_type=signature_type)
    assert res.status_int == 200 and res.json == []
