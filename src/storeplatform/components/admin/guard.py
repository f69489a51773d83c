"""The wrapper of every admin view: login, the capability, the form token, the layout's values."""
from urllib.parse import quote, unquote

from pyramid.httpexceptions import HTTPForbidden, HTTPSeeOther

from storeplatform.core.auth import user_can
from .forms import form_values
from .pages import ADMIN_PREFIX, visible_pages
from .tokens import FIELD, sent_token, session_token, session_token_is_valid

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
NOTICE_COOKIE = "storeplatform_admin_notice"


class AdminForbidden(HTTPForbidden):
    """Logged in without the capability, or a form without a valid token: the plain 403 page."""


def admin_url(request, path="", **query):
    """The absolute URL of an admin path (``"/webhooks/3"``), under the site's base URL."""
    url = request.application_url + ADMIN_PREFIX + (path if path.startswith("/") else "/" + path)
    if query:
        url += "?" + "&".join(f"{quote(str(k))}={quote(str(v))}" for k, v in query.items())
    return url


def login_url(request):
    """The login page, to come back to this request's page after it: its path within the site
    (without the base path, which ``safe_next`` adds again)."""
    here = quote(request.path_info, safe="/:@!$&'()*+,;=-._~")
    if request.query_string:
        here += "?" + request.query_string
    return admin_url(request, "/login", next=here)


def admin_redirect(request, path, notice=None):
    """303 to an admin path (after a form: the browser GETs it), with a one-time notice for the
    next page."""
    response = HTTPSeeOther(location=admin_url(request, path))
    if notice:
        response.set_cookie(NOTICE_COOKIE, quote(notice[:300]), httponly=True, samesite="Strict",
                            secure=request.is_https, path="/")
    return response


def check_request(request, capability):
    """Raise the redirect to the login page or the 403 page unless the request may go on."""
    if request.identity is None:
        raise HTTPSeeOther(location=login_url(request))
    if request.method not in SAFE_METHODS and not session_token_is_valid(request, sent_token(request, form_values(request))):
        raise AdminForbidden("The form has expired or did not come from this site: load the page and try again.")
    if capability is not None and not user_can(request, capability):
        raise AdminForbidden("You are logged in, but your account may not use this page.")


def layout_values(request, **values):
    """What the layout template needs beside the view's own values."""
    notice = request.cookies.get(NOTICE_COOKIE)
    if notice and request.method == "GET":
        request.response.delete_cookie(NOTICE_COOKIE, path="/")
    user = request.identity.user if request.identity else None
    return {
        "admin_url": lambda path="", **query: admin_url(request, path, **query),
        "static_url": lambda spec: request.static_url(spec),
        "nav": visible_pages(request) if user else [],
        "user": user,
        "csrf_field": FIELD,
        "csrf_token": session_token(request) if user else "",
        "notice": unquote(notice) if notice else None,
        "current_path": request.path_info,
        **values,
    }


def wrap(view, capability):
    def admin_view_wrapper(context, request):
        check_request(request, capability)
        result = view(request)
        if isinstance(result, dict):
            return layout_values(request, **result)
        return result

    admin_view_wrapper.__name__ = getattr(view, "__name__", "admin_view")
    admin_view_wrapper.__doc__ = view.__doc__
    return admin_view_wrapper
