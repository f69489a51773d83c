"""Checking one-legged OAuth 1.0a requests (RFC 5849) against the site's consumer keys."""
import hashlib
import time
from types import SimpleNamespace

from oauthlib.oauth1.rfc5849.signature import verify_hmac_sha1, verify_hmac_sha256

from storeplatform.api import Identity, is_digits
from storeplatform.api.advanced import (consumer_key_credentials, failed_guess, refuse_if_throttled,
                                        require_consumer_key_permission)

from . import errors
from .nonces import record_nonce
from .request_params import signed_parameters

# RFC 5849 names these; oauth_version is optional (and then "1.0").
REQUIRED = ("oauth_consumer_key", "oauth_nonce", "oauth_signature", "oauth_signature_method", "oauth_timestamp")
VERIFIERS = {"HMAC-SHA1": verify_hmac_sha1, "HMAC-SHA256": verify_hmac_sha256}
WINDOW_SECONDS = 15 * 60


def oauth_identity(request):
    """The identity an OAuth request proves, or the first error that applies (docs/oauth.md):
    the cheap checks first, so a malformed or stale request costs no query, and the nonce last,
    so only a correctly signed request spends one."""
    now = int(time.time())
    params = signed_parameters(request)
    oauth = _oauth_values(params)
    missing = [name for name in REQUIRED if not oauth.get(name)]
    if missing:
        raise errors.MISSING_PARAMETERS(f"Missing OAuth parameter(s): {', '.join(missing)}.",
                                        params={name: "Required" for name in missing})
    if oauth.get("oauth_version", "1.0") != "1.0":
        raise errors.INVALID_PARAMETER("oauth_version must be 1.0.", params={"oauth_version": "must be 1.0"})
    verify = VERIFIERS.get(oauth["oauth_signature_method"])
    if verify is None:
        raise errors.UNSUPPORTED_SIGNATURE_METHOD()
    timestamp = oauth["oauth_timestamp"]
    if not (is_digits(timestamp) and len(timestamp) <= 12):
        raise errors.INVALID_PARAMETER("oauth_timestamp must be whole seconds since 1970.",
                                       params={"oauth_timestamp": "not a Unix time"})
    if abs(now - int(timestamp)) > WINDOW_SECONDS:
        raise errors.STALE_TIMESTAMP()
    # Guesses of a key (its existence, or a signature without its secret) are throttled per key
    # and address as Basic's are, the key's Basic guesses counted with them: 429 while blocked.
    # Malformed and stale requests above are not guesses and are not counted.
    consumer_key = oauth["oauth_consumer_key"]
    refuse_if_throttled(request, consumer_key)
    key = consumer_key_credentials(request, consumer_key)
    if key is None:
        raise failed_guess(request, consumer_key, errors.UNKNOWN_CONSUMER_KEY())
    if key.secret is None:
        raise errors.BASIC_ONLY_KEY()
    if not _signature_matches(request, verify, params, key.secret):
        raise failed_guess(request, consumer_key, errors.INVALID_SIGNATURE())
    nonce_hash = hashlib.sha256(oauth["oauth_nonce"].encode()).hexdigest()
    if not record_nonce(request, key.id, nonce_hash, expires_at=int(timestamp) + WINDOW_SECONDS, now=now):
        raise errors.NONCE_USED()
    require_consumer_key_permission(request, key.permissions)
    return Identity(key.user, "oauth", key.permissions)


def _oauth_values(params):
    """Each ``oauth_*`` parameter's value; one sent twice with different values is refused
    (RFC 5849 section 3.2: each at most once)."""
    values = {}
    for name, value in params:
        if name.startswith("oauth_") and values.setdefault(name, value) != value:
            raise errors.INVALID_PARAMETER(f"{name} is sent more than once.", params={name: "sent twice"})
    return values


def _signature_matches(request, verify, params, secret):
    """The signature over the parameters as sent or, failing that, with identical repeated
    pairs sent once: a store client library signs its query once and then sends it twice
    (``?per_page=5&oauth_…&per_page=5``)."""
    signature = next(value for name, value in params if name == "oauth_signature")
    signed = [(name, value) for name, value in params if name != "oauth_signature"]
    uri = request.path_url  # scheme (trusted proxies' X-Forwarded-Proto) and Host as the client used them
    candidates = [signed]
    collapsed = list(dict.fromkeys(signed))
    if len(collapsed) != len(signed):
        candidates.append(collapsed)
    for candidate in candidates:
        # oauthlib recomputes the base string (default ports dropped) and compares in constant time.
        try:
            if verify(SimpleNamespace(params=candidate, uri=uri, http_method=request.method, signature=signature),
                      client_secret=secret):
                return True
        except ValueError:  # a Host header that is no host (a port beyond 65535 ...)
            raise errors.INVALID_PARAMETER("The request's URL cannot be normalized: check the Host header.")
    return False
