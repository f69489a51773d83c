"""The host's authentication methods, registered as a default plugin.

Application passwords and consumer keys over Basic, cookie session + nonce, JWT bearer.
"""
import base64
import binascii
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import jwt
from sqlalchemy import and_, bindparam, func, or_, select, update

from storeplatform.core.client import request_is_https
from storeplatform.core.cache import cached
from storeplatform.core.queue import enqueue_after_commit
from storeplatform.core.db.types import utcnow
from storeplatform.core.values import id_in_range
from storeplatform.core.hookspecs import hookimpl
from storeplatform.core.errors import (AUTHENTICATION_FAILED, CONSUMER_KEY_HTTPS_REQUIRED, CONSUMER_KEY_PERMISSIONS,
                      COOKIE_INVALID_NONCE, JWT_INVALID)
from .models import AppPassword, AuthSession, ConsumerKey, User
from storeplatform.core.auth.identity import Identity, UserRecord
from storeplatform.core.auth.passwords import verify_password
from storeplatform.core.auth.sealed import seal, unseal
from storeplatform.core.auth.tokens import constant_time_equal, keyed_hash, random_token

log = logging.getLogger(__name__)

SESSION_COOKIE = "storeplatform_session"
NONCE_TICK = 12 * 3600
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


@hookimpl(trylast=True)
def storeplatform_authenticate(request):
    header = request.environ.get("HTTP_AUTHORIZATION", "")
    scheme, _, value = header.partition(" ")
    scheme = scheme.lower()
    if scheme == "basic":
        from storeplatform.core.errors import RestError
        from storeplatform.core.auth.throttle import failed_guess, refuse_if_throttled

        login, password = _basic_credentials(value)
        # Guesses are throttled per login (or key) and address: refused while blocked, a
        # wrong one counted (auth/throttle.py); a right one costs no query and writes nothing.
        refuse_if_throttled(request, login)
        try:
            if login.startswith("ck_"):
                return consumer_key_identity(request, login, password)
            return app_password_identity(request, login, password)
        except RestError as error:
            if error.code != AUTHENTICATION_FAILED.code:
                raise  # not a wrong credential (a consumer key over plain HTTP, its permissions)
            raise failed_guess(request, login, error) from None
    if scheme == "bearer":
        return jwt_identity(request, value.strip())
    # A session cookie proves something only with its nonce (cookie_identity): without one, the
    # Cookie header (a browser's, however many cookies) is not parsed.
    environ = request.environ
    if "HTTP_X_NONCE" in environ and "HTTP_COOKIE" in environ and SESSION_COOKIE in request.cookies:
        return cookie_identity(request)
    return None


def _secret(request):
    return request.registry.settings["storeplatform.secret"]


def _basic_credentials(value):
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise AUTHENTICATION_FAILED("The Authorization header is malformed.")
    login, sep, password = decoded.partition(":")
    if not sep:
        raise AUTHENTICATION_FAILED("The Authorization header is malformed.")
    return login, password


def _failed():
    return AUTHENTICATION_FAILED()


def active_record(user):
    """The ``UserRecord`` of ``user`` (a ``User``), or None when the user is disabled: every
    credential of a disabled user is refused as an unknown one is."""
    return None if user.disabled else UserRecord.of(user)


# --- application passwords ---------------------------------------------------------------

def hash_app_password(secret, password):
    return keyed_hash(secret, "".join(password.split()), "app_password")


def new_app_password(session, secret, user, name, app_id=""):
    """Create an application password; return the plain text (shown once, grouped by four)."""
    password = random_token(24)
    session.add(AppPassword(user_id=user.id, name=name, token_hash=hash_app_password(secret, password),
                            app_id=app_id))
    return " ".join(password[i:i + 4] for i in range(0, 24, 4))


def app_password_identity(request, login, password):
    """The user of an application password; ``login`` is their login or e-mail address, in any
    case (as WordPress takes either). Its use is recorded at most once a day (``record_use``):
    a request of a password this process recorded in the last day writes and reads nothing more."""
    password = "".join(password.split())  # spaces are ignored, as displayed in groups
    if len(password) != 24 or not password.isalnum():
        raise _failed()
    token_hash = hash_app_password(_secret(request), password)
    found = _app_password_user(request.db, token_hash)
    if found is None:
        raise _failed()
    user, password_id = found
    if not constant_time_equal(user.login.lower(), login.lower()) and not (
            user.email and constant_time_equal(user.email.lower(), login.lower())):
        raise _failed()
    if _USES.get(token_hash, 0.0) < time.time() - USE_PERIOD:
        record_use(request, token_hash, password_id)
    return Identity(user, "app_password", None, password_id)


# Application passwords' use, as WordPress records it: the time and address of a use at most once
# a day per password, so that a busy client writes nothing per request. ``_USES``: the time this
# process last recorded (or found recorded) each password's use, by its hash (an id may name
# another password after a restore); a warm request only looks it up.
USE_PERIOD = 24 * 3600
_USES = {}
_USES_KEPT = 10000


def record_use(request, token_hash, password_id):
    """Note now as the last use of application password ``password_id`` and the request's
    address as its last address, unless a use was recorded in the last day (by any process):
    a task, sent once the request's transaction commits (at once from a read-only request's
    session), that a worker runs as one conditional UPDATE. The request writes nothing (its
    transaction may be read-only, or SQLite's write lock held by another), and the write is
    counted and traced as the worker's. It moves no generation (``AppPassword``'s
    ``generation_columns``): no kept identity is read again."""
    now = time.time()
    if len(_USES) >= _USES_KEPT:
        _USES.clear()
    _USES[token_hash] = now
    address = (request.client_address or "")[:45] or None
    enqueue_after_commit(request.db, USE_TASK, password_id, now, address)


USE_TASK = "storeplatform.app_password_used"


def app_password_used(ctx, password_id, now, address):
    """The task of ``record_use``: at most one write a day per password, whichever process sent it."""
    at = datetime.fromtimestamp(now, timezone.utc)
    ctx.session.execute(
        update(AppPassword).where(AppPassword.id == password_id, or_(
            AppPassword.last_used_at.is_(None), AppPassword.last_used_at < at - timedelta(seconds=USE_PERIOD)))
        .values(last_used_at=at, last_ip=address).execution_options(synchronize_session=False))


# --- consumer keys -----------------------------------------------------------------------

def new_consumer_key(session, secret, user, permissions, description=""):
    key = "ck_" + random_token(40, "0123456789abcdef")
    consumer_secret = "cs_" + random_token(40, "0123456789abcdef")
    key_hash = keyed_hash(secret, key, "consumer_key")
    session.add(ConsumerKey(
        user_id=user.id, description=description, permissions=permissions, key_hash=key_hash,
        secret_hash=keyed_hash(secret, consumer_secret, "consumer_secret"),
        secret_sealed=seal(secret, key_hash, consumer_secret), truncated_key=key[-7:],
    ))
    return key, consumer_secret


@dataclass(frozen=True)
class _KeptKey:
    """What a consumer key's requests read of its row, kept per process by the host's cache until
    a key, user or role changes (the secret as stored: hashed, and sealed)."""

    id: int
    user: UserRecord
    permissions: str
    secret_hash: str
    secret_sealed: object
    key_hash: str


# What a credential's requests read of its rows, kept by the host's cache (``@cached``) as
# values until a user, password, key or session changes: no query per request while none does.

@cached
def _app_password_user(session, token_hash):
    """(the ``UserRecord``, the password's id), or None (no such password, or a disabled user)."""
    row = session.execute(select(AppPassword).where(AppPassword.token_hash == token_hash)).scalar_one_or_none()
    record = None if row is None else active_record(row.user)
    return None if record is None else (record, row.id)


@cached
def _consumer_key_row(session, key_hash):
    row = session.execute(select(ConsumerKey).where(ConsumerKey.key_hash == key_hash)).scalar_one_or_none()
    if row is None or row.user.disabled:
        return None
    return _KeptKey(row.id, UserRecord.of(row.user), row.permissions, row.secret_hash, row.secret_sealed, row.key_hash)


@cached
def _session_user(session, token_hash):
    row = session.execute(select(AuthSession).where(AuthSession.token_hash == token_hash)).scalar_one_or_none()
    return None if row is None or row.user.disabled else (UserRecord.of(row.user), row.expires_at)


@cached
def _user_record(session, user_id):
    user = session.get(User, user_id)
    return None if user is None else active_record(user)


def _consumer_key(request, key):
    """The kept row of consumer key ``key``, or None: no query while no key, user or role
    changes (a REST client sends its key with every request)."""
    return _consumer_key_row(request.db, keyed_hash(_secret(request), key, "consumer_key"))


def consumer_key_identity(request, key, consumer_secret):
    parsed = request.registry.settings["storeplatform.parsed"]
    if not parsed["allow_http_consumer_keys"] and not request_is_https(request):
        raise CONSUMER_KEY_HTTPS_REQUIRED()
    kept = _consumer_key(request, key)
    if kept is None or not constant_time_equal(
            kept.secret_hash, keyed_hash(_secret(request), consumer_secret, "consumer_secret")):
        raise _failed()
    require_consumer_key_permission(request, kept.permissions)
    return Identity(kept.user, "consumer_key", kept.permissions)


@dataclass(frozen=True)
class ConsumerKeyCredentials:
    """A consumer key as an authentication method sees it. ``user`` is a ``UserRecord``, as
    identities carry; ``secret`` is None for a key issued before secrets were kept (migration
    sp0006): such a key works with Basic only."""

    id: int
    user: object
    permissions: str
    secret: str | None


def consumer_key_credentials(request, key):
    """The site's consumer key ``key`` (``ck_…``) with its secret, user and permissions, or None
    when there is no such key. Kept like the key of a Basic request: no query while nothing
    behind it changes."""
    kept = _consumer_key(request, key)
    if kept is None:
        return None
    secret = unseal(_secret(request), kept.key_hash, kept.secret_sealed) if kept.secret_sealed else None
    return ConsumerKeyCredentials(kept.id, kept.user, kept.permissions, secret)


def require_consumer_key_permission(request, permissions):
    """Raise 403 ``rest_consumer_key_permissions`` when a key with ``permissions`` (read, write,
    read_write) may not make this request: safe methods read, the others write."""
    safe = request.method in SAFE_METHODS
    if (safe and permissions == "write") or (not safe and permissions == "read"):
        raise CONSUMER_KEY_PERMISSIONS(
            f"The consumer key does not have {'read' if safe else 'write'} permission.")


# --- cookie session + nonce --------------------------------------------------------------

def start_session(request, user):
    """A cookie login of ``user`` (the ``User`` whose password was just checked). The user's row
    is locked first and its ``auth_version`` must still be the one read with the password: a
    password change, a disable or "end sessions" committed meanwhile refuses the login, and one
    under way waits for this login to commit and then deletes its session (accounts.py raises
    the version before it deletes sessions)."""
    seen = getattr(user, "auth_version", None)
    current = request.db.execute(
        select(User.auth_version, User.disabled).where(User.id == user.id).with_for_update()).first()
    if current is None or current.disabled or (seen is not None and current.auth_version != seen):
        raise _failed()
    token = random_token(43)
    lifetime = request.registry.settings["storeplatform.parsed"]["session_lifetime"]
    request.db.add(AuthSession(user_id=user.id, token_hash=keyed_hash(_secret(request), token, "session"),
                               expires_at=utcnow() + timedelta(seconds=lifetime)))
    request.response.set_cookie(SESSION_COOKIE, token, max_age=lifetime, httponly=True, samesite="Lax",
                                secure=request_is_https(request), path="/")
    return token


def session_for_cookie(request):
    token = request.cookies.get(SESSION_COOKIE, "")
    if not token:
        return None
    row = request.db.execute(
        select(AuthSession).where(AuthSession.token_hash == keyed_hash(_secret(request), token, "session"))
    ).scalar_one_or_none()
    if row is None or row.expires_at <= utcnow() or row.user.disabled:
        return None
    return row


def make_nonce(request, session_token, tick=None):
    tick = int(time.time() // NONCE_TICK) if tick is None else tick
    return keyed_hash(_secret(request), f"{session_token}|{tick}", "nonce")[:20]


def nonce_is_valid(request, session_token, nonce):
    tick = int(time.time() // NONCE_TICK)
    # A nonce lives for one to two ticks (12 to 24 hours).
    return any(constant_time_equal(make_nonce(request, session_token, t), nonce) for t in (tick, tick - 1))


def session_user(request):
    """The user of the request's session cookie (a ``UserRecord``), or None when there is no
    cookie or its session is unknown or expired. The cookie alone: callers decide what else
    proves the request came from the site (the nonce of REST, the admin's form token)."""
    token = request.cookies.get(SESSION_COOKIE, "")
    if not token:
        return None
    found = _session_user(request.db, keyed_hash(_secret(request), token, "session"))
    if found is None or found[1] <= utcnow():
        return None
    return found[0]


@hookimpl(trylast=True)
def storeplatform_page_identity(request):
    user = session_user(request)
    return Identity(user, "cookie") if user is not None else None


def cookie_identity(request):
    nonce = request.environ.get("HTTP_X_NONCE")
    if nonce is None:
        return None  # a cookie alone proves nothing: it could be a cross-site request
    user = session_user(request)
    if user is None or not nonce_is_valid(request, request.cookies.get(SESSION_COOKIE, ""), nonce):
        raise COOKIE_INVALID_NONCE()
    return Identity(user, "cookie")


def user_for_password(session, login, password):
    """The user with ``login`` (a login or an e-mail address, any case, as WordPress takes
    either; a login first, should one be another user's address) when ``password`` is theirs and
    the user is not disabled, else None (the same answer and the same time either way: a guesser
    learns nothing). One statement, served by the unique indexes of lower(login) and of
    lower(email) (sp0018)."""
    user = session.execute(_BY_LOGIN_OR_EMAIL, {"key": login.lower(), "login": login}).scalar_one_or_none()
    # Verify against a dummy hash when the login is unknown, so timing does not tell.
    stored = user.password_hash if user is not None else _DUMMY_HASH
    if not verify_password(password, stored) or user is None or user.disabled:
        return None
    return user


# Built once: a login's statement is then a lookup of SQLAlchemy's compiled cache.
_BY_LOGIN_OR_EMAIL = (
    select(User).where(or_(func.lower(User.login) == bindparam("key"),
                           and_(User.email != "", func.lower(User.email) == bindparam("key"))))
    .order_by(func.lower(User.login) != bindparam("key"), User.login != bindparam("login"), User.id).limit(1))

_DUMMY_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="


# --- JWT ---------------------------------------------------------------------------------

def _jwt_key(request):
    return keyed_hash(_secret(request), "jwt-signing-key", "jwt")


def issue_jwt(request, user):
    lifetime = request.registry.settings["storeplatform.parsed"]["jwt_lifetime"]
    now = int(time.time())
    # ``ver``: the user's auth_version; a token of an older version is refused (jwt_identity).
    claims = {"sub": str(user.id), "iat": now, "exp": now + lifetime, "iss": "storeplatform",
              "ver": user.auth_version or 0}
    return jwt.encode(claims, _jwt_key(request), algorithm="HS256"), lifetime


def jwt_identity(request, token):
    try:
        claims = jwt.decode(token, _jwt_key(request), algorithms=["HS256"], issuer="storeplatform",
                            options={"require": ["exp", "sub", "iat"]})
        user_id = int(claims["sub"])
        # A token issued before tokens carried a version (#28) counts as version 0.
        version = claims.get("ver", 0)
    except (jwt.PyJWTError, ValueError):
        raise JWT_INVALID()
    if type(version) is not int or not id_in_range(user_id):
        raise JWT_INVALID()

    user = _user_record(request.db, user_id)
    # Every session and token issued before a password or role change, a disable or "end
    # sessions" ends: the user's version moved on (accounts.py).
    if user is None or user.auth_version != version:
        raise JWT_INVALID()
    return Identity(user, "jwt")
