"""A user's application passwords and consumer keys: listed, issued and revoked with the rules
of ``accounts`` (who may edit whom, a disabled user gets none), by every front end. Each issue
and revocation is an entry of the audit log (kind ``credentials``), never with the secret."""
from sqlalchemy import delete, select

from storeplatform.core.audit import audit
from storeplatform.core.auth.tokens import keyed_hash
from storeplatform.core.db import get_by_id, registry_of
from storeplatform.core.errors import FORBIDDEN
from storeplatform.core.values import is_digits

from .account_rules import PERMISSIONS, app_id_problem, app_password_name_problem, check, text_problem
from .accounts import lock_enabled, may_edit
from .credentials import hash_app_password, new_app_password, new_consumer_key
from .errors import APP_PASSWORD_NOT_FOUND, CANNOT_EDIT_USER, CONSUMER_KEY_NOT_FOUND
from .models import AppPassword, ConsumerKey


# --- application passwords -------------------------------------------------------------------

def list_app_passwords(session, actor, user):
    """The application passwords of ``user`` (rows: id, uuid, app_id, name, created_at,
    last_used_at, last_ip; never the hash)."""
    if not may_edit(actor, user):
        raise CANNOT_EDIT_USER()
    return session.execute(select(AppPassword).where(AppPassword.user_id == user.id).order_by(AppPassword.id)
                           ).scalars().all()


def get_app_password(session, actor, user, id_or_uuid):
    """The application password of ``user`` named by its id (an int) or its uuid (text), or 404
    ``rest_application_password_not_found``."""
    if not may_edit(actor, user):
        raise CANNOT_EDIT_USER()
    if isinstance(id_or_uuid, int) and not isinstance(id_or_uuid, bool):
        row = get_by_id(session, AppPassword, id_or_uuid)
    elif isinstance(id_or_uuid, str) and len(id_or_uuid) == 36:
        row = session.execute(select(AppPassword).where(AppPassword.uuid == id_or_uuid.lower())).scalar_one_or_none()
    else:
        row = None
    if row is None or row.user_id != user.id:
        raise APP_PASSWORD_NOT_FOUND()
    return row


def rename_app_password(session, actor, user, id_or_uuid, name):
    """Give the application password ``id_or_uuid`` of ``user`` a new ``name``; returns the row."""
    check({"name": app_password_name_problem(name)})
    row = get_app_password(session, actor, user, id_or_uuid)
    if row.name != name:
        audit(session, "credentials", "app_password_renamed", user.login,
              {"user_id": user.id, "id": row.id, "old": row.name, "new": name})
        row.name = name
        session.flush()
    return row


def issue_app_password(session, actor, user, name, app_id=""):
    """A new application password of ``user``: returns ``(row, password)``, the password in
    six groups of four, shown this once (only its keyed hash is stored). ``app_id``: the UUID of
    the application it is for (WordPress's), or ""."""
    check({"name": app_password_name_problem(name), "app_id": app_id_problem(app_id)})
    if not may_edit(actor, user):
        raise CANNOT_EDIT_USER()
    lock_enabled(session, user)
    password = new_app_password(session, _secret(session), user, name, app_id.lower())
    session.flush()
    row = session.execute(select(AppPassword).where(
        AppPassword.token_hash == hash_app_password(_secret(session), password))).scalar_one()
    audit(session, "credentials", "app_password_created", user.login,
          {"user_id": user.id, "id": row.id, "name": row.name})
    return row, password


def revoke_app_password(session, actor, user, password_id):
    """Revoke the application password ``password_id`` of ``user`` (404 when ``user`` has no
    such password); refused at the next request of every process."""
    if not may_edit(actor, user):
        raise CANNOT_EDIT_USER()
    row = get_by_id(session, AppPassword, password_id)
    if row is None or row.user_id != user.id:
        raise APP_PASSWORD_NOT_FOUND()
    audit(session, "credentials", "app_password_revoked", user.login,
          {"user_id": user.id, "id": row.id, "name": row.name})
    session.delete(row)
    session.flush()
    return row


def revoke_app_passwords(session, actor, user):
    """Revoke every application password of ``user``; returns how many there were."""
    if not may_edit(actor, user):
        raise CANNOT_EDIT_USER()
    count = session.execute(delete(AppPassword).where(AppPassword.user_id == user.id)
                            .execution_options(synchronize_session=False)).rowcount
    if count:
        audit(session, "credentials", "app_passwords_revoked", user.login, {"user_id": user.id, "count": count})
    return count


# --- consumer keys ---------------------------------------------------------------------------

def list_consumer_keys(session, actor, user=None):
    """The consumer keys of ``user`` (whoever may edit the user), or of every user (the site
    owner only)."""
    stmt = select(ConsumerKey).order_by(ConsumerKey.id)
    if user is None:
        if not actor.is_owner:
            raise FORBIDDEN("Sorry, you are not allowed to list every consumer key.")
    else:
        if not may_edit(actor, user):
            raise CANNOT_EDIT_USER()
        stmt = stmt.where(ConsumerKey.user_id == user.id)
    return session.execute(stmt).scalars().all()


def find_consumer_key(session, key_or_id):
    """The consumer key named by its id (digits) or by the whole key (``ck_...``), or 404."""
    row = None
    if isinstance(key_or_id, str) and is_digits(key_or_id) and len(key_or_id) <= 10:
        row = get_by_id(session, ConsumerKey, int(key_or_id))
    elif isinstance(key_or_id, int) and not isinstance(key_or_id, bool):
        row = get_by_id(session, ConsumerKey, key_or_id)
    elif isinstance(key_or_id, str) and key_or_id.startswith("ck_"):
        key_hash = keyed_hash(_secret(session), key_or_id, "consumer_key")
        row = session.execute(select(ConsumerKey).where(ConsumerKey.key_hash == key_hash)).scalar_one_or_none()
    if row is None:
        raise CONSUMER_KEY_NOT_FOUND(f"no consumer key {key_or_id!r} (give its id or the whole ck_ key)")
    return row


def issue_consumer_key(session, actor, user, permissions="read_write", description=""):
    """A new consumer key of ``user``: returns ``(key, secret)``, shown this once."""
    check({"permissions": None if permissions in PERMISSIONS else f"must be one of {', '.join(PERMISSIONS)}",
            "description": text_problem(description, 200)})
    if not may_edit(actor, user):
        raise CANNOT_EDIT_USER()
    lock_enabled(session, user)
    key, secret = new_consumer_key(session, _secret(session), user, permissions, description)
    session.flush()
    row = session.execute(select(ConsumerKey).where(
        ConsumerKey.key_hash == keyed_hash(_secret(session), key, "consumer_key"))).scalar_one()
    audit(session, "credentials", "consumer_key_created", user.login, _key_details(row))
    return key, secret


def revoke_consumer_key(session, actor, key_or_id):
    """Revoke a consumer key (its id or the whole key); returns the revoked row."""
    row = find_consumer_key(session, key_or_id)
    if not may_edit(actor, row.user):
        raise CANNOT_EDIT_USER()
    audit(session, "credentials", "consumer_key_revoked", row.user.login, _key_details(row))
    session.delete(row)
    session.flush()
    return row


def _key_details(row):
    """A consumer key as the audit log names it: its id and the end of the key that the lists
    show (never the secret)."""
    return {"user_id": row.user_id, "id": row.id, "key": "ck_..." + row.truncated_key,
            "permissions": row.permissions, "description": row.description}


def _secret(session):
    return registry_of(session).settings["storeplatform.secret"]


def revoke_user_consumer_key(session, actor, user, key_id):
    """Revoke the consumer key ``key_id`` of ``user`` (``revoke_consumer_key``: its rule and
    audit entry); 404 when ``user`` has no such key, so that a page of one user revokes that
    user's keys only. Refused at the next request of every process."""
    if not may_edit(actor, user):
        raise CANNOT_EDIT_USER()
    row = get_by_id(session, ConsumerKey, key_id)
    if row is None or row.user_id != user.id:
        raise CONSUMER_KEY_NOT_FOUND()
    return revoke_consumer_key(session, actor, row.id)
