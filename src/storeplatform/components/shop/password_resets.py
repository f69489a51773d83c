"""A lost password: anyone may ask for a link with a login or an e-mail address, and the link's
key sets a new password (``account_links``). Asking answers the same whether an account matches
or not, and is throttled as logins are (each request counts as a guess of what was typed, from
the caller's address), so that nobody can learn who has an account or fill a user's mailbox."""
from sqlalchemy import and_, delete, func, or_, select

from storeplatform.core.auth.throttle import record_failure, refuse_if_throttled, too_many_attempts
from storeplatform.core.errors import InvalidParams

from .account_links import LOST_PASSWORD, InvalidResetKey, issue_link, user_for_key
from .account_rules import check, password_problem
from .accounts import OWNER, update_user
from .models import PasswordResetKey, User

# What the asker is told either way.
ASKED = "If an account matches, a link to set a new password has been sent to its e-mail address."
WHO_MAX = 200


def ask_for_link(request, who):
    """A lost password: ``who`` is a login or an e-mail address. A link goes to the account it
    names (enabled, with an e-mail address); nothing tells the caller whether one did. 429 while
    this address has asked too often (for this ``who`` or for any)."""
    who = who.strip()
    if not who or len(who) > WHO_MAX:
        raise InvalidParams({"login": "must be a login or an e-mail address" if not who
                             else f"must be at most {WHO_MAX} characters"})
    refuse_if_throttled(request, who)
    # Counted whatever the outcome, before anything is written (on SQLite counting begins the
    # request's transaction anew); a request that goes over the limit sends nothing.
    retry_after = record_failure(request, who)
    if retry_after is not None:
        raise too_many_attempts(retry_after)
    session = request.db
    # A login or an address in any case (#43: both unique so), through their unique indexes.
    key = who.lower()
    user = session.execute(select(User).where(or_(func.lower(User.login) == key,
                                                  and_(User.email != "", func.lower(User.email) == key)))
                           .order_by(func.lower(User.login) != key, User.login != who, User.id).limit(1)
                           ).scalar_one_or_none()
    if user is not None and not user.disabled and user.email:
        issue_link(session, user, LOST_PASSWORD)


def reset_password(session, key, password):
    """Set the password of the user whose link holds ``key`` and end the link, every session and
    token of theirs (a password change's work); returns the ``User``. InvalidResetKey when no
    link holds the key, InvalidParams (``password``) for a password the rules refuse."""
    check({"password": password_problem(password)})
    user = user_for_key(session, key)
    if user is None:
        raise InvalidResetKey()
    session.execute(delete(PasswordResetKey).where(PasswordResetKey.user_id == user.id))
    update_user(session, OWNER, user, password=password)
    return user
