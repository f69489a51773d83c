"""One error body for every error: ``{"code", "message", "data": {"status", ...}}``."""
import logging

from pyramid.exceptions import URLDecodeError
from pyramid.httpexceptions import HTTPException, HTTPForbidden, HTTPNotFound
from pyramid.response import Response
from pyramid.security import NO_PERMISSION_REQUIRED
from sqlalchemy.exc import DataError

from ..jsonutil import dumps

log = logging.getLogger(__name__)

# Codes for Pyramid's own HTTP errors when they reach the error view.
HTTP_CODES = {
    400: "rest_bad_request",
    401: "rest_not_logged_in",
    403: "rest_forbidden",
    404: "rest_no_route",
    405: "rest_method_not_allowed",
    406: "rest_not_acceptable",
    413: "rest_request_too_large",
    415: "rest_unsupported_media_type",
}


class RestError(Exception):
    """Raise anywhere in a request to answer with the error body.

    ``data`` items are added under ``data`` beside ``status``.
    """

    def __init__(self, status, code, message, headers=None, **data):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}
        self.data = data


def error_response(status, code, message, data=None, headers=None):
    body = {"code": code, "message": message, "data": {"status": status, **(data or {})}}
    response = Response(body=dumps(body), status=status, content_type="application/json", charset="utf-8")
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def rest_error_view(exc, request):
    return error_response(exc.status, exc.code, exc.message, exc.data, exc.headers)


def http_exception_view(exc, request):
    status = exc.code
    code = HTTP_CODES.get(status, f"rest_http_{status}")
    if status == 404:
        message = "No route was found matching the URL and request method."
    elif status == 405:
        message = "Method not allowed."
    else:
        message = exc.explanation or exc.title
    headers = {}
    if status == 405 and exc.allow:
        headers["Allow"] = ", ".join(sorted(exc.allow))
    if status < 400:  # redirects and the like pass unchanged
        return exc
    return error_response(status, code, message, None, headers)


def url_decode_error_view(exc, request):
    return error_response(400, "rest_invalid_url", "The URL is not valid UTF-8.")


def data_error_view(exc, request):
    # A value that passed validation but not the database (a length or range no schema
    # caught): the client's input, so a 400, and a warning for the developers.
    log.warning("database refused a value on %s %r: %s", request.method, request.environ.get("PATH_INFO"),
                exc.orig if hasattr(exc, "orig") else exc)
    return error_response(400, "rest_invalid_param", "A value is out of range or malformed for the database.")


def internal_error_view(exc, request):
    # The traceback goes to the log, never to the client. The raw PATH_INFO: the decoded path
    # may be what failed.
    log.error("unhandled error on %s %r", request.method, request.environ.get("PATH_INFO"), exc_info=exc)
    return error_response(500, "rest_internal_error", "The server could not handle the request.")


def add_error_views(config):
    """Register the error views. Call from the root configurator so that they override
    the views Cornice registers for the same contexts."""
    config.add_view(rest_error_view, context=RestError, permission=NO_PERMISSION_REQUIRED)
    for context in (HTTPException, HTTPNotFound, HTTPForbidden):
        config.add_view(http_exception_view, context=context, permission=NO_PERMISSION_REQUIRED)
    config.add_view(url_decode_error_view, context=URLDecodeError, permission=NO_PERMISSION_REQUIRED)
    config.add_view(data_error_view, context=DataError, permission=NO_PERMISSION_REQUIRED)
    config.add_view(internal_error_view, context=Exception, permission=NO_PERMISSION_REQUIRED)
