"""The Customers page of the admin: the users with the customer role (search, paging), each
with their order count and total spent, and its CSV export. A customer is edited on the Users
pages (``admin/users.py``: the accounts' own rules). Guest orders (no account) are not
customers here: the Orders list finds them by e-mail."""
from sqlalchemy import case, func, or_, select

from storeplatform.core.db.counts import count_rows
from storeplatform.components.shop.models import Order, User
from storeplatform.core.options import site_timezone
from storeplatform.components.shop.orders import PAID_STATUSES
from .listing import csv_response, export_filename, list_query, page_of, text_contains
from .pages import AdminPage, admin_view

CUSTOMERS = AdminPage("customers", "Customers", "/customers", "manage_shop", order=22, section="Shop")
ROLE = "customer"
SPENT = case((Order.status.in_(PAID_STATUSES), Order.total))


def _keys(query):
    conditions = [User.role == ROLE]
    if query.search:
        conditions.append(or_(*(text_contains(column, query.search)
                                for column in (User.login, User.email, User.display_name))))
    return select(User.id).where(*conditions).order_by(User.id.desc())


def order_figures(session, ids):
    """{customer id: (orders, spent)} of ``ids``, in one statement (their orders only: an index):
    every order of theirs, and the total of the paid ones (``PAID_STATUSES``: what they spent)."""
    if not ids:
        return {}
    rows = session.execute(select(Order.customer_id, func.count(), func.sum(SPENT))
                           .where(Order.customer_id.in_(ids)).group_by(Order.customer_id))
    return {customer: (n, total) for customer, n, total in rows}


@admin_view(CUSTOMERS, template="admin/customers.jinja2")
def list_customers(request):
    query = list_query(request, dates=False)
    stmt = select(User.id, User.login, User.display_name, User.email, User.created_at, User.disabled) \
        .order_by(User.id.desc())
    total = None if query.search else count_rows(request.db, User, role=ROLE)
    p = page_of(request, query, stmt, total=total, keys=_keys(query))
    figures = order_figures(request.db, [r.id for r in p.rows])
    rows = [{**r._asdict(), "orders": figures.get(r.id, (0, None))[0], "spent": figures.get(r.id, (0, None))[1]}
            for r in p.rows]
    return {"title": "Customers", "p": p, "query": query, "rows": rows, "tz": site_timezone(request.db)}


@admin_view(CUSTOMERS, path="/export.csv")
def export_customers(request):
    query = list_query(request, dates=False)
    figures = select(Order.customer_id, func.count().label("orders"), func.sum(SPENT).label("spent")) \
        .where(Order.customer_id.is_not(None)).group_by(Order.customer_id).subquery()
    stmt = select(User.id, User.login, User.display_name, User.email, User.created_at, User.disabled,
                  func.coalesce(figures.c.orders, 0), figures.c.spent) \
        .outerjoin(figures, figures.c.customer_id == User.id) \
        .where(User.id.in_(_keys(query).order_by(None))).order_by(User.id.desc())
    header = ["id", "login", "name", "email", "since", "disabled", "orders", "total_spent"]
    return csv_response(request, export_filename("customers", site_timezone(request.db)), header, stmt)
