"""store/v1 users (#28): list, create, read, update, delete; each user's application passwords
and sessions (``me`` for one's own). Every rule is ``storeplatform.components.shop.accounts``', which the
command line and the admin call too; a view reads the request and shapes the answer."""
from .. import account_rules, accounts, user_keys
from ..accounts import Actor
from storeplatform.core.db import get_by_id
from storeplatform.core.errors import InvalidParams
from storeplatform.core.rest import Service, paginate
from .. import schemas
from ..models import User

NAMESPACE = "store/v1"

users = Service(NAMESPACE, "/users", name="users", description="The site's users.")
user = Service(NAMESPACE, r"/users/{id:\d+}", name="user", description="One user.")
app_passwords = Service(NAMESPACE, r"/users/{id:\d+}/app-passwords", name="user-app-passwords",
                        description="A user's application passwords (Basic login:password).")
app_password = Service(NAMESPACE, r"/users/{id:\d+}/app-passwords/{password_id:\d+}", name="user-app-password",
                       description="One application password of a user.")
sessions = Service(NAMESPACE, r"/users/{id:\d+}/sessions", name="user-sessions",
                   description="A user's cookie sessions and JWTs: DELETE ends them all.")
my_app_passwords = Service(NAMESPACE, "/users/me/app-passwords", name="me-app-passwords",
                           description="Your own application passwords.")
my_app_password = Service(NAMESPACE, r"/users/me/app-passwords/{password_id:\d+}", name="me-app-password",
                          description="One of your own application passwords.")
my_sessions = Service(NAMESPACE, "/users/me/sessions", name="me-sessions",
                      description="Your own cookie sessions and JWTs: DELETE ends them all.")

# Sketches of the answers for the schema index and the OpenAPI document (``x-shape``).
USER_SHAPE = {"id": "integer", "login": "string", "email": "string", "name": "string", "role": "string",
              "capabilities": ["string"], "disabled": "boolean", "date_created": "date-time", "_links": "object"}
APP_PASSWORD_SHAPE = {"id": "integer", "name": "string", "date_created": "date-time", "_links": "object",
                      "password": "string (only in the answer of its creation: shown once)"}
DELETED_SHAPE = {"deleted": "boolean", "previous": "object (the item as it was)"}
USER_DELETED_SHAPE = {**DELETED_SHAPE, "posts": "integer (the user's posts)",
                      "reassigned_to": "integer (who got them; 0: they stay without an author)",
                      "orders": "integer (the user's orders, kept as guest orders)"}
SESSIONS_ENDED_SHAPE = {"ended": "boolean", "sessions": "integer (cookie sessions ended; every JWT ended too)"}
OWN_OR = "read (your own account; another's: list_users to read, edit_users to change)"


def account_json(request, item):
    """A user as REST shows it (never a password or token hash)."""
    caps = request.registry["auth.role_capabilities"].get(item.role, frozenset())
    return {"id": item.id, "login": item.login, "email": item.email, "name": item.display_name or item.login,
            "role": item.role, "capabilities": sorted(caps), "disabled": bool(item.disabled),
            "date_created": item.created_at.isoformat(),
            "_links": {"self": [{"href": request.rest_url(NAMESPACE, f"/users/{item.id}")}]}}


def app_password_json(request, row):
    return {"id": row.id, "name": row.name, "date_created": row.created_at.isoformat(),
            "_links": {"self": [{"href": request.rest_url(
                NAMESPACE, f"/users/{row.user_id}/app-passwords/{row.id}")}]}}


def role_bindings(request):
    """The site's roles, for the body's ``role`` (plugins may add roles)."""
    return {"roles": account_rules.roles(request.db)}


def _target(request):
    """The actor and the user of the path (``me``: the caller)."""
    actor = Actor.of(request)
    user_id = request.validated["id"] if "id" in request.validated else actor.user.id
    return actor, accounts.get_user(request.db, actor, user_id)


# --- users -----------------------------------------------------------------------------------

@users.get(permission="list_users", query=schemas.UserListQuery(), response=[USER_SHAPE])
def list_users(request):
    v = request.validated
    stmt = accounts.users_query(request.db, Actor.of(request), search=v.get("search"), role=v.get("role"))
    return [account_json(request, item) for item in paginate(request, stmt)]


@users.post(permission="create_users", body=schemas.UserBody(), bind=role_bindings, response=USER_SHAPE)
def create_user(request):
    v = request.validated
    item = accounts.create_user(request.db, Actor.of(request), login=v["login"], role=v["role"], email=v["email"],
                                name=v.get("name"), password=v.get("password"), welcome=True)
    request.response.status = 201
    request.response.headers["Location"] = request.rest_url(NAMESPACE, f"/users/{item.id}")
    return account_json(request, item)


@user.get(permission="read", permission_description=OWN_OR, response=USER_SHAPE)
def get_user(request):
    return account_json(request, _target(request)[1])


@user.put(permission="read", permission_description=OWN_OR, body=schemas.UserUpdate(), bind=role_bindings,
          response=USER_SHAPE)
def update_user(request):
    actor, item = _target(request)
    changes = {key: request.validated[key] for key in ("email", "name", "password", "role", "disabled")
               if key in request.validated}
    with accounts.guessing_current_password(request, actor, item, changes):
        accounts.update_user(request.db, actor, item, current_password=request.validated.get("current_password"),
                             **changes)
    return account_json(request, item)


@user.delete(permission="delete_users", query=schemas.UserDeleteQuery(), response=USER_DELETED_SHAPE)
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


# --- application passwords and sessions (of a user, or ``me``) --------------------------------

@app_passwords.get(permission="read", permission_description=OWN_OR,
                   response=[APP_PASSWORD_SHAPE])
@my_app_passwords.get(permission="read", response=[APP_PASSWORD_SHAPE])
def list_app_passwords(request):
    actor, item = _target(request)
    return [app_password_json(request, row) for row in user_keys.list_app_passwords(request.db, actor, item)]


@app_passwords.post(permission="read", permission_description=OWN_OR, body=schemas.AppPasswordBody(),
                    response=APP_PASSWORD_SHAPE)
@my_app_passwords.post(permission="read", body=schemas.AppPasswordBody(), response=APP_PASSWORD_SHAPE)
def create_app_password(request):
    actor, item = _target(request)
    row, password = user_keys.issue_app_password(request.db, actor, item, request.validated["name"])
    answer = app_password_json(request, row)
    answer["password"] = password  # this once: only its keyed hash is stored
    request.response.status = 201
    request.response.headers["Location"] = answer["_links"]["self"][0]["href"]
    return answer


@app_password.delete(permission="read", permission_description=OWN_OR, response=DELETED_SHAPE)
@my_app_password.delete(permission="read", response=DELETED_SHAPE)
def revoke_app_password(request):
    actor, item = _target(request)
    row = user_keys.revoke_app_password(request.db, actor, item, request.validated["password_id"])
    return {"deleted": True, "previous": app_password_json(request, row)}


@sessions.delete(permission="read", permission_description=OWN_OR, response=SESSIONS_ENDED_SHAPE)
@my_sessions.delete(permission="read", response=SESSIONS_ENDED_SHAPE)
def end_sessions(request):
    actor, item = _target(request)
    return {"ended": True, "sessions": accounts.end_sessions(request.db, actor, item)}
