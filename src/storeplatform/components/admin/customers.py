"""The Customers page of the admin: the users with the customer role (search, paging), each
with their order count and total spent, and its CSV export. A customer is edited on the Users
pages (``admin/users.py``: the accounts' own rules). Guest orders (no account) are not
customers here: the Orders list finds them by e-mail."""
from storeplatform.components.shop.customers import (COLUMNS, ROLE, customer_conditions, customers_select,
                                                      customers_with_figures_select, order_figures)
from storeplatform.components.shop.models import User
from storeplatform.core.db.counts import count_rows
from storeplatform.core.options import site_options, site_timezone
from .listing import csv_response, export_filename, list_query, page_of
from .pages import AdminPage, admin_view

CUSTOMERS = AdminPage("customers", "Customers", "/customers", "manage_shop", order=22, section="Shop")


@admin_view(CUSTOMERS, template="admin/customers.jinja2")
def list_customers(request):
    query = list_query(request, dates=False)
    total = None if query.search else count_rows(request.db, User, role=ROLE)
    p = page_of(request, query, customers_select((), *COLUMNS), total=total,
                keys=customers_select(customer_conditions(query.search), User.id))
    figures = order_figures(request.db, [r.id for r in p.rows])
    rows = [{**r._asdict(), "orders": figures.get(r.id, (0, None))[0], "spent": figures.get(r.id, (0, None))[1]}
            for r in p.rows]
    return {"title": "Customers", "p": p, "query": query, "rows": rows, "tz": site_timezone(request.db)}


@admin_view(CUSTOMERS, path="/export.csv")
def export_customers(request):
    query = list_query(request, dates=False)
    # What a customer spent is summed in the store's currency, named in the last column.
    header = ["id", "login", "name", "email", "since", "disabled", "orders", "total_spent", "currency"]
    currency = site_options(request.db)["store.currency"]
    return csv_response(request, export_filename("customers", site_timezone(request.db)), header,
                        customers_with_figures_select(customer_conditions(query.search)),
                        lambda r: (*r, currency), money=("total_spent",))
