"""store/v1 users (#28, #43): list, create, read, update, delete; each user's application passwords
and sessions (``me`` for one's own). Every rule is ``storeplatform.components.shop.accounts``', which the
command line and the admin call too; a view reads the request and shapes the answer.

The routes answer a client written for WordPress's ``wp/v2/users`` as WordPress does (#43): its
list parameters, POST, PUT and PATCH on a user, ``context`` (view, embed, edit) and ``_fields``,
its field names beside this API's own (``username`` and ``login``, ``roles`` and ``role``,
``registered_date`` and ``date_created``), and its application passwords' routes
(``application-passwords``, a password named by its ``uuid``) beside ``app-passwords``. A query
parameter or body field that a route does not know is refused, naming it."""
import hashlib

from storeplatform.core.db import get_by_id
from storeplatform.core.errors import InvalidParams
from storeplatform.core.rest import Service, paginate

from .. import account_rules, accounts, schemas, user_keys
from ..accounts import Actor
from ..errors import CANNOT_INTROSPECT_OTHER, NO_AUTHENTICATED_APP_PASSWORD
from ..models import User

NAMESPACE = "store/v1"

users = Service(NAMESPACE, "/users", name="users", description="The site's users.")
user = Service(NAMESPACE, r"/users/{id:\d+}", name="user", description="One user.")
sessions = Service(NAMESPACE, r"/users/{id:\d+}/sessions", name="user-sessions",
                   description="A user's cookie sessions and JWTs: DELETE ends them all.")
my_sessions = Service(NAMESPACE, "/users/me/sessions", name="me-sessions",
                      description="Your own cookie sessions and JWTs: DELETE ends them all.")

# A user's application passwords, under this API's path (a password named by its id) and
# WordPress's (named by its uuid); ``me`` for one's own.
UUID = r"{uuid:[0-9a-fA-F-]+}"  # any other text names no password (user_keys.get_app_password: 404)
APP_PASSWORDS = "A user's application passwords (Basic login:password); DELETE revokes them all."
ONE_APP_PASSWORD = "One application password of a user: read, rename (name), revoke."
app_passwords = Service(NAMESPACE, r"/users/{id:\d+}/app-passwords", name="user-app-passwords",
                        description=APP_PASSWORDS)
app_password = Service(NAMESPACE, r"/users/{id:\d+}/app-passwords/{password_id:\d+}", name="user-app-password",
                       description=ONE_APP_PASSWORD)
my_app_passwords = Service(NAMESPACE, "/users/me/app-passwords", name="me-app-passwords",
                           description="Your own application passwords.")
my_app_password = Service(NAMESPACE, r"/users/me/app-passwords/{password_id:\d+}", name="me-app-password",
                          description="One of your own application passwords.")
wp_app_passwords = Service(NAMESPACE, r"/users/{id:\d+}/application-passwords", name="user-application-passwords",
                           description=APP_PASSWORDS + " (WordPress's path)")
wp_app_password = Service(NAMESPACE, r"/users/{id:\d+}/application-passwords/" + UUID,
                          name="user-application-password", description=ONE_APP_PASSWORD + " (WordPress's path)")
my_wp_app_passwords = Service(NAMESPACE, "/users/me/application-passwords", name="me-application-passwords",
                              description="Your own application passwords (WordPress's path).")
my_wp_app_password = Service(NAMESPACE, "/users/me/application-passwords/" + UUID, name="me-application-password",
                             description="One of your own application passwords (WordPress's path).")
introspect = Service(NAMESPACE, r"/users/{id:\d+}/application-passwords/introspect", name="user-app-password-introspect",
                     description="The application password this request authenticated with (WordPress's).")
my_introspect = Service(NAMESPACE, "/users/me/application-passwords/introspect", name="me-app-password-introspect",
                        description="The application password this request authenticated with (WordPress's).")
APP_PASSWORD_LISTS = (app_passwords, my_app_passwords, wp_app_passwords, my_wp_app_passwords)
APP_PASSWORD_ITEMS = (app_password, my_app_password, wp_app_password, my_wp_app_password)

# Sketches of the answers for the schema index and the OpenAPI document (``x-shape``).
USER_SHAPE = {"id": "integer", "login": "string", "username": "string", "email": "string", "name": "string",
              "first_name": "string", "last_name": "string", "nickname": "string", "url": "string",
              "description": "string", "link": "string", "locale": "string", "slug": "string",
              "role": "string", "roles": ["string"], "capabilities": ["string"], "extra_capabilities": "object",
              "disabled": "boolean", "date_created": "date-time", "registered_date": "date-time",
              "avatar_urls": "object", "meta": "object", "_links": "object"}
APP_PASSWORD_SHAPE = {"id": "integer", "uuid": "string", "app_id": "string", "name": "string",
                      "created": "date-time", "date_created": "date-time", "last_used": "date-time or null",
                      "last_ip": "string or null", "_links": "object",
                      "password": "string (only in the answer of its creation: shown once)"}
DELETED_SHAPE = {"deleted": "boolean", "previous": "object (the item as it was)"}
DELETED_ALL_SHAPE = {"deleted": "boolean", "count": "integer (application passwords revoked)"}
USER_DELETED_SHAPE = {**DELETED_SHAPE, "posts": "integer (the user's posts)",
                      "reassigned_to": "integer (who got them; 0: they stay without an author)",
                      "orders": "integer (the user's orders, kept as guest orders)"}
SESSIONS_ENDED_SHAPE = {"ended": "boolean", "sessions": "integer (cookie sessions ended; every JWT ended too)"}
OWN_OR = "read (your own account; another's: list_users to read, edit_users to change)"

# The fields of each ``context`` (WordPress's): view and embed show what a public profile shows.
VIEW_FIELDS = ("id", "name", "url", "description", "link", "slug", "avatar_urls", "meta", "_links")
EMBED_FIELDS = ("id", "name", "url", "description", "link", "slug", "avatar_urls", "_links")
AVATAR_SIZES = (24, 48, 96)
DEFAULT_LOCALE = "en_US"


def avatar_urls(email):
    """Gravatar's pictures of an address (WordPress's ``avatar_urls``): its SHA-256, no request."""
    digest = hashlib.sha256((email or "").strip().lower().encode()).hexdigest()
    return {str(size): f"https://secure.gravatar.com/avatar/{digest}?s={size}&d=mm&r=g" for size in AVATAR_SIZES}


def account_json(request, item, context="edit", fields=None):
    """A user as REST shows it (never a password or token hash), in ``context``'s shape, only
    ``fields`` when given. ``item`` is a ``User`` or the identity's ``UserRecord`` (which keeps
    the profile too)."""
    caps = request.registry["auth.role_capabilities"].get(item.role, frozenset())
    self_url = request.rest_url(NAMESPACE, f"/users/{item.id}")
    answer = {"id": item.id, "login": item.login, "username": item.login, "email": item.email,
              "name": item.display_name or item.login,
              **dict.fromkeys(account_rules.PROFILE_FIELDS, ""), **dict(getattr(item, "profile", ())),
              "link": self_url, "slug": item.login.lower(),
              "role": item.role, "roles": [item.role], "capabilities": sorted(caps),
              "extra_capabilities": {item.role: True}, "disabled": bool(item.disabled),
              "date_created": item.created_at.isoformat(), "registered_date": item.created_at.isoformat(),
              "avatar_urls": avatar_urls(item.email), "meta": {},
              "_links": {"self": [{"href": self_url}], "collection": [{"href": request.rest_url(NAMESPACE, "/users")}]}}
    answer["locale"] = answer["locale"] or DEFAULT_LOCALE
    if context == "view":
        answer = {key: answer[key] for key in VIEW_FIELDS}
    elif context == "embed":
        answer = {key: answer[key] for key in EMBED_FIELDS}
    if fields:
        answer = {key: value for key, value in answer.items() if key in fields}
    return answer


def shaped(request, item):
    """``item`` in the shape the request's query asks for (``context``, ``_fields``)."""
    return account_json(request, item, request.validated.get("context", "edit"), request.validated.get("_fields"))


def app_password_json(request, row, path=None):
    created = row.created_at.isoformat()
    href = request.rest_url(NAMESPACE, f"/users/{row.user_id}/{path or 'app-passwords'}/"
                                       f"{row.uuid if path == 'application-passwords' else row.id}")
    return {"id": row.id, "uuid": row.uuid, "app_id": row.app_id or "", "name": row.name, "created": created,
            "date_created": created, "last_used": row.last_used_at.isoformat() if row.last_used_at else None,
            "last_ip": row.last_ip, "_links": {"self": [{"href": href}]}}


def role_bindings(request):
    """The site's roles, for the body's ``role`` (plugins may add roles)."""
    return {"roles": account_rules.roles(request.db)}


def _target(request):
    """The actor and the user of the path (``me``: the caller)."""
    actor = Actor.of(request)
    user_id = request.validated["id"] if "id" in request.validated else actor.user.id
    return actor, accounts.get_user(request.db, actor, user_id)


def _one_role(v):
    """The role a body names: ``role``, or WordPress's ``roles`` (one); both must agree."""
    role = v.get("role")
    if "roles" in v:
        if role is not None and role != v["roles"][0]:
            raise InvalidParams({"roles": f"says {v['roles'][0]!r}, role says {role!r}"})
        role = v["roles"][0]
    return role


def _profile(v):
    return {field: v[field] for field in account_rules.PROFILE_FIELDS if field in v}


# --- users -----------------------------------------------------------------------------------

@users.get(permission="list_users", query=schemas.UserListQuery(), response=[USER_SHAPE])
def list_users(request):
    v = request.validated
    orderby = v.get("orderby")
    order = v.get("order") or ("asc" if orderby else "desc")
    stmt = accounts.users_query(request.db, Actor.of(request), search=v.get("search"), role=v.get("role"),
                                orderby=orderby or "id", order=order, roles=v.get("roles"), include=v.get("include"),
                                exclude=v.get("exclude"), slugs=v.get("slug"), who=v.get("who"))
    return [shaped(request, item) for item in paginate(request, stmt)]


@users.post(permission="create_users", query=schemas.UserQuery(), body=schemas.UserBody(), bind=role_bindings,
            response=USER_SHAPE)
def create_user(request):
    v = request.validated
    login = v.get("login", v.get("username"))
    problems = {}
    if login is None:
        problems["username"] = "required (or login)"
    elif "username" in v and "login" in v and v["username"] != v["login"]:
        problems["username"] = "differs from login: send one"
    if login is not None and "slug" in v and v["slug"] != login.lower():
        problems["slug"] = "a user's slug is the login lower-cased"
    if problems:
        raise InvalidParams(problems)
    role = _one_role(v)
    item = accounts.create_user(request.db, Actor.of(request), login=login, role=role, email=v["email"],
                                name=v.get("name"), password=v.get("password"), welcome=True, **_profile(v))
    request.response.status = 201
    request.response.headers["Location"] = request.rest_url(NAMESPACE, f"/users/{item.id}")
    return shaped(request, item)


@user.get(permission="read", permission_description=OWN_OR, query=schemas.UserQuery(), response=USER_SHAPE)
def get_user(request):
    return shaped(request, _target(request)[1])


def update_user(request):
    """PUT, PATCH or POST on a user (or ``me``): what the body gives changes, nothing else."""
    actor, item = _target(request)
    v = request.validated
    problems = {name: "the login cannot be changed" for name in ("login", "username") if name in v and v[name] != item.login}
    if "slug" in v and v["slug"] != item.login.lower():
        problems["slug"] = "a user's slug is the login lower-cased: it cannot be changed"
    if problems:
        raise InvalidParams(problems)
    changes = {key: v[key] for key in ("email", "name", "password", "disabled") if key in v}
    role = _one_role(v)
    if role is not None:
        changes["role"] = role
    with accounts.guessing_current_password(request, actor, item, changes):
        accounts.update_user(request.db, actor, item, current_password=v.get("current_password"), **changes,
                             **_profile(v))
    return shaped(request, item)


def delete_user(request):
    v = request.validated
    if not v["force"]:
        raise InvalidParams({"force": "users have no trash: a user is deleted for good (send force=true)"})
    actor, item = _target(request)
    reassign = None
    if v.get("reassign"):
        reassign = get_by_id(request.db, User, v["reassign"])
        if reassign is None:
            raise InvalidParams({"reassign": f"no user with id {v['reassign']}"})
    previous = account_json(request, item)
    done = accounts.delete_user(request.db, actor, item, reassign=reassign)
    return {"deleted": True, "previous": previous, "posts": done["posts"],
            "reassigned_to": done["reassigned_to"] or 0, "orders": done["orders"]}


def add_user_writes(service, description=None):
    """PUT, PATCH and POST (WordPress takes all three) change a user; DELETE deletes one."""
    for method in ("put", "patch", "post"):
        getattr(service, method)(permission="read", permission_description=description, query=schemas.UserQuery(),
                                 body=schemas.UserUpdate(), bind=role_bindings, response=USER_SHAPE)(update_user)
    service.delete(permission="delete_users", query=schemas.UserDeleteQuery(), response=USER_DELETED_SHAPE)(delete_user)


add_user_writes(user, OWN_OR)


# --- application passwords and sessions (of a user, or ``me``) --------------------------------

def _wp_path(request):
    return "application-passwords" if "application-passwords" in request.path else None


def list_app_passwords(request):
    actor, item = _target(request)
    path = _wp_path(request)
    return [app_password_json(request, row, path) for row in user_keys.list_app_passwords(request.db, actor, item)]


def create_app_password(request):
    actor, item = _target(request)
    v = request.validated
    row, password = user_keys.issue_app_password(request.db, actor, item, v["name"], app_id=v.get("app_id", ""))
    answer = app_password_json(request, row, _wp_path(request))
    answer["password"] = password  # this once: only its keyed hash is stored
    request.response.status = 201
    request.response.headers["Location"] = answer["_links"]["self"][0]["href"]
    return answer


def revoke_app_passwords(request):
    actor, item = _target(request)
    return {"deleted": True, "count": user_keys.revoke_app_passwords(request.db, actor, item)}


def _password_key(request):
    """The password of the path: its id (``app-passwords``) or its uuid (``application-passwords``)."""
    return request.validated["password_id"] if "password_id" in request.validated else request.matchdict["uuid"]


def get_app_password(request):
    actor, item = _target(request)
    row = user_keys.get_app_password(request.db, actor, item, _password_key(request))
    return app_password_json(request, row, _wp_path(request))


def rename_app_password(request):
    actor, item = _target(request)
    row = user_keys.rename_app_password(request.db, actor, item, _password_key(request), request.validated["name"])
    return app_password_json(request, row, _wp_path(request))


def revoke_app_password(request):
    actor, item = _target(request)
    row = user_keys.get_app_password(request.db, actor, item, _password_key(request))
    answer = app_password_json(request, row, _wp_path(request))
    user_keys.revoke_app_password(request.db, actor, item, row.id)
    return {"deleted": True, "previous": answer}


@introspect.get(permission="read", query=schemas.NoQuery(), response=APP_PASSWORD_SHAPE)
@my_introspect.get(permission="read", query=schemas.NoQuery(), response=APP_PASSWORD_SHAPE)
def introspect_app_password(request):
    """The application password of this very request (WordPress's ``introspect``): 404 when the
    request was authenticated otherwise, 403 for another user than the caller."""
    actor, item = _target(request)
    if not actor.is_self(item):
        raise CANNOT_INTROSPECT_OTHER()
    identity = request.identity
    if identity.method != "app_password" or identity.credential_id is None:
        raise NO_AUTHENTICATED_APP_PASSWORD()
    row = user_keys.get_app_password(request.db, actor, item, identity.credential_id)
    return app_password_json(request, row, "application-passwords")


def _add_app_password_views():
    for service in APP_PASSWORD_LISTS:
        own = OWN_OR if "{id" in service.path else None
        service.get(permission="read", permission_description=own, query=schemas.NoQuery(),
                    response=[APP_PASSWORD_SHAPE])(list_app_passwords)
        service.post(permission="read", permission_description=own, query=schemas.NoQuery(),
                     body=schemas.AppPasswordBody(), response=APP_PASSWORD_SHAPE)(create_app_password)
        service.delete(permission="read", permission_description=own, query=schemas.NoQuery(),
                       response=DELETED_ALL_SHAPE)(revoke_app_passwords)
    for service in APP_PASSWORD_ITEMS:
        own = OWN_OR if "{id" in service.path else None
        service.get(permission="read", permission_description=own, query=schemas.NoQuery(),
                    response=APP_PASSWORD_SHAPE)(get_app_password)
        for method in ("put", "patch", "post"):  # WordPress renames with any of the three
            getattr(service, method)(permission="read", permission_description=own, query=schemas.NoQuery(),
                                     body=schemas.AppPasswordUpdate(), response=APP_PASSWORD_SHAPE)(rename_app_password)
        service.delete(permission="read", permission_description=own, query=schemas.NoQuery(),
                       response=DELETED_SHAPE)(revoke_app_password)


_add_app_password_views()


@sessions.delete(permission="read", permission_description=OWN_OR, query=schemas.NoQuery(),
                 response=SESSIONS_ENDED_SHAPE)
@my_sessions.delete(permission="read", query=schemas.NoQuery(), response=SESSIONS_ENDED_SHAPE)
def end_sessions(request):
    actor, item = _target(request)
    return {"ended": True, "sessions": accounts.end_sessions(request.db, actor, item)}
