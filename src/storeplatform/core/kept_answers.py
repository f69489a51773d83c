"""Answers of services declared ``cache="public"``, kept by the host's cache
(``storeplatform.core.cache``: what keys them, what expires them), and tagged by what keys them.

An answer of a GET (or HEAD) carries a strong ``ETag``: a digest of its key (route, view,
query string, validated input, site URL, caller), of the names and values of the generations and
state parts it is filed under, and of the release that computed it. The same state gives the
same tag in every process of the site, and anything the answer read that changes moves a
generation on, and so the tag. A request whose If-None-Match names the current tag is answered
304 with the generations the request reads anyway and nothing else: no view runs
(``storeplatform.core.conditional`` compares; the writes' preconditions are
``storeplatform.core.rest.preconditions``'s).

A request that comes as one this process answered at the same state (the same path, query
string, body, site address and caller) is not validated again either: what it came with and the
state are what its validation depends on, so its key is remembered with the state, and its kept
answer (or 304) found after its permission's check (``cached_answers``' ``unless_known``).
"""
import sys
from base64 import urlsafe_b64encode
from datetime import date, datetime, time
from decimal import Decimal
from hashlib import blake2b
from pathlib import Path

from pyramid.response import Response

from .cache import cached_call, kept_state, process_cache, start_reading, stop_reading
from .conditional import if_none_match_holds
from .rest.schema import request_body


class KeptAnswer:
    """A view's answer as it leaves the view: status, headers, body; and its entity tag (the
    opaque part of its ``ETag``), None when it has none of ours."""
    __slots__ = ("status", "headerlist", "body", "etag")

    def __init__(self, status, headerlist, body, etag=None):
        self.status, self.headerlist, self.body, self.etag = status, headerlist, body, etag

    def response(self):
        return Response(body=self.body, status=self.status, headerlist=list(self.headerlist))


def caller_of(request):
    """Who is asking, as far as an answer may depend on it: anonymous callers share answers."""
    identity = request.identity
    if identity is None:
        return None
    user = identity.user
    return user.id, user.role, identity.method, getattr(identity, "key_permissions", None)


# Values ``frozen`` gives back as they are: a request's key is made without a call for each.
_PLAIN = frozenset((str, int, bool, type(None), Decimal, float, date, datetime, time))


def frozen(value):
    """A hashable form of validated input (dicts, lists, sets of plain values)."""
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            items.append((k, v if type(v) in _PLAIN else frozen(v)))
        items.sort()
        return tuple(items)
    if isinstance(value, (list, tuple)):
        return tuple([v if type(v) in _PLAIN else frozen(v) for v in value])
    if isinstance(value, (set, frozenset)):
        # In an order every process agrees on (a set of text iterates in an order of the
        # process's own hash seed), since the key also makes the answer's tag.
        return tuple(sorted((frozen(v) for v in value), key=repr))
    return value


def reading_validator(request, **kwargs):
    """A cached view's first validator: what the request reads from here on is recorded (the
    rows its validators load are rows its answer may be made of)."""
    request.environ[_READING_ENVIRON] = start_reading()


_READING_ENVIRON = "storeplatform.cache.reading"


def stop_request_reading(request):
    """End the recording ``reading_validator`` began for a view that will not run now."""
    request.environ.pop(_READING_ENVIRON, None)
    stop_reading()


# environ: the kept answer found for a request as it came, before its input was validated (the
# view answers with it); and what it came with, for the key its validation leads to.
_KNOWN = "storeplatform.cache.known"
_SENT = "storeplatform.cache.sent"
# Requests remembered per route and process, with their keys: past this, the route forgets them
# all and remembers afresh. A body larger than REMEMBERED_BODY is never remembered.
REMEMBERED_REQUESTS = 2048
REMEMBERED_BODY = 1024


def _request_as_sent(request, with_body):
    """What a request's key is a function of, given the site's state, as it came: its path,
    query string and body, the parts of the environ its site URL is made of, and its caller;
    None when its body is too large to remember."""
    environ = request.environ
    body = None
    if with_body:
        length = environ.get("CONTENT_LENGTH")
        if not length or not length.isdigit() or int(length) > REMEMBERED_BODY:
            return None
        body = (environ.get("CONTENT_TYPE"), request_body(request))
    return (environ.get("PATH_INFO"), environ.get("QUERY_STRING"), body, environ.get("HTTP_HOST"),
            environ.get("SERVER_NAME"), environ.get("SERVER_PORT"), environ.get("wsgi.url_scheme"),
            environ.get("SCRIPT_NAME"), caller_of(request))


def cached_answers(view, route_name, method, view_name=""):
    """``view`` (an answering view: it returns a Response), declared for ``method``, with its
    answers kept; a GET's also serves HEAD, with the same answers. A GET's (or HEAD's) answers
    carry an ETag, and a request whose If-None-Match names the current one is answered 304
    without running the view. ``view_name`` (the view's module and name) is part of the tag:
    the two variants of a namespace answer one route with two views."""
    kind = f"{method} {route_name}"
    tagged = method in ("GET", "HEAD")
    material = []
    # A request as it came -> (its key, the state it was answered at): the input its validation
    # gave is a function of what it came with and of the state, so the same request at the same
    # state has the same key, and its kept answer is the one validation would lead to.
    keys = {}

    def remember(request, key):
        sent = request.environ.pop(_SENT, None)
        if sent is None:
            return
        known = kept_state(request.db, kind)
        if known is not None:
            if len(keys) >= REMEMBERED_REQUESTS:
                keys.clear()
            keys[sent] = (key, known[1])

    def tag_material():
        if not material:
            material.append((route_name, view_name, _release(view_name)))
        return material[0]

    def tag(session, key, kept, learned, state):
        if any(name.lower() == "etag" for name, _ in kept.headerlist):
            return kept  # a view that tags its answers itself: its tags are not ours to compare
        opaque = answer_tag(session.info["registry"], tag_material(), key, learned, state)
        return KeptAnswer(kept.status, kept.headerlist + (("ETag", f'"{opaque}"'),), kept.body, opaque)

    def kept_answer(request, condition=None):
        """The kept answer (a ``KeptAnswer``), the Response of an answer that is not kept, or a
        304 when ``condition`` (an If-None-Match field) does not hold for the answer the route's
        generations give, without computing it (``answer`` compares a computed one)."""
        reading = request.environ.pop(_READING_ENVIRON, None) or start_reading()
        try:
            key = (request.query_string, frozen(request.validated), request.application_url, caller_of(request))
            if condition is not None:
                # The cheapest answer: the generations the lookup reads anyway, and no view.
                current, exists = known_tag(request.db, kind, key, tag_material())
                if current is not None and not if_none_match_holds(condition, current, exists):
                    return not_modified(current)
            kept = cached_call(request.db, kind, key, lambda: _keepable(view(request)), reading=reading,
                               size_of=_body_size, keep=_is_kept_answer, finish=tag if tagged else None)
        finally:
            stop_reading()
        if type(kept) is not KeptAnswer:
            return kept.response
        remember(request, key)
        return kept

    def answer(request):
        environ = request.environ
        condition = environ.get("HTTP_IF_NONE_MATCH") if tagged else None
        kept = environ.pop(_KNOWN, None)
        if kept is not None:  # found before its input was validated (``unless_known``)
            stop_request_reading(request)
        else:
            kept = kept_answer(request, condition)
            if type(kept) is not KeptAnswer:
                return kept
        if condition is not None and kept.etag is not None and not if_none_match_holds(condition, kept.etag, True):
            return not_modified(kept.etag)  # found, or computed here first (another process tagged it)
        return kept.response()

    def unless_known(validate):
        """``validate`` (the route's input validator, after its permission's check), except for
        a request that came as one this process answered at the current state: its kept answer
        is found without validating its input again, and the view answers with it (a 304 when
        its If-None-Match names it)."""
        with_body = method not in ("GET", "HEAD")

        def validate_unless_known(request, **kwargs):
            sent = _request_as_sent(request, with_body)
            found = keys.get(sent) if sent is not None else None
            if found is not None:
                key, at = found
                known = kept_state(request.db, kind)
                if known is not None and known[1] == at:
                    kept = process_cache(request.registry).get((kind, key, at))
                    if kept is not None:
                        request.environ[_KNOWN] = kept[0]
                        return
            request.environ[_SENT] = sent
            validate(request, **kwargs)
        return validate_unless_known

    answer.kept_answer, answer.kind, answer.unless_known = kept_answer, kind, unless_known
    return answer


def not_modified(etag):
    """304: no body, the tag (RFC 9110 15.4.5; the answers carry no other header it names)."""
    return Response(status=304, headerlist=[("ETag", f'"{etag}"')])


def known_tag(session, kind, key, material):
    """(tag, kept) of the answer of route ``kind`` to ``key`` at the current state, without
    computing it: the kept answer's tag (kept: True), else the tag its route's generations give
    (a tag we issued for the same key under the same generations was issued for a 2xx answer,
    and that answer is still the one), or (None, False) when the route is not known yet here,
    is not kept, or this transaction wrote what it reads."""
    known = kept_state(session, kind)
    if known is None:
        return None, False
    learned, state = known
    try:
        found = process_cache(session.info["registry"]).get((kind, key, state))
    except TypeError:  # an input the host cannot key: never kept, never tagged
        return None, False
    if found is not None:
        value = found[0]
        return (value.etag, True) if type(value) is KeptAnswer else (None, False)
    return answer_tag(session.info["registry"], material, key, learned, state), False


_TAG_KEY = "cache.tag_key"


def answer_tag(registry, material, key, learned, state):
    """The opaque part of an answer's strong ETag: a digest of what the answer is kept under (its
    route, view and release, its key: query string, validated input, site URL, caller; the names
    and values of the generations and state parts it depends on), the same in every process of
    the site for the same state. Keyed with the site's secret: a tag tells nothing of what it was
    made from (callers, counts of writes) to whoever holds it."""
    site_key = registry.get(_TAG_KEY)
    if site_key is None:
        secret = (registry.settings.get("storeplatform.secret") or "").encode()
        site_key = registry.setdefault(_TAG_KEY, blake2b(secret, digest_size=32, person=b"sp.etag").digest())
    parts = tuple(f"{part.__module__}.{part.__qualname__}" for part in learned.state_parts)
    text = repr((material, key, learned.generations, parts, state))
    return urlsafe_b64encode(blake2b(text.encode(), digest_size=15, key=site_key).digest()).decode()


_RELEASES = {}


def _release(module):
    """A digest of the source of the host and of the package that holds ``module``, once per
    process: a deploy that changes what an answer says changes its tag even where no data
    changed, so no client revalidates an old body under a new release."""
    top = module.partition(".")[0]
    found = _RELEASES.get(top)
    if found is None:
        digest = blake2b(digest_size=16)
        for name in sorted({"storeplatform", top}):
            for base, path in _sources(sys.modules.get(name)):
                try:
                    digest.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes())
                except OSError:
                    continue
        found = _RELEASES.setdefault(top, digest.hexdigest())
    return found


def _sources(package):
    if package is None:
        return []
    bases = [Path(base) for base in getattr(package, "__path__", None) or ()]
    if bases:
        return sorted((base, path) for base in bases for path in base.rglob("*.py"))
    file = getattr(package, "__file__", None)
    return [(Path(file).parent, Path(file))] if file else []


class _Unkept:
    __slots__ = ("response",)

    def __init__(self, response):
        self.response = response


def _keepable(response):
    """The answer to keep, or (wrapped, so that it is not kept) one that is not a plain success
    or that sets a cookie."""
    if response.status_code >= 300 or "Set-Cookie" in response.headers:
        return _Unkept(response)
    return KeptAnswer(response.status, tuple(response.headerlist), response.body)


def _is_kept_answer(value):
    return type(value) is KeptAnswer


def _body_size(value):
    return len(value.body) if type(value) is KeptAnswer else 0
