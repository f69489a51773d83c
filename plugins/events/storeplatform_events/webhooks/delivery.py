"""One HTTP attempt of a webhook delivery: headers, signature, the hardened session (one per
worker thread, its connections kept between deliveries), and what came of it (response code,
duration, error, the start of the answer body)."""
import codecs
import hashlib
import hmac
import time
import zlib
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
# The part of an answer body kept in the delivery log (bytes as received, then as text).
MAX_SHOWN_BODY = 4 * 1024
# How long a body of unknown or large length is waited for, for its shown part only: a
# receiver that answers its status and then trickles its body holds a worker thread no longer.
SHOWN_BODY_WAIT = 1.0


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
    # The start of the answer body as text (None: no answer), and whether there was more.
    response_body: str | None = None
    response_truncated: bool = False

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
        code, error, shown, truncated = None, None, None, False
        try:
            with when_about_to_write(when_connected):
                response = self._post(attempt, (timeout, timeout))
            with response:
                code = response.status_code
                if code >= 400:
                    error = f"HTTP {code}"
                shown, truncated = read_answer(response, deadline)
        except requests.exceptions.TooManyRedirects:
            error = f"more than {MAX_REDIRECTS} redirects"
        except requests.exceptions.Timeout as exc:
            error = f"time-out after {timeout:g} s: {exc.__class__.__name__}"
        except requests.exceptions.RequestException as exc:
            error = f"{exc.__class__.__name__}: {exc}"[:1000]
        except (ValueError, OSError) as exc:  # e.g. a malformed redirect location
            error = f"{exc.__class__.__name__}: {exc}"[:1000]
        return Outcome(code, int((time.monotonic() - started) * 1000), error, shown, truncated)

    def _post(self, attempt, timeout):
        """What ``session.post(url, data=body, headers=headers, stream=True)`` sends and
        follows, without preparing the session's part of the request again for each delivery:
        the same request (headers in the same order), sent by the URL's adapter, its redirects
        followed by the session as requests follows them. stream: the answer body is read only
        when small (see ``read_answer``)."""
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


def read_answer(response, deadline):
    """(text, truncated): the first ``MAX_SHOWN_BODY`` bytes of the answer body as text, and
    whether there was more (or the rest did not come in time). A small body (Content-Length up
    to 64 KiB) is read to its end before the deadline, so that the connection goes back to the
    pool for the next delivery; of a larger, chunked or slower one only the shown part is
    waited for (``SHOWN_BODY_WAIT`` at most) and its connection is closed with the response.
    Reading changes no outcome: the status code decided that already."""
    length = response.headers.get("Content-Length", "")
    whole = is_digits(length) and int(length) <= MAX_KEPT_BODY
    if not whole:
        deadline = min(deadline, time.monotonic() + SHOWN_BODY_WAIT)
    raw = response.raw
    kept = bytearray()
    ended = False  # the body was read to its end
    try:
        while True:
            if raw.isclosed():
                ended = True
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            sock = answer_socket(raw)
            if sock is not None:
                sock.settimeout(remaining)  # each wait only for the time left
            wanted = MAX_KEPT_BODY if whole else MAX_SHOWN_BODY + 1 - len(kept)
            chunk = raw.read1(wanted, decode_content=False)
            if not chunk:
                ended = raw.isclosed()
                break
            if len(kept) <= MAX_SHOWN_BODY:
                kept += chunk[:MAX_SHOWN_BODY + 1 - len(kept)]
            if not whole and len(kept) > MAX_SHOWN_BODY:
                break
    except (HTTPError, OSError, ValueError):  # a broken or late body costs the connection, nothing else
        pass
    truncated = len(kept) > MAX_SHOWN_BODY or not ended
    text, more = shown_text(bytes(kept[:MAX_SHOWN_BODY]), response.headers.get("Content-Encoding", ""), truncated)
    return text, truncated or more


def answer_socket(raw):
    """The socket an answer's body is read from: its connection's while the connection is kept;
    an answer with ``Connection: close`` has it only through its own reader (http.client drops
    the connection's reference), reached through private attributes, None if they change."""
    connection = raw.connection
    if connection is not None and connection.sock is not None:
        return connection.sock
    reader = getattr(getattr(raw, "_fp", None), "fp", None)
    return getattr(getattr(reader, "raw", None), "_sock", None)


def shown_text(data, encoding, cut=False):
    """(text, more): the body's start as text for the log, gzip and deflate undone (as far as
    the kept bytes go; ``more`` when they unpack to more than is shown), other encodings named
    instead; bytes that are not UTF-8 (and NUL, which no text column stores) replaced; ``cut``
    (or ``more``): a character cut in two at the end is left out rather than replaced."""
    encoding = encoding.strip().lower()
    more = False
    if encoding in ("gzip", "x-gzip", "deflate") and data:
        # wbits 47: a gzip or zlib header, found by itself; raw deflate (-15) as the fallback.
        for wbits in (47, -15):
            try:
                data = zlib.decompressobj(wbits).decompress(data, MAX_SHOWN_BODY + 1)
                break
            except zlib.error:
                continue
        else:
            return f"({encoding}-encoded body that could not be read)", False
        more, data = len(data) > MAX_SHOWN_BODY, data[:MAX_SHOWN_BODY]
    elif encoding not in ("", "identity") and data:
        return f"({encoding[:40]}-encoded body, not shown)", False
    text = codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=not (cut or more))
    return text.replace("\x00", "\ufffd"), more


def post(policy, attempt):
    """Send once on a client of its own (the test route: one delivery, then closed)."""
    client = DeliveryClient(policy)
    try:
        return client.send(attempt)
    finally:
        client.close()
