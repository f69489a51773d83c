"""store/v1 users and authentication: the current user, cookie login and logout, nonces, JWT."""
from ..credentials import (SESSION_COOKIE, issue_jwt, make_nonce, session_for_cookie, start_session,
                             user_for_password)
from storeplatform.core.auth.throttle import failed_guess, refuse_if_throttled
from storeplatform.core.errors import INVALID_LOGIN
from storeplatform.core.rest import Service
from .. import schemas
from ..password_resets import ASKED, ask_for_link, reset_password as reset_with_key
from .users import USER_SHAPE, account_json, add_user_writes, shaped
from ..errors import NO_SESSION, SEND_CREDENTIALS

me = Service("store/v1", "/users/me", name="users-me", description="The authenticated user.")
login = Service("store/v1", "/auth/login", name="auth-login", description="Cookie login; answers a nonce for X-Nonce.")
logout = Service("store/v1", "/auth/logout", name="auth-logout", description="Ends the cookie session.")
nonce = Service("store/v1", "/auth/nonce", name="auth-nonce", description="A fresh nonce for the cookie session.")
token = Service("store/v1", "/auth/token", name="auth-token",
                description="A JWT bearer token for a login and password.")
lost_password = Service("store/v1", "/auth/lost-password", name="auth-lost-password",
                        description="Sends a link to set a new password to the account's e-mail address (the "
                                    "same answer whether an account matches or not).")
reset_password = Service("store/v1", "/auth/reset-password", name="auth-reset-password",
                         description="Sets a new password with the key of a link that was sent.")


@me.get(permission="read", query=schemas.UserQuery(), response=USER_SHAPE)
def get_me(request):
    # The identity's record (it keeps the profile too): no query while nothing of the user changes.
    return shaped(request, request.identity.user)


add_user_writes(me)  # users/me is writable as WordPress's is (a refusal as for users/{id})


@login.post(body=schemas.LoginBody())
def post_login(request):
    user = _check_password(request, request.validated["login"], request.validated["password"])
    session_token = start_session(request, user)
    return {"nonce": make_nonce(request, session_token), "user": account_json(request, user)}


@logout.post(permission="read")
def post_logout(request):
    row = session_for_cookie(request)
    if row is not None:
        request.db.delete(row)
    request.response.delete_cookie(SESSION_COOKIE, path="/")
    return {"logged_out": True}


@nonce.get()
def get_nonce(request):
    if session_for_cookie(request) is None:
        raise NO_SESSION()
    return {"nonce": make_nonce(request, request.cookies[SESSION_COOKIE])}


@token.post(body=schemas.TokenBody())
def post_token(request):
    v = request.validated
    if "login" in v or "password" in v:
        user = _check_password(request, v.get("login", ""), v.get("password", ""))
    elif request.identity is not None:
        user = request.identity.user
    else:
        raise SEND_CREDENTIALS()
    value, lifetime = issue_jwt(request, user)
    return {"token": value, "token_type": "Bearer", "expires_in": lifetime}


def _check_password(request, login, password):
    """The user whose password this is; 429 while guesses of this login from this address are
    refused (a blocked login's right password too), a wrong one counted (auth/throttle.py)."""
    refuse_if_throttled(request, login)
    user = user_for_password(request.db, login, password)
    if user is None:
        raise failed_guess(request, login, INVALID_LOGIN())
    return user


@lost_password.post(body=schemas.LostPasswordBody())
def post_lost_password(request):
    """202 whether an account matches or not: the answer tells nobody who has one."""
    ask_for_link(request, request.validated["login"])
    request.response.status = 202
    return {"message": ASKED}


@reset_password.post(body=schemas.ResetPasswordBody())
def post_reset_password(request):
    v = request.validated
    user = reset_with_key(request.db, v["key"], v["password"])
    return {"password_reset": True, "login": user.login}
