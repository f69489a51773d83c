"""Error pages of the admin: HTML for a browser, never the REST API's JSON and never a traceback.
They answer only under ``{base_url}/admin``; everywhere else the REST error views do."""
import logging

from pyramid.exceptions import PredicateMismatch, URLDecodeError
from pyramid.httpexceptions import HTTPException, HTTPForbidden, HTTPNotFound
from pyramid.renderers import render_to_response
from pyramid.security import NO_PERMISSION_REQUIRED
from sqlalchemy.exc import DataError, IntegrityError
from sqlalchemy.exc import TimeoutError as NoConnection

from storeplatform.core.errors import RETRY_AFTER, InvalidParams, RestError
from storeplatform.core.logs import log_server_error
from .guard import layout_values

log = logging.getLogger(__name__)

TITLES = {400: "Bad request", 403: "Forbidden", 404: "Not found", 405: "Method not allowed", 409: "Conflict",
          413: "Too large", 500: "Something went wrong", 503: "Busy"}
MESSAGES = {404: "There is no such page here.", 405: "This page does not take that kind of request.",
            500: "The page could not be shown; the error was logged."}


def error_page(request, status, message, headers=None):
    try:
        values = layout_values(request, title=TITLES.get(status, "Error"), status=status, message=message)
    except Exception:  # the layout's own values failed (the database is gone): a page without them
        values = {"title": TITLES.get(status, "Error"), "status": status, "message": message, "nav": [],
                  "user": None, "notice": None, "csrf_token": "", "csrf_field": "csrf_token",
                  "admin_url": lambda path="", **q: request.application_url + "/admin" + path,
                  "static_url": request.static_url, "current_path": ""}
    values.update(way_out(request, values))
    response = render_to_response("admin/error.jinja2", values, request=request)
    response.status = status
    for name, value in (headers or {}).items():
        response.headers[name] = value
    # pyramid_tm aborts the transaction of a request whose exception made the answer: nothing
    # the view wrote before the error is kept.
    return response


def way_out(request, values):
    """Where the page's links lead: the dashboard for the staff (and for someone not logged in,
    whom it sends to the login page); a user with no admin page at all (a customer) would get
    the same 403 there, so they get the site's home page and a way to log out (to log in as
    someone else) instead."""
    stranded = values.get("user") is not None and not values.get("nav")
    return {"dashboard_link": not stranded, "home_url": request.application_url + "/", "logout_form": stranded}


def http_error(exc, request):
    if exc.code < 400:
        return exc
    route = request.matched_route
    if isinstance(exc, PredicateMismatch) and route is not None:
        # The route exists without a view for this method: 405, not 404.
        allowed = request.registry.get("admin.methods", {}).get(route.name)
        if allowed:
            methods = sorted(allowed | ({"HEAD"} if "GET" in allowed else set()))
            return error_page(request, 405, MESSAGES[405], {"Allow": ", ".join(methods)})
    headers = {"Allow": ", ".join(sorted(exc.allow))} if exc.code == 405 and getattr(exc, "allow", None) else None
    message = MESSAGES.get(exc.code) if exc.code in (404, 405) else (exc.detail or exc.explanation or exc.title)
    return error_page(request, exc.code, str(message), headers)


def rest_error(exc, request):
    if exc.status >= 500:
        log_server_error(log, request, exc.status, exc.code, exc.__cause__ or exc.__context__)
    return error_page(request, exc.status, exc.message)


def invalid_params(exc, request):
    return error_page(request, 400, "; ".join(f"{k}: {v}" for k, v in exc.params.items()))


def bad_url(exc, request):
    return error_page(request, 400, "The address is not valid UTF-8.")


def database_refused(exc, request):
    log.warning("database refused a value on admin %s %r: %s", request.method, request.environ.get("PATH_INFO"), exc)
    return error_page(request, 400, "A value is out of range or malformed.")


def conflict(exc, request):
    log.warning("database integrity error on admin %s %r: %s", request.method, request.environ.get("PATH_INFO"), exc)
    return error_page(request, 409, "The change conflicts with the stored data; reload the page and try again.")


def no_connection(exc, request):
    log.warning("no database connection for admin %s %r within the pool's time-out: %s", request.method,
                request.environ.get("PATH_INFO"), exc)
    return error_page(request, 503, "The site is too busy to show this page now; try again in a moment.",
                      {"Retry-After": str(RETRY_AFTER)})


def internal(exc, request):
    log_server_error(log, request, 500, "unhandled error on an admin page", exc, exc_info=exc)
    return error_page(request, 500, MESSAGES[500])


def add_admin_error_views(config):
    """Beside the REST error views, for the same contexts, with one predicate more (the admin's
    path): Pyramid picks the view with more predicates first."""
    def add(view, context):
        config.add_view(view, context=context, permission=NO_PERMISSION_REQUIRED, is_admin=True)

    config.add_view_predicate("is_admin", IsAdminPredicate)
    for context in (HTTPException, HTTPNotFound, HTTPForbidden):
        add(http_error, context)
    add(rest_error, RestError)
    add(invalid_params, InvalidParams)
    add(bad_url, URLDecodeError)
    add(database_refused, DataError)
    add(conflict, IntegrityError)
    add(no_connection, NoConnection)
    add(internal, Exception)


class IsAdminPredicate:
    def __init__(self, value, config):
        self.value = bool(value)

    def text(self):
        return f"is_admin = {self.value}"

    phash = text

    def __call__(self, context, request):
        return bool(getattr(request, "is_admin", False)) == self.value
