"""Links that set a user's password: a lost password (asked for with the login or the e-mail
address: ``password_resets``) and a new account's first password (a user made without one, by
the admin or REST). The link carries a random key; the table keeps its keyed hash
(``PasswordResetKey``), one per user, used once, good for ``auth.password_reset_minutes`` (a lost
password) or ``auth.welcome_link_days`` (a new account) and only while the user's
``auth_version`` is the one it was issued under: a password change, a role change, disabling or
"end sessions" end it, as they end the user's sessions.

The message itself is not the shop's: ``storeplatform_account_link`` hands the link to whoever
delivers it (the mail component sends it; a plugin may text it)."""
import secrets
from datetime import timedelta

from sqlalchemy import delete, select

from storeplatform.core.auth.tokens import keyed_hash
from storeplatform.core.db import hooks_of
from storeplatform.core.db.types import utcnow
from storeplatform.core.errors import InvalidParams
from storeplatform.core.options import site_options

from .models import PasswordResetKey, User

LOST_PASSWORD, WELCOME = "lost_password", "welcome"
LOST_MINUTES, WELCOME_DAYS = "auth.password_reset_minutes", "auth.welcome_link_days"
HASH_PURPOSE = "password-reset-key"
# Where the link leads: the admin's page that sets the password (every user's, as WordPress's
# wp-login.php is), the key in its query.
RESET_PATH = "/admin/reset-password"
BAD_KEY = ("This link is not valid: it has expired, has been used, or a newer one was sent. "
           "Ask for a new one.")


class InvalidResetKey(InvalidParams):
    """A key no link holds now (unknown, used, expired, replaced or ended by a password change)."""

    def __init__(self):
        super().__init__({"key": BAD_KEY})


def _secret(session):
    return session.info["registry"].settings["storeplatform.secret"]


def issue_link(session, user, purpose):
    """A new link for ``user`` (replacing any earlier one) handed to
    ``storeplatform_account_link``; returns its URL."""
    options = site_options(session)
    lifetime = (timedelta(minutes=options[LOST_MINUTES]) if purpose == LOST_PASSWORD
                else timedelta(days=options[WELCOME_DAYS]))
    key = secrets.token_urlsafe(32)
    expires_at = utcnow() + lifetime
    session.execute(delete(PasswordResetKey).where(PasswordResetKey.user_id == user.id))
    session.add(PasswordResetKey(user_id=user.id, key_hash=keyed_hash(_secret(session), key, HASH_PURPOSE),
                                 purpose=purpose, auth_version=user.auth_version or 0, expires_at=expires_at))
    session.flush()
    # The site's own address, never the request's: a link built from a Host header an attacker
    # sent would carry the key to the attacker's site (a reset link's classic poisoning).
    url = f"{options['site.url'].rstrip('/')}{RESET_PATH}?key={key}"
    hooks_of(session).storeplatform_account_link(session=session, user=user, purpose=purpose, url=url,
                                                 expires_at=expires_at)
    return url


def user_for_key(session, key):
    """The user whose link holds ``key`` now, or None."""
    if not isinstance(key, str) or not 20 <= len(key) <= 100:
        return None
    row = session.execute(
        select(PasswordResetKey, User).join(User, User.id == PasswordResetKey.user_id)
        .where(PasswordResetKey.key_hash == keyed_hash(_secret(session), key, HASH_PURPOSE))).first()
    if row is None:
        return None
    link, user = row
    if link.expires_at <= utcnow() or link.auth_version != (user.auth_version or 0) or user.disabled:
        return None
    return user
