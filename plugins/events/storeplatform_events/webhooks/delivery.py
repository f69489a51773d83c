"""One HTTP attempt of a webhook delivery: headers, signature, the hardened session, and what
came of it (response code, duration, error)."""
import hashlib
import hmac
import time
from dataclasses import dataclass

import requests
from requests_hardened import Config, HTTPSession

from .settings import MAX_REDIRECTS
from .targets import DeadlineAdapter, PinnedAddressAdapter

USER_AGENT = "storeplatform-events-webhooks/1"


def signature(secret, body):
    """Lower-case hex HMAC-SHA256 of the raw body keyed with the webhook secret, no prefix."""
    return hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Attempt:
    """One request to send: the webhook, where, the exact bytes and the signed headers."""

    webhook_id: int
    url: str
    body: bytes
    headers: dict


def signed_attempt(webhook_id, url, secret, topic, body, delivery_uuid, timestamp):
    """The attempt of a delivery, signed with the webhook's secret as it is now (the body and
    its timestamp were fixed when the change happened)."""
    return Attempt(webhook_id, url, body, delivery_headers(webhook_id, topic, secret, body, delivery_uuid, timestamp))


def delivery_headers(webhook_id, topic, secret, body, delivery_uuid, timestamp):
    return {
        "Content-Type": "application/json",
        "X-EVT-Webhook-ID": str(webhook_id),
        "X-EVT-Topic": topic,
        "X-EVT-Signature": signature(secret, body),
        "X-EVT-Delivery": delivery_uuid,
        "X-EVT-Timestamp": timestamp,
    }


@dataclass
class Outcome:
    response_code: int | None
    duration_ms: int
    error: str | None

    @property
    def success(self):
        return self.response_code is not None and self.response_code < 400


def make_http_session(policy):
    """A session for one delivery: at most 5 redirects, TLS verified, one time-out for all hops
    together, proxy variables of the environment ignored (a proxy would bypass the address
    check) and, unless private targets are allowed, connections only to checked public
    addresses, on every hop."""
    session = HTTPSession(Config(ip_filter_enable=False, ip_filter_allow_loopback_ips=False, never_redirect=False,
                                 default_timeout=(policy.timeout, policy.timeout),
                                 user_agent_override=USER_AGENT))
    session.max_redirects = MAX_REDIRECTS
    session.trust_env = False
    if policy.allow_private_targets:
        adapters = {"http://": DeadlineAdapter(), "https://": DeadlineAdapter()}
    else:
        adapters = {"http://": PinnedAddressAdapter(False, policy.trusted_networks),
                    "https://": PinnedAddressAdapter(True, policy.trusted_networks)}
    deadline = time.monotonic() + policy.timeout
    for prefix, adapter in adapters.items():
        adapter.deadline = deadline
        session.mount(prefix, adapter)
    return session


def post(policy, attempt):
    """Send once; never raises for network trouble (that is an Outcome with an error)."""
    started = time.monotonic()
    code, error = None, None
    try:
        with make_http_session(policy) as session:
            # stream: the receiver's answer body is not needed, so a huge one is never read.
            with session.post(attempt.url, data=attempt.body, headers=attempt.headers,
                              timeout=(policy.timeout, policy.timeout),
                              allow_redirects=True, verify=True, stream=True) as response:
                code = response.status_code
                if code >= 400:
                    error = f"HTTP {code}"
    except requests.exceptions.TooManyRedirects:
        error = f"more than {MAX_REDIRECTS} redirects"
    except requests.exceptions.Timeout as exc:
        error = f"time-out after {policy.timeout:g} s: {exc.__class__.__name__}"
    except requests.exceptions.RequestException as exc:
        error = f"{exc.__class__.__name__}: {exc}"[:1000]
    except (ValueError, OSError) as exc:  # e.g. a malformed redirect location
        error = f"{exc.__class__.__name__}: {exc}"[:1000]
    return Outcome(code, int((time.monotonic() - started) * 1000), error)
