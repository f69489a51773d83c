"""The pages of a lost password, beside the login page: ask for a link with a login or an e-mail
address (the same answer either way; throttled as logins are), and set a new password with the
link's key (a lost password's, or a new account's first). The shop's ``password_resets`` does the
work, as REST's ``store/v1/auth/lost-password`` and ``reset-password`` do."""
from pyramid.httpexceptions import HTTPSeeOther
from pyramid.security import NO_PERMISSION_REQUIRED

from storeplatform.components.shop.account_links import BAD_KEY, user_for_key
from storeplatform.components.shop.password_resets import ASKED, WHO_MAX, ask_for_link, reset_password
from storeplatform.core.errors import InvalidParams, RestError
from .forms import form_values, refuse_form
from .guard import AdminForbidden, admin_url, layout_values
from .pages import ADMIN_PREFIX, allowed_methods
from .tokens import FIELD, login_token, login_token_is_valid

KEY_MAX = 200
EXPIRED_FORM = "The form has expired or did not come from this site: load it and try again."


def includeme(config):
    config.add_route("admin:lost_password", ADMIN_PREFIX + "/lost-password")
    config.add_route("admin:reset_password", ADMIN_PREFIX + "/reset-password")
    view = dict(permission=NO_PERMISSION_REQUIRED)
    for route, template, form_view, post_view in (
            ("admin:lost_password", "admin/lost_password.jinja2", lost_password_form, lost_password),
            ("admin:reset_password", "admin/reset_password.jinja2", reset_password_form, set_password)):
        config.add_view(form_view, route_name=route, request_method="GET", renderer=template, **view)
        config.add_view(post_view, route_name=route, request_method="POST", renderer=template, **view)
        allowed_methods(config.registry, route).update(("GET", "POST"))


def _values(request, **values):
    return layout_values(request, login_token=login_token(request), csrf_field=FIELD, **values)


def lost_password_form(request):
    return _values(request, title="Lost password", login="", error=None, asked=False)


def lost_password(request):
    form = form_values(request)
    if not login_token_is_valid(request, form.get(FIELD, "")):
        raise AdminForbidden(EXPIRED_FORM)
    who = form.get("login", "").strip()
    try:
        ask_for_link(request, who)
    except InvalidParams:
        refuse_form(request)
        return _values(request, title="Lost password", login=who[:WHO_MAX],
                       error="Type your login or your e-mail address.", asked=False)
    except RestError as exc:  # 429: asked too often from this address
        refuse_form(request, exc.status)
        if exc.headers.get("Retry-After"):
            request.response.headers["Retry-After"] = exc.headers["Retry-After"]
        minutes = -(-int(exc.headers.get("Retry-After", 60)) // 60)
        return _values(request, title="Lost password", login=who[:WHO_MAX], asked=False,
                       error=f"Too many requests from your address: try again in {minutes} minute"
                             f"{'' if minutes == 1 else 's'}.")
    return _values(request, title="Lost password", login="", error=None, asked=True, message=ASKED)


def _key(source):
    key = source.get("key", "")
    return key if isinstance(key, str) and 0 < len(key) <= KEY_MAX else ""


def reset_password_form(request):
    key = _key(request.GET)
    user = user_for_key(request.db, key) if key else None
    if user is None:
        request.response.status = 400
        return _values(request, title="Set a new password", key="", login="", error=BAD_KEY, usable=False)
    return _values(request, title="Set a new password", key=key, login=user.login, error=None, usable=True)


def set_password(request):
    form = form_values(request)
    if not login_token_is_valid(request, form.get(FIELD, "")):
        raise AdminForbidden(EXPIRED_FORM)
    key, password, again = _key(form), form.get("password", ""), form.get("password_again", "")
    user = user_for_key(request.db, key) if key else None
    if user is None:
        refuse_form(request)
        return _values(request, title="Set a new password", key="", login="", error=BAD_KEY, usable=False)
    problem = "The two passwords differ." if password != again else None
    if problem is None:
        try:
            reset_password(request.db, key, password)
        except InvalidParams as exc:
            if "password" not in exc.params:  # the link ended meanwhile
                refuse_form(request)
                return _values(request, title="Set a new password", key="", login="", error=BAD_KEY, usable=False)
            problem = f"The password {exc.params['password']}."
    if problem is not None:
        refuse_form(request)
        return _values(request, title="Set a new password", key=key, login=user.login, error=problem, usable=True)
    return HTTPSeeOther(location=admin_url(request, "/login") + "?reset=1")
