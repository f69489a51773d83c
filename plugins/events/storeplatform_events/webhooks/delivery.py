"""One HTTP attempt of a webhook delivery: headers, signature, the hardened session (one per
worker thread, its connections kept between deliveries), and what came of it (response code,
duration, error)."""
import hashlib
import hmac
import time
from dataclasses import dataclass

import requests
from requests_hardened import Config, HTTPSession
from urllib3.exceptions import HTTPError

from storeplatform.api import is_digits

from .connections import when_about_to_write
from .settings import MAX_REDIRECTS
from .targets import DeadlineAdapter, PinnedAddressAdapter

USER_AGENT = "storeplatform-events-webhooks/1"
# The largest answer body read to keep its connection for the next delivery.
MAX_KEPT_BODY = 64 * 1024


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
    """A session for deliveries: at most 5 redirects, TLS verified, proxy variables of the
    environment ignored (a proxy would bypass the address check) and, unless private targets
    are allowed, connections only to checked public addresses, on every hop."""
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
    for prefix, adapter in adapters.items():
        session.mount(prefix, adapter)
    return session


class DeliveryClient:
    """The HTTP side of deliveries for one thread at a time: a hardened session whose
    connections stay open from one delivery to the next (a worker thread keeps one client),
    and the POST it has prepared for each URL, so that a delivery only adds its headers and
    body. Each delivery gets its own deadline and its own cookies (none carried over)."""

    MAX_PREPARED = 512

    def __init__(self, policy):
        self.policy = policy
        self.session = make_http_session(policy)
        self._prepared = {}

    def close(self):
        self.session.close()

    def send(self, attempt, when_connected=None):
        """Send ``attempt`` once, all hops within ``policy.timeout``; never raises for network
        trouble (that is an Outcome with an error).

        ``when_connected()`` runs when the connection to the first hop is open and the
        request is about to be written; when it raises ``AttemptRefused`` nothing is written
        and the exception comes through."""
        timeout = self.policy.timeout
        started = time.monotonic()
        deadline = started + timeout
        for adapter in self.session.adapters.values():
            adapter.deadline = deadline
        code, error = None, None
        try:
            with when_about_to_write(when_connected):
                response = self._post(attempt, (timeout, timeout))
            with response:
                code = response.status_code
                if code >= 400:
                    error = f"HTTP {code}"
                keep_connection(response, deadline)
        except requests.exceptions.TooManyRedirects:
            error = f"more than {MAX_REDIRECTS} redirects"
        except requests.exceptions.Timeout as exc:
            error = f"time-out after {timeout:g} s: {exc.__class__.__name__}"
        except requests.exceptions.RequestException as exc:
            error = f"{exc.__class__.__name__}: {exc}"[:1000]
        except (ValueError, OSError) as exc:  # e.g. a malformed redirect location
            error = f"{exc.__class__.__name__}: {exc}"[:1000]
        return Outcome(code, int((time.monotonic() - started) * 1000), error)

    def _post(self, attempt, timeout):
        """What ``session.post(url, data=body, headers=headers, stream=True)`` sends and
        follows, without preparing the session's part of the request again for each delivery:
        the same request (headers in the same order), sent by the URL's adapter, its redirects
        followed by the session as requests follows them. stream: the answer body is read only
        when small (see ``keep_connection``)."""
        session = self.session
        session.cookies.clear()  # a receiver's cookies live for one delivery and its redirects
        request = self._request(attempt)
        options = {"stream": True, "timeout": timeout, "verify": True, "cert": None, "proxies": {}}
        response = session.get_adapter(request.url).send(request, **options)
        if session.get_redirect_target(response):
            history = [response, *session.resolve_redirects(response, request, **options)]
            response = history.pop()
            response.history = history
        return response

    def _request(self, attempt):
        prepared = self._prepared.get(attempt.url)
        if prepared is None:
            if len(self._prepared) >= self.MAX_PREPARED:
                self._prepared.clear()
            prepared = self._prepared[attempt.url] = self.session.prepare_request(
                requests.Request("POST", attempt.url))
        request = prepared.copy()
        del request.headers["Content-Length"]  # written after the delivery's own headers, as prepare does
        request.headers.update(attempt.headers)
        request.prepare_body(attempt.body, None)
        return request


def keep_connection(response, deadline):
    """Read a small answer body (Content-Length up to 64 KiB) before the deadline, so that the
    connection goes back to the pool for the next delivery; a larger, chunked or slower body is
    not read and its connection is closed with the response. Reading it changes no outcome:
    the status code decided that already."""
    length = response.headers.get("Content-Length", "")
    if not is_digits(length) or int(length) > MAX_KEPT_BODY:
        return
    raw = response.raw
    try:
        while not raw.isclosed():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            connection = raw.connection
            if connection is not None and connection.sock is not None:
                connection.sock.settimeout(remaining)  # each wait only for the time left
            if not raw.read1(MAX_KEPT_BODY, decode_content=False) and not raw.isclosed():
                return
    except (HTTPError, OSError, ValueError):  # a broken body costs the connection, nothing else
        return


def post(policy, attempt):
    """Send once on a client of its own (the test route: one delivery, then closed)."""
    client = DeliveryClient(policy)
    try:
        return client.send(attempt)
    finally:
        client.close()
