"""Accounts (#28): users and their credentials, managed the one way every front end uses: the
command line (``storeplatform user ...``), the REST routes of ``store/v1/users`` and the admin's
pages. Each gets the same validation, the same rules of who may do what to whom, and the same
errors.

Every function takes the session of the caller's transaction and the ``Actor`` who acts
(``Actor.of(request)`` in a request, ``OWNER`` on the command line), writes in that transaction
and commits nothing. Bad input raises ``InvalidParams`` naming each bad field (``login``,
``email``, ``name``, ``password``, ``current_password``, ``role``, ``reassign``, ``app_password``
...); a refusal raises a ``RestError`` of the store/v1 catalogue (``store/errors.py``): the REST
server answers both as they are, the command line prints their message on one line.

Reading:
    ``get_user(session, actor, user_id)``, ``find_user(session, actor, login)``: a ``User`` the
    actor may see, else ``rest_user_invalid_id`` (404: whether it exists is not told);
    ``users_query(session, actor, search=, role=)``: the select of a users list (a page of it with
    ``rest.paginate``), ``list_users(...)`` the whole list; ``may_view``, ``may_edit``,
    ``may_delete`` and ``may_promote`` say beforehand what the actor may do (to show or hide a
    button).

Changing a user:
    ``create_user``, ``update_user`` (e-mail, name, password, role, disabled and the profile
    fields of #43: every change of one form at once), and its one-change forms
    ``set_password``, ``set_role``, ``disable_user``, ``enable_user``; ``rename_user`` (the
    owner's, for logins that differ only in case); ``delete_user(..., reassign=)``;
    ``end_sessions``. Logins and e-mail addresses are unique in any case (``refuse_taken``:
    ``TakenLogin``, ``TakenEmail``, WordPress's codes; unique indexes behind them, sp0018).

Credentials (``user_keys``, with the same rules):
    ``list_app_passwords``, ``issue_app_password`` (the plain text is returned once, never
    stored), ``revoke_app_password``, ``revoke_app_passwords``; ``list_consumer_keys``,
    ``find_consumer_key``, ``issue_consumer_key``, ``revoke_consumer_key``.

Ending means ending: a password change, a role change, disabling and "end sessions" raise the
user's ``auth_version`` (every JWT issued before carries an older one and is refused) and delete
the user's cookie sessions; disabling also revokes every application password and consumer key,
deleting removes the user and with it every credential. Each write moves the ``auth``
generation, so every process refuses what ended at its very next request, its kept identities
included (credentials.py).

Every change is reported to the audit log (``storeplatform.core.audit.audit``) in the same
transaction, one entry per kind of change: ``users`` created, changed (e-mail, name),
role_changed, password_changed (one's own) or password_reset (another's), disabled, enabled,
deleted; ``credentials`` sessions_revoked (and ``user_keys``' application passwords and keys).
"""
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import case, delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError

from storeplatform.core.audit import audit
from storeplatform.core.auth.capabilities import require
from storeplatform.core.auth.identity import UserRecord
from storeplatform.core.auth.passwords import hash_password, verify_password
from storeplatform.core.db import get_by_id, hooks_of, registry_of
from storeplatform.core.errors import FORBIDDEN, InvalidParams
from storeplatform.core.plugins import call_action

from .errors import (CANNOT_CHANGE_SELF, CANNOT_CREATE_USER, CANNOT_DELETE_USER, CANNOT_EDIT_ROLES, CANNOT_EDIT_USER,
                     LAST_ADMINISTRATOR, USER_DISABLED, USER_INVALID_ID)
from .account_rules import (DEFAULT_ROLE, PROFILE_FIELDS, check, email_problem, login_problem, name_problem,
                            password_problem, profile_problem, role_problem)
from .account_links import WELCOME, issue_link
from .models import UNIQUE_EMAIL_INDEX, UNIQUE_LOGIN_INDEX, AppPassword, AuthSession, ConsumerKey, Order, Post, User

ADMINISTRATOR = "administrator"
# The roles a user who may edit users but not promote them (a shop manager) may create and
# edit, as WooCommerce lets its shop managers edit customers only.
EDITABLE_WITHOUT_PROMOTE = frozenset({"customer"})


# --- who acts --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Actor:
    """Who acts: a user (a ``UserRecord``) with the capabilities of their role, or the site
    owner at the command line (``user`` None), who may do everything but break the rule of the
    last administrator."""

    user: UserRecord | None
    capabilities: frozenset

    @classmethod
    def of(cls, request):
        """The authenticated caller of ``request`` (401 for an anonymous one)."""
        require(request, "read")
        user = request.identity.user
        return cls(user, request.registry["auth.role_capabilities"].get(user.role, frozenset()))

    @property
    def is_owner(self):
        return self.user is None

    def can(self, capability):
        return self.is_owner or capability in self.capabilities

    def is_self(self, user):
        return self.user is not None and self.user.id == user.id


OWNER = Actor(None, frozenset())


def may_view(actor, user):
    """Whether ``actor`` may read ``user``: themselves, or anyone with ``list_users``."""
    return actor.is_self(user) or actor.can("list_users")


def may_edit(actor, user):
    """Whether ``actor`` may change ``user``'s profile, password, sessions and application
    passwords: themselves, or with ``edit_users`` any user they could also give the user's role
    (everyone with ``promote_users``, customers only without it)."""
    return actor.is_self(user) or (actor.can("edit_users") and _may_handle_role(actor, user.role))


def may_promote(actor, user):
    """Whether ``actor`` may change ``user``'s role (never their own, except on the command line)."""
    return actor.can("promote_users") and not actor.is_self(user)


def may_delete(actor, user):
    return actor.can("delete_users") and not actor.is_self(user)


def _may_handle_role(actor, role):
    return actor.can("promote_users") or role in EDITABLE_WITHOUT_PROMOTE


# --- reading ---------------------------------------------------------------------------------

def get_user(session, actor, user_id):
    """The user with id ``user_id`` when ``actor`` may see them, else ``rest_user_invalid_id``
    (404: a user one may not see answers as one that does not exist)."""
    user = get_by_id(session, User, user_id)
    if user is None or not may_view(actor, user):
        raise USER_INVALID_ID()
    return user


def find_user(session, actor, login):
    """The user with ``login`` (as written, else in any case: logins are unique whatever their
    case, but a site migrated with duplicates names each exactly) when ``actor`` may see them,
    else ``rest_user_invalid_id``."""
    user = None
    if isinstance(login, str):
        found = session.execute(select(User).where(func.lower(User.login) == login.lower())
                                .order_by(User.login != login, User.id).limit(2)).scalars().all()
        user = found[0] if found and (found[0].login == login or len(found) == 1) else None
    if user is None or not may_view(actor, user):
        raise USER_INVALID_ID(f"no user with login {login!r}")
    return user


def _like(text):
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


# What a list of users sorts by (the admin's ``orderby``): a total order each (the login is
# unique, the others end with the id), read from an index in that order (``User``'s).
ORDERBY = {"id": (User.id,), "login": (User.login,), "name": (User.display_name, User.id),
           "since": (User.created_at, User.id), "email": (User.email, User.id),
           # REST's names (WordPress's): the slug is the login lower-cased (its unique index, sp0018).
           "registered_date": (User.created_at, User.id), "slug": (func.lower(User.login),)}
# ``orderby="include"``: the order of the ``include`` ids given (WordPress's).
ORDER_OF_INCLUDE = "include"
# WordPress's ``who=authors``: the users whose role may write posts.
AUTHORS = "authors"


def users_query(session, actor, *, search=None, role=None, orderby="id", order="desc", roles=None, include=None,
                exclude=None, slugs=None, who=None):
    """The select of the users ``actor`` may list (``list_users``), newest first (or by
    ``orderby``, a key of ``ORDERBY`` or ``"include"``, in ``order``); ``search`` finds text in
    the login, e-mail or name (any case), ``role`` keeps one role (refused when unknown),
    ``roles`` any of several (an unknown one matches nobody, as in WordPress),
    ``include`` / ``exclude`` ids, ``slugs`` logins in any case, ``who="authors"`` the users
    whose role may write posts (``edit_posts``)."""
    if not actor.can("list_users"):
        raise FORBIDDEN("Sorry, you are not allowed to list users.")
    check({"role": role_problem(session, role) if role is not None else None,
           "orderby": "orderby=include needs include" if orderby == ORDER_OF_INCLUDE and not include else None,
           "who": f"must be {AUTHORS!r}" if who not in (None, AUTHORS) else None})
    if orderby == ORDER_OF_INCLUDE:
        # Each id's place in ``include``, then the id: a total order of a list that small.
        place = case({user_id: n for n, user_id in enumerate(dict.fromkeys(include))}, value=User.id, else_=len(include))
        keys = (place, User.id)
    else:
        keys = ORDERBY[orderby]
    stmt = select(User).order_by(*(c.desc() if order == "desc" else c.asc() for c in keys))
    if role is not None:
        stmt = stmt.where(User.role == role)
    if roles:
        stmt = stmt.where(User.role.in_(sorted(set(roles))))
    if who == AUTHORS:
        capabilities = registry_of(session)["auth.role_capabilities"]
        stmt = stmt.where(User.role.in_(sorted(r for r, caps in capabilities.items() if "edit_posts" in caps)))
    if include:
        stmt = stmt.where(User.id.in_(sorted(set(include))))
    if exclude:
        stmt = stmt.where(User.id.not_in(sorted(set(exclude))))
    if slugs:
        stmt = stmt.where(func.lower(User.login).in_(sorted({slug.lower() for slug in slugs})))
    if search:
        like = _like(search)
        stmt = stmt.where(or_(User.login.ilike(like, escape="\\"), User.email.ilike(like, escape="\\"),
                              User.display_name.ilike(like, escape="\\")))
    return stmt


def list_users(session, actor, *, search=None, role=None):
    """Every user of ``users_query``, oldest first (the command line's table)."""
    stmt = users_query(session, actor, search=search, role=role).order_by(None).order_by(User.id)
    return session.execute(stmt).scalars().all()


def user_holdings(session, user):
    """(posts, orders) of ``user``: what deleting the user leaves (posts go to another user or
    stay without an author, orders stay as guest orders)."""
    return tuple(session.execute(select(func.count()).select_from(model).where(column == user.id)).scalar_one()
                 for model, column in ((Post, Post.author_id), (Order, Order.customer_id)))


def reassign_candidates(session, user, limit=500):
    """(id, login) of the users who may receive ``user``'s posts: the staff (customers write no
    posts), by login; a long list is cut at ``limit``."""
    return session.execute(select(User.id, User.login).where(User.id != user.id, User.role != "customer")
                           .order_by(User.login).limit(limit)).all()


# --- changing a user -------------------------------------------------------------------------

def create_user(session, actor, *, login, role=None, email="", name=None, password=None, welcome=False, **profile):
    """A new user (``role`` defaults to customer, ``name`` to the login); returns the ``User``.
    ``create_users`` is needed, and ``promote_users`` for any role but customer. ``welcome``: a
    user made without a password but with an e-mail address gets a link to set one (the admin's
    form and REST ask for it; the command line does not). ``profile``: any of ``PROFILE_FIELDS``
    (first_name, last_name, nickname, url, description, locale). A login or an e-mail address
    another user has, in any case, is refused (``TakenLogin``, ``TakenEmail``)."""
    role = DEFAULT_ROLE if role is None else role
    check({"login": login_problem(login), "role": role_problem(session, role), "email": email_problem(email),
            "name": name_problem(name) if name is not None else None,
            "password": password_problem(password) if password is not None else None,
            **_profile_problems(profile)})
    if not actor.can("create_users"):
        raise CANNOT_CREATE_USER()
    if not _may_handle_role(actor, role):
        raise CANNOT_CREATE_USER(f"Sorry, you may create users with the role "
                                 f"{' or '.join(sorted(EDITABLE_WITHOUT_PROMOTE))} only.")
    refuse_taken(session, login=login, email=email)
    user = User(login=login, role=role, email=email, display_name=login if name is None else name,
                password_hash=hash_password(password) if password is not None else None, **profile)
    session.add(user)
    _flush_unique(session)
    audit(session, "users", "created", user.login, {"user_id": user.id, "role": role, "email": email})
    if welcome and password is None and email:
        issue_link(session, user, WELCOME)
    return user


_UNCHANGED = object()


class TakenLogin(InvalidParams):
    """A login another user has (any case): WordPress's ``existing_user_login``."""

    code = "existing_user_login"


class TakenEmail(InvalidParams):
    """An e-mail address another user has (any case): WordPress's ``existing_user_email``."""

    code = "existing_user_email"


def login_taken(session, login, user=None):
    """Whether another user than ``user`` has ``login``, in any case (its unique index)."""
    stmt = select(User.id).where(func.lower(User.login) == login.lower())
    if user is not None:
        stmt = stmt.where(User.id != user.id)
    return session.execute(stmt.limit(1)).first() is not None


def email_taken(session, email, user=None):
    """Whether another user than ``user`` has ``email`` (not empty), in any case (its partial
    unique index: the condition ``email <> ''`` is what lets the database use it)."""
    if not email:
        return False
    stmt = select(User.id).where(User.email != "", func.lower(User.email) == email.lower())
    if user is not None:
        stmt = stmt.where(User.id != user.id)
    return session.execute(stmt.limit(1)).first() is not None


def refuse_taken(session, *, login=None, email=None, user=None):
    """Raise ``TakenLogin`` (both named when the address is taken too) or ``TakenEmail``."""
    taken = {}
    if login is not None and login_taken(session, login, user):
        taken["login"] = "Sorry, that username already exists! (another user has it, in upper or lower case)"
    if email and email_taken(session, email, user):
        taken["email"] = "Sorry, that email address is already used! (another user has it, in upper or lower case)"
    if taken:
        raise (TakenLogin if "login" in taken else TakenEmail)(taken)


def _flush_unique(session):
    """Flush; a login or an address taken by a transaction committed meanwhile (the check above
    could not see it) is the same refusal as one seen before, not a conflict of the database."""
    try:
        session.flush()
    except IntegrityError as exc:
        text = str(exc.orig)
        if UNIQUE_EMAIL_INDEX in text:
            raise TakenEmail({"email": "Sorry, that email address is already used!"}) from exc
        if UNIQUE_LOGIN_INDEX in text or "users.login" in text or "uq_users_login" in text:
            raise TakenLogin({"login": "Sorry, that username already exists!"}) from exc
        raise


def _profile_problems(profile):
    unknown = set(profile) - set(PROFILE_FIELDS)
    if unknown:
        raise TypeError(f"unknown profile field(s): {', '.join(sorted(unknown))}")
    return {field: profile_problem(field, value) for field, value in profile.items()}


class WrongCurrentPassword(InvalidParams):
    """A wrong ``current_password``: a guess of the password, counted as a failed login."""


@contextmanager
def guessing_current_password(request, actor, user, changes):
    """Around ``update_user`` from a request: a self password change (``changes`` has a
    ``password`` and ``actor`` is ``user``) is a guess of the current password, refused while
    guesses of ``user``'s login from the request's address are throttled and counted when
    wrong, as a login is (a stolen session must not grind the password)."""
    from storeplatform.core.auth.throttle import failed_guess, refuse_if_throttled

    if "password" in changes and actor.is_self(user):
        refuse_if_throttled(request, user.login)
    try:
        yield
    except WrongCurrentPassword as exc:
        raise failed_guess(request, user.login, exc) from None


def update_user(session, actor, user, *, email=_UNCHANGED, name=_UNCHANGED, password=_UNCHANGED,
                current_password=None, role=_UNCHANGED, disabled=_UNCHANGED, **profile):
    """Change what is given of ``user``, all or nothing (the caller's transaction is aborted
    with the error). Changing one's own password needs ``current_password`` (except on the
    command line); a role needs ``promote_users`` and is never one's own; disabling is never
    one's own either; the last active administrator keeps the role and stays enabled. A new
    password, a new role or disabling ends every session and token issued before. ``profile``:
    any of ``PROFILE_FIELDS``. An e-mail address another user has (any case) is refused
    (``TakenEmail``)."""
    check({**_change_problems(session, email, name, password, role, disabled), **_profile_problems(profile)})
    if not may_edit(actor, user):
        raise CANNOT_EDIT_USER()
    if email is not _UNCHANGED and email.lower() != (user.email or "").lower():
        refuse_taken(session, email=email, user=user)
    new_role = role is not _UNCHANGED and role != user.role
    disabling = disabled is True and not user.disabled
    enabling = disabled is False and user.disabled
    if new_role and not actor.can("promote_users"):
        raise CANNOT_EDIT_ROLES()
    if (new_role or disabling or enabling) and actor.is_self(user):
        raise CANNOT_CHANGE_SELF()
    if password is not _UNCHANGED and actor.is_self(user):
        _check_current_password(user, current_password)
    if user.role == ADMINISTRATOR and not user.disabled and (new_role or disabling):
        _keep_an_administrator(session, user)
    before = {"email": user.email, "name": user.display_name, "role": user.role,
              **{field: getattr(user, field) for field in PROFILE_FIELDS}}
    if email is not _UNCHANGED:
        user.email = email
    if name is not _UNCHANGED:
        user.display_name = name
    for field, value in profile.items():
        setattr(user, field, value)
    if password is not _UNCHANGED:
        user.password_hash = hash_password(password)
    if new_role:
        user.role = role
    if disabling or enabling:
        user.disabled = disabling
    _flush_unique(session)
    ended = revoked = None
    if password is not _UNCHANGED or new_role or disabling:
        ended = _end_sessions(session, user)
    if disabling:
        revoked = _revoke_every_key(session, user)
    _report_update(session, actor, user, before, password is not _UNCHANGED, disabling, enabling, ended, revoked)
    return user


def _report_update(session, actor, user, before, password, disabling, enabling, ended, revoked):
    """The audit entries of one ``update_user``: one per kind of change it made."""
    ids = {"user_id": user.id}
    profile = {field: {"old": before[field], "new": now}
               for field, now in (("email", user.email), ("name", user.display_name),
                                  *((field, getattr(user, field)) for field in PROFILE_FIELDS))
               if now != before[field]}
    if profile:
        audit(session, "users", "changed", user.login, {**ids, **profile})
    if user.role != before["role"]:
        audit(session, "users", "role_changed", user.login,
              {**ids, "old": before["role"], "new": user.role, "sessions_ended": ended})
    if password:
        audit(session, "users", "password_changed" if actor.is_self(user) else "password_reset", user.login,
              {**ids, "sessions_ended": ended})
    if disabling:
        audit(session, "users", "disabled", user.login, {**ids, "sessions_ended": ended, **revoked})
    if enabling:
        audit(session, "users", "enabled", user.login, ids)


def _change_problems(session, email, name, password, role, disabled):
    """What is wrong with each field given to ``update_user`` (None: nothing, or not given)."""
    return {
        "email": email_problem(email) if email is not _UNCHANGED else None,
        "name": name_problem(name) if name is not _UNCHANGED else None,
        "password": password_problem(password) if password is not _UNCHANGED else None,
        "role": role_problem(session, role) if role is not _UNCHANGED else None,
        "disabled": "must be true or false" if disabled is not _UNCHANGED and not isinstance(disabled, bool) else None,
    }


def _check_current_password(user, current_password):
    """One's own new password needs the current one."""
    if not isinstance(current_password, str) or not current_password:
        raise InvalidParams({"current_password": "your current password is needed to change it"})
    if not verify_password(current_password, user.password_hash):
        raise WrongCurrentPassword({"current_password": "is not your current password"})


def rename_user(session, actor, user, login):
    """Give ``user`` the login ``login`` (the owner's way to resolve logins that differ only in
    case, ``storeplatform user rename``; WordPress never renames). Needs ``promote_users``;
    sessions and credentials stay (they name the user by id; a Basic client sends the new
    login from now on)."""
    check({"login": login_problem(login)})
    if not actor.can("promote_users") or not may_edit(actor, user):
        raise CANNOT_EDIT_USER()
    if login == user.login:
        return user
    refuse_taken(session, login=login, user=user)
    before = user.login
    user.login = login
    _flush_unique(session)
    audit(session, "users", "renamed", user.login, {"user_id": user.id, "old": before, "new": login})
    return user


def set_password(session, actor, user, password, *, current_password=None):
    """A new password for ``user``; ends every session and token issued before (application
    passwords and consumer keys stay, as in WordPress)."""
    return update_user(session, actor, user, password=password, current_password=current_password)


def set_role(session, actor, user, role):
    return update_user(session, actor, user, role=role)


def disable_user(session, actor, user):
    """Refuse every credential of ``user`` from now on: sessions and tokens end, application
    passwords and consumer keys are revoked (enabling again brings none of them back)."""
    return update_user(session, actor, user, disabled=True)


def enable_user(session, actor, user):
    return update_user(session, actor, user, disabled=False)


def end_sessions(session, actor, user):
    """End every cookie session and JWT of ``user`` (application passwords and consumer keys
    stay: revoke those one by one); returns how many cookie sessions there were."""
    if not may_edit(actor, user):
        raise CANNOT_EDIT_USER()
    ended = _end_sessions(session, user)
    audit(session, "credentials", "sessions_revoked", user.login, {"user_id": user.id, "sessions": ended})
    return ended


def delete_user(session, actor, user, *, reassign=None):
    """Delete ``user`` for good, with every credential. Their posts go to ``reassign`` (a
    ``User``) when given, else stay without an author; their orders stay as guest orders (the
    billing details are the order's own). Returns ``{"posts": n, "reassigned_to": id or None,
    "orders": n}``: what was theirs."""
    if not actor.can("delete_users"):
        raise CANNOT_DELETE_USER()
    if actor.is_self(user):
        raise CANNOT_CHANGE_SELF()
    if reassign is not None and reassign.id == user.id:
        raise InvalidParams({"reassign": "the posts of a deleted user cannot go to that same user"})
    if user.role == ADMINISTRATOR and not user.disabled:
        _keep_an_administrator(session, user)
    orders = session.execute(select(func.count()).select_from(Order).where(Order.customer_id == user.id)).scalar_one()
    call_action(hooks_of(session).storeplatform_user_deleted, user=user, reassign=reassign)
    if reassign is not None:
        posts = session.execute(update(Post).where(Post.author_id == user.id).values(author_id=reassign.id)
                                .execution_options(synchronize_session=False)).rowcount
    else:
        posts = session.execute(select(func.count()).select_from(Post).where(Post.author_id == user.id)).scalar_one()
    audit(session, "users", "deleted", user.login,
          {"user_id": user.id, "role": user.role, "posts": posts,
           "reassigned_to": reassign.id if reassign is not None else None, "orders": orders})
    # The database's own rules do the rest, in this statement: credentials and sessions go with
    # the user (ON DELETE CASCADE), orders and unassigned posts lose their reference (SET NULL).
    session.delete(user)
    session.flush()
    return {"posts": posts, "reassigned_to": reassign.id if reassign is not None else None, "orders": orders}


def _keep_an_administrator(session, user):
    """Refuse to leave the site without an active administrator: the active administrators are
    locked (in id order, so two demotions at once wait for each other rather than deadlock) and
    another one than ``user`` must remain."""
    active = session.execute(
        select(User.id).where(User.role == ADMINISTRATOR, User.disabled.is_(False)).order_by(User.id)
        .with_for_update()).scalars().all()
    if not [user_id for user_id in active if user_id != user.id]:
        raise LAST_ADMINISTRATOR()


def _end_sessions(session, user):
    # The version first: a login under way holds the user's row (start_session), so this waits
    # for it and then deletes its session too.
    session.execute(update(User).where(User.id == user.id).values(auth_version=User.auth_version + 1)
                    .execution_options(synchronize_session=False))
    ended = session.execute(delete(AuthSession).where(AuthSession.user_id == user.id)
                            .execution_options(synchronize_session=False)).rowcount
    session.expire(user, ["auth_version"])
    return ended


def _revoke_every_key(session, user):
    """Revoke every application password and consumer key of ``user``; returns how many."""
    passwords = session.execute(delete(AppPassword).where(AppPassword.user_id == user.id)
                                .execution_options(synchronize_session=False)).rowcount
    keys = session.execute(delete(ConsumerKey).where(ConsumerKey.user_id == user.id)
                           .execution_options(synchronize_session=False)).rowcount
    return {"app_passwords_revoked": passwords, "consumer_keys_revoked": keys}


def lock_enabled(session, user):
    """Lock ``user``'s row and refuse a disabled user: a credential issued while a disable is
    under way waits for it, and is then refused instead of surviving it."""
    disabled = session.execute(select(User.disabled).where(User.id == user.id).with_for_update()).scalar_one()
    if disabled:
        raise USER_DISABLED()
