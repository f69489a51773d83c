"""Customers: the users with the customer role, each with their order count and what they spent
(the admin's Customers page and its export read them here)."""
from sqlalchemy import case, func, or_, select

from storeplatform.core.db.text_search import text_contains

from .models import Order, User
from .orders import PAID_STATUSES

ROLE = "customer"
SPENT = case((Order.status.in_(PAID_STATUSES), Order.total))
# A customer's row of a table.
COLUMNS = (User.id, User.login, User.display_name, User.email, User.created_at, User.disabled)


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
    """{customer id: (orders, spent)} of ``ids``, in one statement (their orders only: an index):
    every order of theirs, and the total of the paid ones (``PAID_STATUSES``: what they spent)."""
    if not ids:
        return {}
    rows = session.execute(select(Order.customer_id, func.count(), func.sum(SPENT))
                           .where(Order.customer_id.in_(ids)).group_by(Order.customer_id))
    return {customer: (n, total) for customer, n, total in rows}


def customers_with_figures_select(conditions):
    """The customers matching ``conditions`` with their order count and spent total, in one
    statement (an export's: every customer, not a page of them)."""
    figures = select(Order.customer_id, func.count().label("orders"), func.sum(SPENT).label("spent")) \
        .where(Order.customer_id.is_not(None)).group_by(Order.customer_id).subquery()
    return select(*COLUMNS, func.coalesce(figures.c.orders, 0), figures.c.spent) \
        .outerjoin(figures, figures.c.customer_id == User.id).where(*conditions).order_by(User.id.desc())
