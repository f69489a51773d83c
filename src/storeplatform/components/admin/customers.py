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
from storeplatform.components.shop.orders import GUEST_EMAIL
from storeplatform.core.db.counts import count_rows
from storeplatform.core.options import site_options, site_timezone
from storeplatform.core.rest.pagination import page_rows
from .listing import Pager, csv_response, export_filename, keyed_rows, list_query, page_key
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
    after, before = page_key(request)
    db = request.db
    # The accounts' total is the count the database keeps (counted when searched). The guests'
    # is counted only when searched (their matching orders: the trigram index); unsearched, it
    # would read every guest order, so it is not counted, and their pages are keyed (below).
    account_keys = customers_select(customer_conditions(search), User.id)
    accounts = 0 if kind == "guests" else count_rows(db, User, role=ROLE) if not search else \
        db.execute(select(func.count()).select_from(account_keys.order_by(None).subquery())).scalar_one()
    guests = 0 if kind == "accounts" else count_guests(db, guest_conditions(search)) if search else None

    def account_rows(offset, limit, total):  # a walk of the accounts' ids, then their figures
        found = page_rows(request, customers_select((), *COLUMNS), account_keys, offset, limit, total)
        figures = order_figures(db, [r.id for r in found])
        rows = []
        for r in found:
            orders, spent, first, last = figures.get(r.id, (0, None, None, None))
            rows.append({**r._asdict(), "guest": False, "orders": orders, "spent": spent, "first_order": first,
                         "last_order": last})
        return rows

    def url(number, **key):
        return request.path_url + "?" + urlencode(query.params(page=number, **key))

    stmt = guests_select(guest_conditions(search))
    if guests is None:
        p = uncounted_page(request, query, stmt, accounts, after, before, account_rows, url)
    else:  # counted: numbered pages, the accounts then the guests, each read from the nearer end
        total = accounts + guests
        pages = max(1, -(-total // query.per_page))
        page = min(query.page, pages)
        offset = (page - 1) * query.per_page
        rows = account_rows(offset, query.per_page, accounts) if offset < accounts else []
        left, guest_offset = query.per_page - len(rows), max(0, offset - accounts)
        found = page_rows(request, stmt, None, guest_offset, left, guests) if left and guest_offset < guests else []
        p = Pager(rows=rows + guest_rows(found), total=total, page=page, pages=pages, per_page=query.per_page,
                  prev_url=url(page - 1) if page > 1 else None, next_url=url(page + 1) if page < pages else None)
    return {"title": "Customers", "p": p, "query": query, "rows": p.rows, "kinds": KINDS, "accounts": accounts,
            "tz": site_timezone(db)}


def guest_rows(found):
    return [{"guest": True, "email": r.email, "display_name": r.name, "orders": r.orders, "spent": r.spent,
             "first_order": r.first_order, "last_order": r.last_order} for r in found]


def uncounted_page(request, query, stmt, accounts, after, before, account_rows, url):
    """A page of the list whose guests are not counted (unsearched): numbered while it holds
    accounts, up to the page where the guests start (the accounts' last, filled with the first
    guests: ``start``); the guests' pages after it keyed by e-mail address (``page_key``: Next
    carries the last address shown, Previous the first; ``page`` is then only the number shown).
    A page reads its own guests only, one more to know whether a next page exists: a walk of
    ix_orders_guest_email from the key (``keyed_rows``), never the guests before it. A page
    number past ``start`` without a key is ``start`` (pages are not counted); a key past the last
    guest is the guests' last page, one before the first their first page (``start``)."""
    db, per_page = request.db, query.per_page
    start = accounts // per_page + 1
    found = None
    if after is not None:
        found, more = keyed_rows(db, stmt, GUEST_EMAIL, per_page, after=after)
        if not found:  # past the last guest: the last page, read from the end
            found, back = keyed_rows(db, stmt, GUEST_EMAIL, per_page, from_end=True)
            found = found if back else None
    elif before is not None:
        found, back = keyed_rows(db, stmt, GUEST_EMAIL, per_page, before=before)
        found = found if back else None  # no more before them: the guests' first page
        more = bool(found) and keyed_rows(db, stmt, GUEST_EMAIL, 0, after=found[-1].email)[1]
    if found:
        page = max(query.page, start + 1)
        return Pager(rows=guest_rows(found), total=None, page=page, pages=page + 1 if more else page,
                     per_page=per_page, prev_url=url(page - 1, before=found[0].email),
                     next_url=url(page + 1, after=found[-1].email) if more else None)
    page = min(query.page, start)
    offset = (page - 1) * per_page
    rows = account_rows(offset, per_page, accounts) if offset < accounts else []
    if offset + per_page < accounts:
        found, more = [], True
    else:  # the guests start on this page (or the next, when the accounts end with it)
        found, more = keyed_rows(db, stmt, GUEST_EMAIL, per_page - len(rows))
    next_url = (url(page + 1, after=found[-1].email) if found else url(page + 1)) if more else None
    return Pager(rows=rows + guest_rows(found), total=None, page=page, pages=page + 1 if more else page,
                 per_page=per_page, prev_url=url(page - 1) if page > 1 else None, next_url=next_url)


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
