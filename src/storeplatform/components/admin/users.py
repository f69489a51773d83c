"""The Users pages of the admin: the list (search, role with the count of each, sortable
columns, paging; its bulk actions are in ``bulk``), a user's page (profile, password, role,
disabling, sessions, application passwords, consumer keys), a new user and deleting one.
Every change goes through ``storeplatform.components.shop.accounts``, the code of the REST routes and the
command line: the same validation, the same rules of who may do what to whom.

Staff without ``list_users`` reach their own page through "Your profile"."""
from urllib.parse import urlencode

from pyramid.httpexceptions import HTTPNotFound, HTTPSeeOther
from sqlalchemy import func, select

from storeplatform.components.shop import account_rules, accounts, accounts_bulk, user_keys
from storeplatform.core.errors import InvalidParams, RestError
from .forms import form_values, refuse_form
from .guard import admin_redirect, admin_url
from .listing import ListQuery, list_sort
from .pages import AdminPage, admin_view

USERS = AdminPage("users", "Users", "/users", "list_users", order=91, section="Site")
# Every member of the staff (whoever may write posts) changes their own password here.
PROFILE = AdminPage("profile", "Your profile", "/profile", "edit_posts", order=95)
ONE = r"/{id:\d+}"
PER_PAGE = 50
# The columns the list sorts by, each with its first direction, and the list's own (newest first).
SORTS = {"login": "asc", "email": "asc", "name": "asc", "since": "desc", "id": "desc"}
DEFAULT_SORT = ("id", "desc")
USER_PAGE = "admin/user.jinja2"
FIELD_LABELS = {"email": "E-mail", "name": "Name", "role": "Role", "password": "New password",
                "current_password": "Current password", "login": "Login", "reassign": "Give their posts to"}


def _actor(request):
    return accounts.Actor.of(request)


def _user(request, actor):
    try:
        return accounts.get_user(request.db, actor, int(request.matchdict["id"]))
    except RestError:
        raise HTTPNotFound()


@admin_view(PROFILE)
def profile(request):
    return HTTPSeeOther(location=admin_url(request, f"/users/{request.identity.user.id}"))


@admin_view(USERS, template="admin/users.jinja2")
def list_users(request):
    actor = _actor(request)
    search = request.GET.get("search", "").strip()[:200]
    role = request.GET.get("role", "")
    page = request.GET.get("page", "1")
    page = int(page) if page.isdigit() and 0 < len(page) <= 6 and int(page) > 0 else 1
    roles = account_rules.roles(request.db)
    role = role if role in roles else ""
    orderby, order = list_sort(request, SORTS, DEFAULT_SORT)
    stmt = accounts.users_query(request.db, actor, search=search or None, role=role or None,
                                orderby=orderby, order=order)
    # The users of each role, kept by the database: the links above the list, and its total
    # unless a search narrows it (then counted).
    counts = accounts_bulk.role_counts(request.db)
    total = request.db.execute(select(func.count()).select_from(stmt.order_by(None).subquery())).scalar_one() \
        if search else counts.get(role, 0) if role else sum(counts.values())
    pages = max(1, -(-total // PER_PAGE))
    page = min(page, pages)
    users = request.db.execute(stmt.limit(PER_PAGE).offset((page - 1) * PER_PAGE)).scalars().all()
    # The list's query without its page: what the pager's and the headers' links carry.
    sorting = ListQuery(search=search, extra={"role": role}, orderby=orderby, order=order,
                        default_sort=DEFAULT_SORT, sorts=SORTS)
    query = sorting.params()
    # "All (5) | administrator (1) | customer (4)": every role someone has (and the one
    # chosen), each a link to the list of that role, in the same order (the search is left).
    sort = {k: v for k, v in query.items() if k in ("orderby", "order")}
    role_links = [("", "All", sum(counts.values()), sort)] + [
        (name, name, counts.get(name, 0), {**sort, "role": name}) for name in roles if counts.get(name) or name == role]
    return {"sorting": sorting, "title": "Users", "users": users, "total": total, "page": page, "pages": pages,
            "search": search, "role": role, "roles": roles, "query": query, "role_links": role_links,
            "may_create": actor.can("create_users"), "may_promote": actor.can("promote_users"),
            "may_delete": actor.can("delete_users"),
            "bulk_choices": [(r, r) for r in roles], "back": urlencode({**query, "page": page} if page > 1 else query)}


def _user_page(request, actor, user, *, values=None, errors=None, problem=None, new_password=None):
    keys = user_keys.list_app_passwords(request.db, actor, user) if accounts.may_edit(actor, user) else []
    consumer_keys = user_keys.list_consumer_keys(request.db, actor, user) if accounts.may_edit(actor, user) else []
    return {
        "title": "Your profile" if actor.is_self(user) else f"User {user.login}",
        "item": user, "values": values or {"email": user.email, "name": user.display_name, "role": user.role},
        "errors": errors or {}, "problem": problem, "labels": FIELD_LABELS, "app_passwords": keys,
        "consumer_keys": consumer_keys,
        "new_password": new_password, "is_self": actor.is_self(user),
        "may_edit": accounts.may_edit(actor, user), "may_promote": accounts.may_promote(actor, user),
        "may_delete": accounts.may_delete(actor, user), "roles": account_rules.roles(request.db),
        "may_disable": accounts.may_edit(actor, user) and not actor.is_self(user),
    }


def _refused(request, actor, user, exc, **values):
    """The user's page again with what was refused: beside the fields for bad input, above
    the form for a rule (the last administrator, one's own role); nothing was written."""
    if isinstance(exc, InvalidParams):
        refuse_form(request)
        return _user_page(request, actor, user, errors=exc.params, **values)
    refuse_form(request, status=exc.status)
    return _user_page(request, actor, user, problem=exc.message, **values)


@admin_view(USERS, path=ONE, template=USER_PAGE, capability="edit_posts")
def show_user(request):
    actor = _actor(request)
    return _user_page(request, actor, _user(request, actor))


@admin_view(USERS, path=ONE, request_method="POST", template=USER_PAGE, capability="edit_posts")
def save_user(request):
    actor = _actor(request)
    user = _user(request, actor)
    form = form_values(request)
    changes = {name: form[name] for name in ("email", "name") if name in form}
    if form.get("role") and form["role"] != user.role:
        changes["role"] = form["role"]
    if form.get("password"):
        changes["password"] = form["password"]
        changes["current_password"] = form.get("current_password", "")
    shown = {"email": form.get("email", user.email), "name": form.get("name", user.display_name),
             "role": form.get("role", user.role)}
    try:
        with accounts.guessing_current_password(request, actor, user, changes):
            accounts.update_user(request.db, actor, user, **changes)
    except (InvalidParams, RestError) as exc:
        return _refused(request, actor, user, exc, values=shown)
    ended = " Every session and token issued before has ended." if "password" in changes or "role" in changes else ""
    return admin_redirect(request, f"/users/{user.id}", notice=f"{user.login} saved.{ended}")


def _action(path, done):
    """A button of the user's page: ``done(session, actor, user)`` and back to the page."""
    @admin_view(USERS, path=ONE + path, request_method="POST", template=USER_PAGE, capability="edit_posts")
    def action(request):
        actor = _actor(request)
        user = _user(request, actor)
        try:
            notice = done(request.db, actor, user)
        except (InvalidParams, RestError) as exc:
            return _refused(request, actor, user, exc)
        return admin_redirect(request, f"/users/{user.id}", notice=notice)

    return action


def _disable(session, actor, user):
    accounts.disable_user(session, actor, user)
    return f"{user.login} is disabled: their sessions, tokens, application passwords and keys have ended."


def _enable(session, actor, user):
    accounts.enable_user(session, actor, user)
    return f"{user.login} is enabled again."


def _end_sessions(session, actor, user):
    ended = accounts.end_sessions(session, actor, user)
    return f"Every session and token of {user.login} has ended ({ended} browser session{'s' * (ended != 1)})."


disable_user = _action("/disable", _disable)
enable_user = _action("/enable", _enable)
end_sessions = _action("/sessions/end", _end_sessions)


@admin_view(USERS, path=ONE + "/app-passwords", request_method="POST", template=USER_PAGE, capability="edit_posts")
def issue_app_password(request):
    actor = _actor(request)
    user = _user(request, actor)
    try:
        _, password = user_keys.issue_app_password(request.db, actor, user, form_values(request).get("app_password_name", ""))
    except (InvalidParams, RestError) as exc:
        if isinstance(exc, InvalidParams):
            exc = InvalidParams({"app_password_name": exc.params.get("name", str(exc))})
        return _refused(request, actor, user, exc)
    # Shown on this answer only (never stored, never in a redirect's cookie).
    request.response.headers["Cache-Control"] = "no-store"
    return _user_page(request, actor, user, new_password=password)


def _row_id(request, name):
    """The id in the path's ``name`` (digits, by the route), 0 (no row) when too long to be one."""
    value = request.matchdict[name]
    return int(value) if len(value) <= 10 else 0


@admin_view(USERS, path=ONE + r"/app-passwords/{password_id:\d+}/revoke", request_method="POST",
            template=USER_PAGE, capability="edit_posts")
def revoke_app_password(request):
    return _revoke(request, user_keys.revoke_app_password, "password_id",
                   lambda row: f"The application password {row.name} is revoked.")


@admin_view(USERS, path=ONE + r"/consumer-keys/{key_id:\d+}/revoke", request_method="POST",
            template=USER_PAGE, capability="edit_posts")
def revoke_consumer_key(request):
    """Revoke one of the user's consumer keys (as ``storeplatform consumer-key revoke``): a
    request signed or sent with it is refused from the next one on, in every process."""
    return _revoke(request, user_keys.revoke_user_consumer_key, "key_id",
                   lambda row: f"The consumer key ck_…{row.truncated_key} is revoked: requests made with it are "
                               "refused.")


def _revoke(request, revoke, name, notice):
    """Revoke the user's credential whose id is the path's ``name`` with ``revoke(session, actor,
    user, id)``, then back to the user's page with ``notice(row)``; a refusal shows the page."""
    actor = _actor(request)
    user = _user(request, actor)
    try:
        row = revoke(request.db, actor, user, _row_id(request, name))
    except (InvalidParams, RestError) as exc:
        return _refused(request, actor, user, exc)
    return admin_redirect(request, f"/users/{user.id}", notice=notice(row))


@admin_view(USERS, path="/new", template="admin/user_new.jinja2", capability="create_users")
def new_user(request):
    return _new_page(request, _actor(request), {"role": account_rules.DEFAULT_ROLE}, {})


def _new_page(request, actor, values, errors):
    roles = [role for role in account_rules.roles(request.db)
             if actor.can("promote_users") or role in accounts.EDITABLE_WITHOUT_PROMOTE]
    return {"title": "New user", "values": values, "errors": errors, "roles": roles, "labels": FIELD_LABELS}


@admin_view(USERS, path="/new", request_method="POST", template="admin/user_new.jinja2", capability="create_users")
def create_user(request):
    actor = _actor(request)
    form = form_values(request)
    values = {name: form.get(name, "") for name in ("login", "email", "name", "role")}
    try:
        user = accounts.create_user(request.db, actor, login=values["login"].strip(), role=values["role"] or None,
                                    email=values["email"].strip(), name=values["name"] or None,
                                    password=form.get("password") or None, welcome=True)
    except InvalidParams as exc:
        refuse_form(request)
        return _new_page(request, actor, values, exc.params)
    except RestError as exc:  # a role this actor may not give
        refuse_form(request, status=exc.status)
        return {**_new_page(request, actor, values, {}), "problem": exc.message}
    sent = "" if user.password_hash or not user.email else f" A link to set a password was sent to {user.email}."
    return admin_redirect(request, f"/users/{user.id}", notice=f"User {user.login} created.{sent}")


@admin_view(USERS, path=ONE + "/delete", template="admin/user_delete.jinja2", capability="delete_users")
def confirm_delete(request):
    actor = _actor(request)
    return _delete_page(request, actor, _user(request, actor), {})


def _delete_page(request, actor, user, errors, problem=None):
    posts, orders = accounts.user_holdings(request.db, user)
    others = accounts.reassign_candidates(request.db, user)
    return {"title": f"Delete user {user.login}", "item": user, "posts": posts, "orders": orders, "others": others,
            "errors": errors, "problem": problem, "labels": FIELD_LABELS}


@admin_view(USERS, path=ONE + "/delete", request_method="POST", template="admin/user_delete.jinja2",
            capability="delete_users")
def delete_user(request):
    actor = _actor(request)
    user = _user(request, actor)
    reassign_id = form_values(request).get("reassign", "")
    try:
        reassign = None
        if reassign_id:
            try:
                reassign = accounts.get_user(request.db, actor, int(reassign_id) if reassign_id.isdigit()
                                             and len(reassign_id) <= 10 else 0)
            except RestError:
                raise InvalidParams({"reassign": "choose a user of this site"})
        login = user.login
        done = accounts.delete_user(request.db, actor, user, reassign=reassign)
    except InvalidParams as exc:
        refuse_form(request)
        return _delete_page(request, actor, user, exc.params)
    except RestError as exc:
        refuse_form(request, status=exc.status)
        return _delete_page(request, actor, user, {}, problem=exc.message)
    kept = f"{done['posts']} post{'s' * (done['posts'] != 1)} " + (
        f"given to user {reassign.login}" if reassign is not None else "kept without an author")
    return admin_redirect(request, "/users", notice=f"User {login} deleted; {kept}, "
                                                     f"{done['orders']} order{'s' * (done['orders'] != 1)} kept as guest orders.")
