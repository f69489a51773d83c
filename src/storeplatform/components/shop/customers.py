"""Customers: the users with the customer role, and the guest buyers (orders without an account,
known by their billing e-mail address lower-cased and trimmed: ``GUEST_EMAIL``), each with their
order count, what they spent and their first and last order (the admin's Customers page and its
export read them here)."""
from sqlalchemy import Boolean, Integer, String, case, false, func, null, or_, select, true, union_all

from storeplatform.core.db.text_search import contains_pattern, text_contains
from storeplatform.core.db.types import UTCDateTime

from .models import Order, User
from .orders import BILLING_FIRST, BILLING_LAST, BILLING_TEXT, GUEST_EMAIL, PAID_STATUSES

ROLE = "customer"
SPENT = case((Order.status.in_(PAID_STATUSES), Order.total))
# A customer's row of a table.
COLUMNS = (User.id, User.login, User.display_name, User.email, User.created_at, User.disabled)
# Who the list shows: every buyer (""), the customers' accounts, or the guest buyers.
KINDS = ("accounts", "guests")
# A guest buyer's name: the billing name of their orders (the greatest, when they differ).
GUEST_NAME = func.max(func.trim(func.coalesce(BILLING_FIRST, "") + " " + func.coalesce(BILLING_LAST, "")))


def customer_conditions(search=None):
    """Customers; with ``search``, those whose login, e-mail address or name holds it."""
    conditions = [User.role == ROLE]
    if search:
        conditions.append(or_(*(text_contains(column, search) for column in (User.login, User.email, User.display_name))))
    return conditions


def customers_select(conditions, *columns):
    """``columns`` of the customers matching ``conditions``, newest first (``User.id`` alone: a
    page walk's keys)."""
    return select(*columns).where(*conditions).order_by(User.id.desc())


def order_figures(session, ids):
    """{customer id: (orders, spent, first order, last order)} of ``ids``, in one statement (their
    orders only: an index): every order of theirs, the total of the paid ones (``PAID_STATUSES``:
    what they spent), and when they ordered first and last."""
    if not ids:
        return {}
    rows = session.execute(select(Order.customer_id, func.count(), func.sum(SPENT), func.min(Order.created_at),
                                  func.max(Order.created_at))
                           .where(Order.customer_id.in_(ids)).group_by(Order.customer_id))
    return {customer: tuple(figures) for customer, *figures in rows}


def guest_conditions(search=None):
    """The guest buyers' orders (no account, an e-mail address: an order without either is nobody's
    to list); with ``search``, those of the guests who have an order whose billing name or e-mail
    address holds it (the trigram index on PostgreSQL), all their orders (their figures whole)."""
    conditions = [Order.customer_id.is_(None), GUEST_EMAIL != ""]
    if search:
        found = select(GUEST_EMAIL).where(Order.customer_id.is_(None),
                                          BILLING_TEXT.like(contains_pattern(search), escape="\\"))
        conditions.append(GUEST_EMAIL.in_(found.correlate(None)))
    return conditions


def guests_select(conditions):
    """The guest buyers of ``conditions``' orders, by e-mail address A to Z (a walk of the
    index ix_orders_guest_email), each as (email, name, orders, spent, first order, last order),
    in one statement."""
    return select(GUEST_EMAIL.label("email"), GUEST_NAME.label("name"), func.count().label("orders"),
                  func.sum(SPENT).label("spent"), func.min(Order.created_at).label("first_order"),
                  func.max(Order.created_at).label("last_order")) \
        .where(*conditions).group_by(GUEST_EMAIL).order_by(GUEST_EMAIL)


def count_guests(session, conditions):
    """How many guest buyers ``conditions``' orders have, in one statement (it reads every order
    of theirs: the admin's list counts them only when searched)."""
    return session.execute(select(func.count(func.distinct(GUEST_EMAIL))).where(*conditions)).scalar_one()


def buyers_export_select(search=None, kind=""):
    """Every buyer of the list (``kind``: one of ``KINDS``, "" for both) as the export's rows, in
    one statement: (id, account, login, name, email, since, disabled, orders, spent, first order,
    last order); the accounts first (newest first), then the guests by e-mail address (no id,
    login, since or disabled)."""
    figures = select(Order.customer_id, func.count().label("orders"), func.sum(SPENT).label("spent"),
                     func.min(Order.created_at).label("first_order"), func.max(Order.created_at).label("last_order")) \
        .where(Order.customer_id.is_not(None)).group_by(Order.customer_id).subquery()
    accounts = select(User.id.label("id"), true().label("account"), User.login, User.display_name.label("name"),
                      User.email.label("email"), User.created_at, User.disabled,
                      func.coalesce(figures.c.orders, 0).label("orders"), figures.c.spent.label("spent"),
                      figures.c.first_order, figures.c.last_order) \
        .outerjoin(figures, figures.c.customer_id == User.id).where(*customer_conditions(search))
    guests = select(null().cast(Integer).label("id"), false().label("account"), null().cast(String).label("login"),
                    GUEST_NAME.label("name"), GUEST_EMAIL.label("email"), null().cast(UTCDateTime).label("created_at"),
                    null().cast(Boolean).label("disabled"), func.count().label("orders"),
                    func.sum(SPENT).label("spent"), func.min(Order.created_at).label("first_order"),
                    func.max(Order.created_at).label("last_order")) \
        .where(*guest_conditions(search)).group_by(GUEST_EMAIL)
    if kind == "accounts":
        return accounts.order_by(User.id.desc())
    if kind == "guests":
        return guests.order_by(GUEST_EMAIL)
    both = union_all(accounts, guests).subquery()
    return select(both).order_by(both.c.account.desc(), both.c.id.desc(), both.c.email)
