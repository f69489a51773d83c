"""What can go wrong, as values: the REST error, the error catalogue and the one domain error
every layer may raise for bad input.

This module imports nothing of the host, so that every layer (auth, options, orders, the REST
server, plugins) can raise these without importing the layer above it.
"""
from dataclasses import dataclass


class RestError(Exception):
    """Raise anywhere in a request to answer with the error body
    ``{"code", "message", "data": {"status", **data}}``.

    Usually made from a catalogue entry: ``raise EVENT_NOT_FOUND()``.
    """

    def __init__(self, status, code, message, headers=None, **data):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}
        self.data = data


@dataclass(frozen=True)
class ErrorCode:
    """One entry of a namespace's error catalogue: status, code and the usual message.

    Calling it makes the ``RestError`` to raise; ``message`` replaces the usual text for this
    occurrence, keyword arguments go under ``data`` (``headers=`` sets response headers).
    """

    status: int
    code: str
    message: str

    def __call__(self, message=None, *, headers=None, **data):
        return RestError(self.status, self.code, message or self.message, headers=headers, **data)


class InvalidParams(ValueError):
    """Bad input, named field by field: ``params`` maps each bad parameter (dotted for nested
    ones, e.g. ``line_items.1.quantity``) to a message.

    Domain code raises it without knowing about HTTP; the REST server answers it as
    ``rest_invalid_param`` (400) with ``data.params``, the CLI prints it as one line.
    """

    # The error code REST answers with: the host's ``rest_invalid_param``, or a subclass's own
    # where a client knows a more precise one (a taken e-mail address: ``existing_user_email``).
    code = None

    def __init__(self, params):
        self.params = dict(params)
        super().__init__("; ".join(f"{k}: {v}" for k, v in sorted(self.params.items())))


# The host's catalogue: errors every namespace may answer.
BAD_REQUEST = ErrorCode(400, "rest_bad_request", "The request is malformed.")
INVALID_PARAM = ErrorCode(400, "rest_invalid_param", "Invalid parameter(s).")
INVALID_JSON = ErrorCode(400, "rest_invalid_json", "The request body is not valid JSON.")
INVALID_URL = ErrorCode(400, "rest_invalid_url", "The URL is not valid UTF-8.")
NOT_LOGGED_IN = ErrorCode(401, "rest_not_logged_in", "You must be authenticated to do that.")
AUTHENTICATION_FAILED = ErrorCode(401, "rest_authentication_failed", "The provided credentials are incorrect.")
FORBIDDEN = ErrorCode(403, "rest_forbidden", "Sorry, you are not allowed to do that.")
NO_ROUTE = ErrorCode(404, "rest_no_route", "No route was found matching the URL and request method.")
METHOD_NOT_ALLOWED = ErrorCode(405, "rest_method_not_allowed", "Method not allowed.")
NOT_ACCEPTABLE = ErrorCode(406, "rest_not_acceptable", "The requested representation is not available.")
CONFLICT = ErrorCode(409, "rest_conflict", "The request conflicts with the current state of the data.")
PRECONDITION_FAILED = ErrorCode(412, "rest_precondition_failed",
                                "The resource is no longer as the request's precondition says: read it again.")
REQUEST_TOO_LARGE = ErrorCode(413, "rest_request_too_large", "The request body is too large.")
UNSUPPORTED_MEDIA_TYPE = ErrorCode(415, "rest_unsupported_media_type", "The request body's type is not supported.")
INTERNAL_ERROR = ErrorCode(500, "rest_internal_error", "The server could not handle the request.")
UNAVAILABLE = ErrorCode(503, "rest_unavailable", "The site is too busy to answer now; try again in a moment.")
# Seconds a client told UNAVAILABLE waits before it tries again.
RETRY_AFTER = 1

# Authentication, on every namespace.
INVALID_LOGIN = ErrorCode(401, "rest_invalid_login", "Unknown login or wrong password.")
JWT_INVALID = ErrorCode(401, "rest_jwt_invalid", "The bearer token is invalid or expired.")
CONSUMER_KEY_HTTPS_REQUIRED = ErrorCode(401, "rest_consumer_key_https_required",
                                        "Consumer keys are accepted over HTTPS only.")
CONSUMER_KEY_PERMISSIONS = ErrorCode(403, "rest_consumer_key_permissions",
                                     "The consumer key does not have the permission for this request.")
COOKIE_INVALID_NONCE = ErrorCode(403, "rest_cookie_invalid_nonce", "Cookie check failed: the nonce is invalid.")
TOO_MANY_ATTEMPTS = ErrorCode(429, "rest_too_many_attempts",
                              "Too many failed attempts to log in from your address; try again later.")


def invalid_params_error(params, code=None):
    """The ``RestError`` of an ``InvalidParams``: one message naming every bad parameter (400,
    ``rest_invalid_param`` or the given ``code``)."""
    message = "Invalid parameter(s): " + ", ".join(sorted(params)) + "."
    if code is not None:
        return RestError(INVALID_PARAM.status, code, message, params=dict(params))
    return INVALID_PARAM(message, params=dict(params))
