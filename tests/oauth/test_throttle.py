"""OAuth signatures are throttled as Basic is (#28): wrong signatures and unknown keys count per
key and client address and per address, and over the limit a request is 429
``rest_too_many_attempts`` with ``Retry-After``, a right signature too; the key's owner from their
own address is not blocked; malformed or stale requests are no guesses and are not counted."""
import base64

import pytest
from sqlalchemy import func, select

from storeplatform.core.models import LoginAttempts
from storeplatform.testing import assert_error

from .conftest import OAuthClient, now

ME = "/api/store/v1/users/me"
ATTACKER = "203.0.113.66"
OWNER = "198.51.100.7"


@pytest.fixture
def client(make_site):
    site = make_site(**{"storeplatform.plugins": "oauth", "storeplatform.trusted_proxies": "127.0.0.1"})
    site.set_option("auth.throttle_login_failures", 3)
    return OAuthClient(site)


def signed(client, credentials, address, **kw):
    return client.request("GET", ME, credentials, headers={"X-Forwarded-For": address}, **kw)


def assert_throttled(res):
    body = assert_error(res, 429, "rest_too_many_attempts")
    assert 1 <= int(res.headers["Retry-After"]) <= 900 and body["data"]["retry_after"] == int(res.headers["Retry-After"])


def counted(client):
    with client.site.session() as s:
        return s.execute(select(func.coalesce(func.sum(LoginAttempts.failures), 0))).scalar_one()


def test_wrong_signatures_are_throttled(client):
    key, secret = client.key()
    for _ in range(3):
        assert_error(signed(client, (key, "cs_" + "0" * 40), ATTACKER), 401, "rest_oauth_invalid_signature")
    assert_throttled(signed(client, (key, secret), ATTACKER))
    # The key's owner, from their own address, goes on.
    assert signed(client, (key, secret), OWNER).json["login"] == "shop"
    assert counted(client) == 6  # three guesses, each under the key and under the address


def test_unknown_keys_count_against_the_address(client):
    client.site.set_option("auth.throttle_address_failures", 3)
    key, secret = client.key()
    for n in range(3):
        assert_error(signed(client, (f"ck_{n:040x}", secret), ATTACKER), 401, "rest_oauth_unknown_consumer_key")
    assert_throttled(signed(client, (key, secret), ATTACKER))
    assert signed(client, (key, secret), OWNER).status_int == 200


def test_basic_and_oauth_guesses_of_a_key_count_together(client):
    key, secret = client.key()
    wrong = base64.b64encode(f"{key}:cs_{'1' * 40}".encode()).decode()
    for _ in range(2):
        res = client.app.get(ME, headers={"Authorization": f"Basic {wrong}", "X-Forwarded-For": ATTACKER},
                             status=401)
        assert_error(res, 401, "rest_authentication_failed")
    assert_error(signed(client, (key, "cs_" + "0" * 40), ATTACKER), 401, "rest_oauth_invalid_signature")
    assert_throttled(signed(client, (key, secret), ATTACKER))


def test_malformed_and_stale_requests_are_not_counted(client):
    key, secret = client.key()
    for _ in range(5):
        assert_error(signed(client, (key, "cs_" + "0" * 40), ATTACKER, timestamp=now() - 1000), 401,
                     "rest_oauth_stale_timestamp")
        res = client.app.get(ME, headers={"Authorization": "OAuth", "X-Forwarded-For": ATTACKER}, status=401)
        assert_error(res, 401, "rest_oauth_missing_parameters")
    assert counted(client) == 0
    assert signed(client, (key, secret), ATTACKER).status_int == 200
    assert counted(client) == 0  # a success writes nothing
