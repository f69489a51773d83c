"""The Customers page of the admin: every buyer (search, paging, a filter: all buyers, the
customers' accounts, the guests), each with their order count, total spent and first and last
order, and its CSV export. The accounts (users with the customer role, newest first) come first,
then the guest buyers (orders without an account, one per billing e-mail address lower-cased and
trimmed, A to Z). A customer is edited on the Users pages (``admin/users.py``: the accounts' own
rules); a guest's orders are the Orders list's ``guest`` filter."""
from urllib.parse import urlencode

from pyramid.httpexceptions import HTTPBadRequest
from sqlalchemy import func, select

from storeplatform.components.shop.customers import (COLUMNS, KINDS, ROLE, buyers_export_select, count_guests,
                                                      customer_conditions, customers_select, guest_conditions,
                                                      guests_select, order_figures)
from storeplatform.components.shop.models import User
from storeplatform.core.db.counts import count_rows
from storeplatform.core.options import site_options, site_timezone
from storeplatform.core.rest.pagination import page_rows
from .listing import Pager, csv_response, export_filename, list_query
from .pages import AdminPage, admin_view

CUSTOMERS = AdminPage("customers", "Customers", "/customers", "manage_shop", order=22, section="Shop")


def customers_query(request):
    """The list's query; ``kind`` (extra): "" (every buyer, the default), accounts or guests."""
    query = list_query(request, dates=False, extra=("kind",))
    kind = query.extra["kind"]
    if kind and kind not in KINDS:
        raise HTTPBadRequest(f"This list cannot be shown: kind must be one of {', '.join(KINDS)} (or empty for "
                             f"every buyer), not {kind[:20]!r}.")
    return query


@admin_view(CUSTOMERS, template="admin/customers.jinja2")
def list_customers(request):
    query = customers_query(request)
    kind, search = query.extra["kind"], query.search
    db = request.db
    # The accounts' total is the count the database keeps (counted when searched). The guests'
    # is counted only when searched (their matching orders: the trigram index); unsearched, it
    # would read every guest order, so it is not counted: the page reads one guest more than it
    # shows to know whether a next page exists.
    account_keys = customers_select(customer_conditions(search), User.id)
    accounts = 0 if kind == "guests" else count_rows(db, User, role=ROLE) if not search else \
        db.execute(select(func.count()).select_from(account_keys.order_by(None).subquery())).scalar_one()
    guests = 0 if kind == "accounts" else count_guests(db, guest_conditions(search)) if search else None
    total = None if guests is None else accounts + guests
    pages = None if total is None else max(1, -(-total // query.per_page))
    page = query.page if pages is None else min(query.page, pages)
    offset = (page - 1) * query.per_page
    rows = []
    if offset < accounts:  # the page's accounts: a walk of their ids, then their figures
        found = page_rows(request, customers_select((), *COLUMNS), account_keys, offset, query.per_page, accounts)
        figures = order_figures(db, [r.id for r in found])
        for r in found:
            orders, spent, first, last = figures.get(r.id, (0, None, None, None))
            rows.append({**r._asdict(), "guest": False, "orders": orders, "spent": spent, "first_order": first,
                         "last_order": last})
    left, guest_offset = query.per_page - len(rows), max(0, offset - accounts)
    more = offset + query.per_page < accounts
    stmt = guests_select(guest_conditions(search))
    if guests is None and not more:  # then the guests, with their figures, in one statement (one more)
        found = db.execute(stmt.limit(left + 1).offset(guest_offset)).all()
        more, found = len(found) > left, found[:left]
    elif left and guest_offset < (guests or 0):  # counted: read as every list, from the nearer end
        found = page_rows(request, stmt, None, guest_offset, left, guests)
    else:
        found = []
    rows += [{"guest": True, "email": r.email, "display_name": r.name, "orders": r.orders, "spent": r.spent,
              "first_order": r.first_order, "last_order": r.last_order} for r in found]
    if pages is None:
        pages = page + 1 if more else page

    def url(number):
        return request.path_url + "?" + urlencode(query.params(page=number))

    p = Pager(rows=rows, total=total, page=page, pages=pages, per_page=query.per_page,
              prev_url=url(page - 1) if page > 1 else None, next_url=url(page + 1) if page < pages else None)
    return {"title": "Customers", "p": p, "query": query, "rows": rows, "kinds": KINDS, "accounts": accounts,
            "tz": site_timezone(db)}


@admin_view(CUSTOMERS, path="/export.csv")
def export_customers(request):
    query = customers_query(request)
    # What a customer spent is summed in the store's currency, named in the last column.
    header = ["id", "account", "login", "name", "email", "since", "disabled", "orders", "total_spent", "first_order",
              "last_order", "currency"]
    currency = site_options(request.db)["store.currency"]
    return csv_response(request, export_filename("customers", site_timezone(request.db)), header,
                        buyers_export_select(query.search, query.extra["kind"]),
                        lambda r: (*r, currency), money=("total_spent",))
