"""Every way an OAuth request is refused: 401 in the host's error shape with its own code, and
the key's permissions exactly as with Basic (403 rest_consumer_key_permissions)."""
import pytest
from sqlalchemy import select, update

from storeplatform.components.shop.models import ConsumerKey
from storeplatform.testing import assert_error

from .conftest import HMAC_SHA1, now, prepare, send

ME = "/api/store/v1/users/me"


def _without(prepared, name):
    """The prepared request's Authorization header without one parameter."""
    header = prepared.headers["Authorization"]
    header = header.decode() if isinstance(header, bytes) else header
    parts = [p for p in header[len("OAuth "):].split(", ") if not p.startswith(name + "=")]
    prepared.headers["Authorization"] = "OAuth " + ", ".join(parts)
    return prepared


@pytest.mark.parametrize("name", ["oauth_consumer_key", "oauth_nonce", "oauth_signature",
                                  "oauth_signature_method", "oauth_timestamp"])
def test_a_missing_parameter_is_named(client, name):
    prepared = _without(client.prepare("GET", ME, client.key()), name)
    body = assert_error(send(client.app, prepared), 401, "rest_oauth_missing_parameters")
    assert body["data"]["params"] == {name: "Required"}


def test_oauth_parameters_in_the_query_without_a_signature(client):
    res = client.app.get(ME + "?oauth_consumer_key=ck_x&oauth_nonce=1", expect_errors=True)
    body = assert_error(res, 401, "rest_oauth_missing_parameters")
    assert set(body["data"]["params"]) == {"oauth_signature", "oauth_signature_method", "oauth_timestamp"}


def test_an_empty_oauth_header_names_every_parameter(client):
    res = client.app.get(ME, headers={"Authorization": "OAuth"}, expect_errors=True)
    body = assert_error(res, 401, "rest_oauth_missing_parameters")
    assert len(body["data"]["params"]) == 5


@pytest.mark.parametrize("method", ["PLAINTEXT", "RSA-SHA1", "HMAC-SHA512"])
def test_unsupported_signature_method(client, method):
    key, secret = client.key()
    prepared = prepare("GET", "http://localhost" + ME, key, secret, signature_method=HMAC_SHA1)
    header = prepared.headers["Authorization"].decode()
    prepared.headers["Authorization"] = header.replace('oauth_signature_method="HMAC-SHA1"',
                                                       f'oauth_signature_method="{method}"')
    assert_error(send(client.app, prepared), 401, "rest_oauth_unsupported_signature_method")


@pytest.mark.parametrize("offset", [-901, 901, -100000])
def test_stale_timestamp(client, offset):
    res = client.request("GET", ME, client.key(), timestamp=now() + offset)
    assert_error(res, 401, "rest_oauth_stale_timestamp")


@pytest.mark.parametrize("offset", [-880, 880])
def test_timestamp_inside_the_window(client, offset):
    assert client.request("GET", ME, client.key(), timestamp=now() + offset).status_int == 200


@pytest.mark.parametrize("timestamp", ["soon", "1.5", "-5", "١٢٣"])
def test_malformed_timestamp(client, timestamp):
    key, secret = client.key()
    prepared = prepare("GET", "http://localhost" + ME, key, secret, timestamp=timestamp)
    body = assert_error(send(client.app, prepared), 401, "rest_oauth_invalid_parameter")
    assert "oauth_timestamp" in body["data"]["params"]


def test_unsupported_version(client):
    prepared = client.prepare("GET", ME, client.key(), signature_type="query")
    prepared.url = prepared.url.replace("oauth_version=1.0", "oauth_version=2.0")
    body = assert_error(send(client.app, prepared), 401, "rest_oauth_invalid_parameter")
    assert body["data"]["params"] == {"oauth_version": "must be 1.0"}


def test_an_oauth_parameter_sent_twice_with_different_values(client):
    prepared = client.prepare("GET", ME, client.key(), signature_type="query")
    prepared.url += "&oauth_nonce=another"
    body = assert_error(send(client.app, prepared), 401, "rest_oauth_invalid_parameter")
    assert body["data"]["params"] == {"oauth_nonce": "sent twice"}


def test_a_query_string_that_is_not_url_encoded(client):
    prepared = client.prepare("GET", ME, client.key())
    prepared.url += "?a={b}"
    assert_error(send(client.app, prepared), 401, "rest_oauth_invalid_parameter")


def test_unknown_consumer_key(client):
    _, secret = client.key()
    res = client.request("GET", ME, ("ck_" + "0" * 40, secret))
    assert_error(res, 401, "rest_oauth_unknown_consumer_key")


def test_a_basic_only_key_cannot_sign(client):
    """Keys issued before secrets were kept (migration sp0006) have no secret to check with."""
    key, secret = client.key()
    with client.site.session() as s:
        s.execute(update(ConsumerKey).values(secret_sealed=None))
    assert_error(client.request("GET", ME, (key, secret)), 401, "rest_oauth_basic_only_key")
    client.app.authorization = ("Basic", (key, secret))
    assert client.app.get(ME).json["login"] == "shop"


def test_a_sealed_secret_moved_to_another_key_does_not_open(client):
    first = client.key()
    second = client.key("other", "shop_manager")
    with client.site.session() as s:
        keys = s.execute(select(ConsumerKey).order_by(ConsumerKey.id)).scalars().all()
        assert all(k.secret_sealed.startswith("v1:") and first[1] not in k.secret_sealed for k in keys)
        keys[1].secret_sealed = keys[0].secret_sealed
    assert_error(client.request("GET", ME, (second[0], first[1])), 401, "rest_oauth_basic_only_key")
    assert client.request("GET", ME, first).status_int == 200


@pytest.mark.parametrize("signature_type", ["query", "auth_header"])
def test_wrong_secret(client, signature_type):
    key, _ = client.key()
    res = client.request("GET", ME, (key, "cs_" + "1" * 40), signature_type=signature_type)
    assert_error(res, 401, "rest_oauth_invalid_signature")


def test_wrong_method_or_path_or_query(client):
    creds = client.key()
    for change in (lambda p: setattr(p, "method", "DELETE"),
                   lambda p: setattr(p, "url", p.url.replace("/users/me", "/products")),
                   lambda p: setattr(p, "url", p.url + "&per_page=3")):
        prepared = client.prepare("GET", "/api/store/v1/users/me?context=view", creds)
        change(prepared)
        assert_error(send(client.app, prepared), 401, "rest_oauth_invalid_signature")


def test_a_reused_nonce(client):
    creds = client.key()
    prepared = client.prepare("GET", ME, creds, signature_type="query")
    assert send(client.app, prepared).status_int == 200
    assert_error(send(client.app, prepared), 401, "rest_oauth_nonce_used")
    # Another key may use the same nonce; the same key with a new timestamp may not.
    other = client.key("other", "customer")
    assert client.request("GET", ME, other, nonce=_nonce(prepared)).status_int == 200
    assert_error(client.request("GET", ME, creds, nonce=_nonce(prepared), timestamp=now() + 5), 401,
                 "rest_oauth_nonce_used")


def test_a_rejected_request_does_not_spend_its_nonce(client):
    creds = client.key()
    assert_error(client.request("GET", ME, (creds[0], "cs_wrong"), nonce="n1"), 401, "rest_oauth_invalid_signature")
    assert client.request("GET", ME, creds, nonce="n1").status_int == 200


def _nonce(prepared):
    from urllib.parse import parse_qs, urlsplit

    return parse_qs(urlsplit(prepared.url).query)["oauth_nonce"][0]


@pytest.mark.parametrize("signature_type", ["query", "auth_header"])
def test_permissions_as_with_basic(client, signature_type):
    read = client.key(permissions="read")
    write = client.key(permissions="write")
    both = client.key(permissions="read_write")
    body = {"name": "Lamp", "regular_price": "1"}
    kw = {"signature_type": signature_type}
    assert client.request("GET", ME, read, **kw).status_int == 200
    assert_error(client.request("POST", "/api/store/v1/products", read, json=body, **kw), 403,
                 "rest_consumer_key_permissions")
    assert_error(client.request("GET", ME, write, **kw), 403, "rest_consumer_key_permissions")
    assert client.request("POST", "/api/store/v1/products", write, json=body, **kw).status_int == 201
    assert client.request("GET", ME, both, **kw).status_int == 200
    assert client.request("PUT", "/api/store/v1/products/1", both, json={"name": "Lamp 2"}, **kw).status_int == 200


def test_capabilities_of_the_keys_user(client):
    customer = client.key("buyer", "customer")
    assert_error(client.request("POST", "/api/store/v1/products", customer, json={"name": "x", "regular_price": "1"}),
                 403, "rest_forbidden")


def test_wrong_oauth_on_a_public_route_is_401(client):
    key, _ = client.key()
    res = client.request("GET", "/api/store/v1/products", (key, "cs_wrong"))
    assert_error(res, 401, "rest_oauth_invalid_signature")


@pytest.mark.parametrize("header", [
    "OAuth garbage", "OAuth oauth_nonce=unquoted", 'OAuth oauth_nonce="a", oauth_nonce="b"',
    'OAuth oauth_consumer_key="ck_%ZZ"',
])
def test_a_broken_oauth_header_is_401_not_500(client, header):
    res = client.app.get(ME, headers={"Authorization": header}, expect_errors=True)
    assert res.status_int == 401 and res.json["code"].startswith("rest_oauth_"), res.text


@pytest.mark.parametrize("value", ["\x00", "x" * 5000, "ü\U0001F600", "%00"])
def test_hostile_nonce_and_key_values(client, value):
    creds = client.key()
    assert client.request("GET", ME, creds, nonce=value).status_int == 200
    assert_error(client.request("GET", ME, (value, creds[1])), 401, "rest_oauth_unknown_consumer_key")


def test_a_form_body_that_is_not_utf8(client):
    res = client.app.post(ME, b"oauth_consumer_key=\xff", headers={"Content-Type": "application/x-www-form-urlencoded"},
                          expect_errors=True)
    assert_error(res, 401, "rest_oauth_invalid_parameter")


def test_a_timestamp_beyond_any_clock(client):
    res = client.request("GET", ME, client.key(), timestamp="9" * 30)
    assert_error(res, 401, "rest_oauth_invalid_parameter")


def test_a_host_header_that_is_no_host(client):
    prepared = client.prepare("GET", ME, client.key())
    prepared.headers["Host"] = "localhost:99999"
    assert_error(send(client.app, prepared), 401, "rest_oauth_invalid_parameter")
