"""Accounts in bulk (#43): several users read, given a role or deleted as one change, through
``accounts``' own functions (their rules, their audit entries, one per user), for the admin's
Users list and any other front end that acts on many users at once.

A bulk change is all or nothing: the functions that change raise at the first refusal, and the
caller aborts its transaction (nothing of the batch is kept). The rule of the last administrator
is checked for the whole batch before the first write, so that its refusal names every
administrator the batch would remove, rather than the one that happened to come last.
"""
from sqlalchemy import func, select

from storeplatform.core.db.counts import count_rows_by
from storeplatform.core.errors import InvalidParams
from storeplatform.core.values import id_in_range

from . import accounts
from .accounts import ADMINISTRATOR
from .errors import LAST_ADMINISTRATOR
from .models import Order, Post, User


def users_by_ids(session, actor, ids):
    """``{id: User}`` of the users among ``ids`` that ``actor`` may see, read in one statement;
    an id of no user, or of a user the actor may not see, is absent (as ``get_user`` answers
    404 for both)."""
    wanted = sorted({i for i in ids if id_in_range(i)})
    if not wanted:
        return {}
    users = session.execute(select(User).where(User.id.in_(wanted))).scalars()
    return {user.id: user for user in users if accounts.may_view(actor, user)}


def role_counts(session):
    """``{role: n}``: the users of each role (disabled ones included), from the counts the
    database keeps (one statement, whatever the number of users); a role nobody has is absent."""
    return count_rows_by(session, User, "role")


def holdings(session, user_ids):
    """``{id: (posts, orders)}`` of the users ``user_ids``: what deleting them leaves (as
    ``accounts.user_holdings`` for one), in two statements."""
    ids = sorted(set(user_ids))
    counted = {i: [0, 0] for i in ids}
    if not ids:
        return {}
    for place, (model, column) in enumerate(((Post, Post.author_id), (Order, Order.customer_id))):
        for user_id, n in session.execute(select(column, func.count()).where(column.in_(ids)).group_by(column)):
            counted[user_id][place] = n
    return {i: tuple(n) for i, n in counted.items()}


def refuse_leaving_no_administrator(session, users):
    """``rest_user_last_administrator`` (409) when ``users``, demoted or deleted together, are
    every active administrator of the site; its message names them."""
    leaving = {user.id: user.login for user in users if user.role == ADMINISTRATOR and not user.disabled}
    if not leaving:
        return
    active = set(session.execute(select(User.id).where(User.role == ADMINISTRATOR,
                                                       User.disabled.is_(False))).scalars())
    if active <= set(leaving):
        names = sorted(leaving.values())
        who = names[0] + " is" if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1] + " are"
        raise LAST_ADMINISTRATOR(f"{LAST_ADMINISTRATOR.message} {who} every active administrator the site has.")


def set_roles(session, actor, users, role):
    """Give ``role`` to each of ``users`` (``accounts.update_user``: its rules, its audit entry,
    the sessions it ends); a user who has it already is left as is. Returns the users changed.
    Raises at the first refusal: abort the transaction."""
    changing = [user for user in users if user.role != role]
    if role != ADMINISTRATOR:
        refuse_leaving_no_administrator(session, changing)
    for user in changing:
        accounts.update_user(session, actor, user, role=role)
    return changing


def delete_users(session, actor, users, *, reassign=None):
    """Delete each of ``users`` (``accounts.delete_user``: its rules, its audit entry, the
    plugins' ``storeplatform_user_deleted``); their posts go to ``reassign`` (a ``User`` not
    among them) or stay without an author. Returns ``{"users", "posts", "orders"}``: how many
    users were deleted and how many posts and orders were theirs. Raises at the first refusal:
    abort the transaction."""
    if reassign is not None and reassign.id in {user.id for user in users}:
        raise InvalidParams({"reassign": "the posts cannot go to a user who is deleted with them"})
    refuse_leaving_no_administrator(session, users)
    done = {"users": 0, "posts": 0, "orders": 0}
    for user in users:
        left = accounts.delete_user(session, actor, user, reassign=reassign)
        done["users"] += 1
        done["posts"] += left["posts"]
        done["orders"] += left["orders"]
    return done
