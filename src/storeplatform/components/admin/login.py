"""The host's own admin views: login and logout with the cookie session of ``store/v1/auth/login``,
and the route of the dashboard (its view and panels: ``dashboard.py``)."""
import re
from urllib.parse import unquote

from pyramid.httpexceptions import HTTPSeeOther
from pyramid.security import NO_PERMISSION_REQUIRED

from storeplatform.components.shop.credentials import SESSION_COOKIE, session_for_cookie, start_session, user_for_password
from storeplatform.core.auth.throttle import blocked_for, record_failure
from .dashboard import dashboard
from .forms import form_values, refuse_form
from .guard import AdminForbidden, admin_url, check_request, layout_values
from .pages import ADMIN_PREFIX, allowed_methods
from .tokens import FIELD, login_token, login_token_is_valid

MAX_LOGIN = 200


def includeme(config):
    config.add_route("admin:root", ADMIN_PREFIX)
    config.add_route("admin:dashboard", ADMIN_PREFIX + "/")
    config.add_route("admin:login", ADMIN_PREFIX + "/login")
    config.add_route("admin:logout", ADMIN_PREFIX + "/logout")
    view = dict(permission=NO_PERMISSION_REQUIRED)
    config.add_view(lambda request: HTTPSeeOther(location=admin_url(request, "/")), route_name="admin:root", **view)
    config.add_view(dashboard, route_name="admin:dashboard", request_method="GET",
                    renderer="admin/dashboard.jinja2", **view)
    config.add_view(login_form, route_name="admin:login", request_method="GET", renderer="admin/login.jinja2", **view)
    config.add_view(login, route_name="admin:login", request_method="POST", renderer="admin/login.jinja2", **view)
    config.add_view(logout, route_name="admin:logout", request_method="POST", **view)
    for name, methods in (("admin:dashboard", ("GET",)), ("admin:login", ("GET", "POST")),
                          ("admin:logout", ("POST",))):
        allowed_methods(config.registry, name).update(methods)


def is_safe_next(value):
    """A path under the admin of this site (never another site, never the login page itself):
    printable ASCII as sent (no control character: a CR/LF would end the ``Location`` header; no
    space), and neither as sent nor percent-decoded a control character, a backslash, ``//`` or a
    ``.``/``..`` segment that would leave ``/admin/``."""
    if not isinstance(value, str) or len(value) > 2000 or not _PRINTABLE_ASCII.fullmatch(value):
        return False
    for text in (value, unquote(value, errors="replace")):
        path = re.split(r"[?#]", text, maxsplit=1)[0]
        if (not text.startswith(ADMIN_PREFIX + "/") or text.startswith(ADMIN_PREFIX + "/login")
                or _CONTROL.search(text) or "//" in text or "\\" in text
                or any(segment in (".", "..") for segment in path.split("/"))):
            return False
    return True


_PRINTABLE_ASCII = re.compile(r"[\x21-\x7e]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def safe_next(request, value):
    """Where to go after login: ``value`` when it is a safe admin path, else the dashboard."""
    return request.application_url + value if is_safe_next(value) else admin_url(request, "/")


def login_form(request):
    next_path = request.GET.get("next", "")
    if request.identity is not None:
        return HTTPSeeOther(location=safe_next(request, next_path))
    return _login_values(request, next_path)


def _login_values(request, next_path, login_name="", error=None):
    return layout_values(request, title="Log in", login_token=login_token(request), csrf_field=FIELD,
                         next=next_path if is_safe_next(next_path) else "", login=login_name, error=error,
                         reset=request.GET.get("reset") == "1" and error is None)


def login(request):
    form = form_values(request)
    next_path = form.get("next", "")
    if not login_token_is_valid(request, form.get(FIELD, "")):
        raise AdminForbidden("The login form has expired or did not come from this site: load it and try again.")
    name, password = form.get("login", "").strip(), form.get("password", "")
    user = retry_after = None
    if name and password and len(name) <= MAX_LOGIN and len(password) <= 4096:
        # Throttled as every way in is (auth/throttle.py): refused while blocked, the right
        # password too; a wrong one counted.
        retry_after = blocked_for(request, name)
        if retry_after is None:
            user = user_for_password(request.db, name, password)
            if user is None:
                retry_after = record_failure(request, name)
    if retry_after is not None:
        refuse_form(request, 429)
        request.response.headers["Retry-After"] = str(retry_after)
        minutes = -(-retry_after // 60)
        return _login_values(request, next_path, name[:MAX_LOGIN],
                             f"Too many failed logins from your address: try again in {minutes} minute"
                             f"{'' if minutes == 1 else 's'}.")
    if user is None:
        refuse_form(request)
        return _login_values(request, next_path, name[:MAX_LOGIN], "Unknown login or wrong password.")
    response = HTTPSeeOther(location=safe_next(request, next_path))
    start_session(request, user)
    # start_session sets the cookie on request.response; the redirect is the response sent.
    response.headerlist.extend(h for h in request.response.headerlist if h[0].lower() == "set-cookie")
    return response


def logout(request):
    check_request(request, None)
    row = session_for_cookie(request)
    if row is not None:
        request.db.delete(row)
    response = HTTPSeeOther(location=admin_url(request, "/login"))
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response
