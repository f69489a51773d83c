"""Fixtures of the OAuth tests: requests signed by requests-oauthlib (a client library that signs
on its own) and replayed through the WSGI app exactly as prepared."""
import time

import pytest
import requests
from requests_oauthlib import OAuth1

from storeplatform.testing import assert_error  # noqa: F401  (re-exported for the tests)

HMAC_SHA1 = "HMAC-SHA1"
HMAC_SHA256 = "HMAC-SHA256"


def prepare(method, url, key, secret, *, signature_method=HMAC_SHA256, signature_type="auth_header",
            timestamp=None, nonce=None, **request_kw):
    """A ``requests.PreparedRequest`` signed by requests-oauthlib's ``OAuth1`` (one-legged: no
    token). ``url`` is absolute, as the client sees the site."""
    auth = OAuth1(key, client_secret=secret, signature_method=signature_method, signature_type=signature_type,
                  timestamp=None if timestamp is None else str(timestamp), nonce=nonce)
    return requests.Request(method, url, auth=auth, **request_kw).prepare()


def send(app, prepared, **kw):
    """Send a prepared request through WebTest, byte for byte (URL, headers, body)."""
    # requests-oauthlib writes the Authorization header as bytes.
    headers = {k: v.decode() if isinstance(v, bytes) else v for k, v in prepared.headers.items()
               if k.lower() != "content-length"}
    body = prepared.body or b""
    if isinstance(body, str):
        body = body.encode()
    return app.request(prepared.url, method=prepared.method, headers=headers, body=body, expect_errors=True, **kw)


class OAuthClient:
    """A site with the oauth plugin and signing helpers; ``base`` is the site as clients see it."""

    def __init__(self, site, base="http://localhost"):
        self.site = site
        self.app = site.app
        self.base = base

    def key(self, login="shop", role="shop_manager", permissions="read_write"):
        if not hasattr(self, "_users"):
            self._users = set()
        if login not in self._users:
            self.site.create_user(login, role)
            self._users.add(login)
        return self.site.consumer_key(login, permissions)

    def prepare(self, method, path, credentials, **kw):
        key, secret = credentials
        return prepare(method, self.base + path, key, secret, **kw)

    def request(self, method, path, credentials, extra_environ=None, **kw):
        return send(self.app, self.prepare(method, path, credentials, **kw),
                    **({"extra_environ": extra_environ} if extra_environ else {}))


@pytest.fixture
def oauth_site(make_site):
    return make_site(**{"storeplatform.plugins": "oauth"})


@pytest.fixture
def client(oauth_site):
    return OAuthClient(oauth_site)


def now():
    return int(time.time())
