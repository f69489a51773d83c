"""The error views: every error, whatever raised it, leaves as one body
``{"code", "message", "data": {"status", ...}}``."""
import logging

from pyramid.exceptions import URLDecodeError
from pyramid.httpexceptions import HTTPException, HTTPForbidden, HTTPNotFound
from pyramid.response import Response
from pyramid.security import NO_PERMISSION_REQUIRED
from sqlalchemy.exc import DataError, IntegrityError
from sqlalchemy.exc import TimeoutError as NoConnection
from webob.request import DisconnectionError

from .. import errors
from ..errors import InvalidParams, RestError, invalid_params_error
from ..jsonutil import dumps
from ..logs import log_server_error

log = logging.getLogger(__name__)

# Pyramid's own HTTP errors, when they reach the error view.
HTTP_ERRORS = {e.status: e for e in (errors.BAD_REQUEST, errors.NOT_LOGGED_IN, errors.FORBIDDEN, errors.NO_ROUTE,
                                     errors.METHOD_NOT_ALLOWED, errors.NOT_ACCEPTABLE, errors.REQUEST_TOO_LARGE,
                                     errors.UNSUPPORTED_MEDIA_TYPE)}


def error_response(status, code, message, data=None, headers=None):
    body = {"code": code, "message": message, "data": {"status": status, **(data or {})}}
    response = Response(body=dumps(body), status=status, content_type="application/json", charset="utf-8")
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def _answer(error):
    return error_response(error.status, error.code, error.message, error.data, error.headers)


def rest_error_view(exc, request, cause=None):
    """A ``RestError``'s answer. A 5xx one is logged with its cause: ``cause``, or the exception
    being handled when it was raised (``raise CODE() from exc`` or inside ``except``)."""
    if exc.status >= 500:
        log_server_error(log, request, exc.status, exc.code, cause or exc.__cause__ or exc.__context__)
    return _answer(exc)


def invalid_params_view(exc, request):
    return _answer(invalid_params_error(exc.params, exc.code))


def http_exception_view(exc, request):
    status = exc.code
    known = HTTP_ERRORS.get(status)
    code = known.code if known else f"rest_http_{status}"
    message = known.message if status in (404, 405) else (exc.explanation or exc.title)
    headers = {}
    if status == 405 and exc.allow:
        headers["Allow"] = ", ".join(sorted(exc.allow))
    if status < 400:  # redirects and the like pass unchanged
        return exc
    return error_response(status, code, message, None, headers)


def url_decode_error_view(exc, request):
    return _answer(errors.INVALID_URL())


def short_body_view(exc, request):
    # The body ended before its Content-Length (webob's DisconnectionError, ours too): whoever
    # still listens gets the client error it is, not a 500.
    return _answer(errors.BAD_REQUEST("The request body is shorter than its Content-Length."))


def data_error_view(exc, request):
    # A value that passed validation but not the database (a length or range no schema
    # caught): the client's input, so a 400, and a warning for the developers.
    log.warning("database refused a value on %s %r: %s", request.method, request.environ.get("PATH_INFO"),
                exc.orig if hasattr(exc, "orig") else exc)
    return _answer(errors.INVALID_PARAM("A value is out of range or malformed for the database."))


def integrity_error_view(exc, request):
    # A reference or uniqueness rule that validation did not check first: the request conflicts
    # with the data, so a 409 (never a 500), and a warning so that the missing check gets written.
    log.warning("database integrity error on %s %r: %s", request.method, request.environ.get("PATH_INFO"),
                exc.orig if hasattr(exc, "orig") else exc)
    return _answer(errors.CONFLICT())


def no_connection_view(exc, request):
    # The pool gave no connection within sqlalchemy.pool_timeout (db/pool.py): the site is
    # busy, not broken; the client tries again.
    log.warning("no database connection for %s %r within the pool's time-out: %s", request.method,
                request.environ.get("PATH_INFO"), exc)
    return _answer(errors.UNAVAILABLE(headers={"Retry-After": str(errors.RETRY_AFTER)}))


def internal_error_view(exc, request):
    # The traceback goes to the log, never to the client. The raw PATH_INFO: the decoded path
    # may be what failed.
    error = errors.INTERNAL_ERROR()
    log_server_error(log, request, error.status, error.code, exc, exc_info=exc)
    return _answer(error)


def add_error_views(config):
    """Register the error views. Call from the root configurator so that they override
    the views Cornice registers for the same contexts."""
    config.add_view(rest_error_view, context=RestError, permission=NO_PERMISSION_REQUIRED)
    config.add_view(invalid_params_view, context=InvalidParams, permission=NO_PERMISSION_REQUIRED)
    for context in (HTTPException, HTTPNotFound, HTTPForbidden):
        config.add_view(http_exception_view, context=context, permission=NO_PERMISSION_REQUIRED)
    config.add_view(url_decode_error_view, context=URLDecodeError, permission=NO_PERMISSION_REQUIRED)
    config.add_view(short_body_view, context=DisconnectionError, permission=NO_PERMISSION_REQUIRED)
    config.add_view(data_error_view, context=DataError, permission=NO_PERMISSION_REQUIRED)
    config.add_view(integrity_error_view, context=IntegrityError, permission=NO_PERMISSION_REQUIRED)
    config.add_view(no_connection_view, context=NoConnection, permission=NO_PERMISSION_REQUIRED)
    config.add_view(internal_error_view, context=Exception, permission=NO_PERMISSION_REQUIRED)


def add_error_translation(config, context, translate):
    """Config directive: answer a domain exception ``context`` (raised by code that knows
    nothing of HTTP) with the ``RestError`` that ``translate(exc)`` makes; the one place
    where a plugin maps its domain errors to its catalogue."""

    def view(exc, request):
        return rest_error_view(translate(exc), request, cause=exc)

    config.add_view(view, context=context, permission=NO_PERMISSION_REQUIRED)
