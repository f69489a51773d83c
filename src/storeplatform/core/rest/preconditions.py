"""Writes under a precondition (RFC 9110, section 13.2): a write (PUT, PATCH, POST, DELETE) of a
service whose GET is ``cache="public"`` compares If-Match, If-Unmodified-Since and If-None-Match
with that GET's answer as the same caller would get it now (the URL without its query string),
in the write's own transaction, once the caller may write and before the body is read; one that
does not hold is 412 ``rest_precondition_failed`` and nothing is written.

On PostgreSQL another transaction may commit between that comparison and the write's commit:
the generations the GET's answer is filed under are then locked and read again once the view has
written (``verify_unchanged``), so that of two writes made under the same tag one is refused
rather than lost. SQLite's writers take turns from their first statement: nothing commits in
between.

A write of any other service has no tag to compare with: If-Match and If-None-Match refuse it
(the host cannot tell that the resource is as the client thinks), If-Unmodified-Since is ignored
(the resource has no modification date, 13.1.4).
"""
from datetime import datetime

from orjson import loads
from pyramid.interfaces import IResponseFactory
from pyramid.response import Response
from sqlalchemy import text
from webob.multidict import MultiDict

from ..cache import read_generations
from ..conditional import http_date, if_match_holds, if_none_match_holds
from ..db.generations import EVERYTHING, generation_tables, written_tables
from ..errors import PRECONDITION_FAILED, InvalidParams, RestError
from ..kept_answers import KeptAnswer, reading_validator, stop_request_reading

_CHECKED = "storeplatform.preconditions.checked"  # environ: {generation: value} the check saw
_NO_TAG = "This route's answers carry no ETag: its writes cannot be made conditional."


def precondition_validator(service):
    """The validator of a write of ``service`` (a ``RestService``), after its permission's."""
    def validate(request, **kwargs):
        environ = request.environ
        if_match = environ.get("HTTP_IF_MATCH")
        if_none_match = environ.get("HTTP_IF_NONE_MATCH")
        unmodified_since = environ.get("HTTP_IF_UNMODIFIED_SINCE")
        if if_match is None and if_none_match is None and unmodified_since is None:
            return
        read = service.tagged_read
        if read is None:
            if if_match is not None or if_none_match is not None:
                raise PRECONDITION_FAILED(_NO_TAG)
            return
        validators, kept_answer, kind = read
        current = _current_answer(request, validators, kept_answer)
        exists = current is not None
        tag = current.etag if exists else None
        if if_match is not None:
            if not if_match_holds(if_match, tag, exists):
                raise PRECONDITION_FAILED()
        elif unmodified_since is not None:
            since = http_date(unmodified_since)
            modified = _modified(current) if since is not None and exists else None
            if modified is not None and modified.replace(microsecond=0) > since:
                raise PRECONDITION_FAILED()
        if if_none_match is not None and not if_none_match_holds(if_none_match, tag, exists):
            raise PRECONDITION_FAILED()
        environ[_CHECKED] = read_generations(request.db, kind)

    return validate


def verified(view):
    """``view`` (a write) followed, on PostgreSQL, by ``verify_unchanged`` when its request
    passed a precondition."""
    def answer(request):
        response = view(request)
        checked = request.environ.get(_CHECKED)
        if checked:
            verify_unchanged(request.db, checked)
        return response

    return answer


# Makes the rows it names that do not exist yet and locks them all, in name order (the order
# every transaction that bumps more than one generation locks them in: db/generations.py).
_LOCK = text("INSERT INTO generations (name, value) SELECT name, 0 FROM unnest(CAST(:names AS text[])) "
             "AS seed(name) ORDER BY name ON CONFLICT (name) DO UPDATE SET value = generations.value WHERE false")
_VALUES = text("SELECT name, value FROM generations WHERE name = ANY(CAST(:names AS text[]))")


def verify_unchanged(session, checked):
    """412 (the view's writes are rolled back with the request) when a generation the compared
    answer is filed under moved on after the comparison. Its rows are locked first, with those
    the write moves on at its commit, in name order, all at once: the commit then locks nothing
    more (no deadlock with the other writers, which lock in the same order), and no write under
    the same generations can commit before this one does."""
    if session.get_bind().dialect.name != "postgresql":
        return
    session.flush()
    connection = session.connection()
    counted = generation_tables(session)
    written = written_tables(session)
    moved = set(counted.values()) if EVERYTHING in written else {counted[t] for t in written if t in counted}
    # On the connection, not through the session: a statement the session ran would count as a
    # write of every table.
    connection.execute(_LOCK, {"names": sorted(moved | set(checked))})
    now = dict(connection.execute(_VALUES, {"names": sorted(checked)}).all())
    if any(now.get(name, 0) != value for name, value in checked.items()):
        raise PRECONDITION_FAILED()


def _current_answer(request, validators, kept_answer):
    """The kept answer of the service's GET as this caller gets it now, or None when it answers
    no 2xx or keeps none."""
    read = _ReadOf(request)
    reading_validator(read)  # what the GET's validators load is part of its answer, as in a GET
    try:
        for validate in validators:
            validate(read)
        current = kept_answer(read)
    except (RestError, InvalidParams):  # its refusal (404, 403): there is no current answer
        return None
    finally:
        stop_request_reading(read)
    return current if type(current) is KeptAnswer else None


def _modified(kept):
    """When the item of a kept answer last changed: its ``date_modified`` (with an offset), or None
    when the answer is no object with one (a list)."""
    if not kept.body.startswith(b"{"):
        return None
    value = loads(kept.body).get("date_modified")
    if not isinstance(value, str):
        return None
    try:
        modified = datetime.fromisoformat(value)
    except ValueError:
        return None
    return modified if modified.tzinfo is not None else None


class _ReadOf:
    """The write request seen as the GET of its URL without the query string: what the GET's
    validators and view read of it (method, query, validated values, response); everything else
    is the write request's own (the caller, the session in its transaction)."""
    method = "GET"
    query_string = ""

    def __init__(self, request):
        self.__dict__.update(_request=request, GET=MultiDict(), validated={})

    def __getattr__(self, name):
        if name == "response":  # its own: what the GET's view sets must not reach the write's answer
            factory = self._request.registry.queryUtility(IResponseFactory)
            response = self.__dict__["response"] = factory(self) if factory is not None else Response()
            return response
        return getattr(self._request, name)
