"""The Products pages of the admin: the list (search by name or SKU, status, paging), its CSV
export, and a product's page whose form saves as REST's product update does (its schema and
cross-field rules, then the same columns), with errors beside the fields."""
from urllib.parse import urlencode

from pyramid.httpexceptions import HTTPNotFound

from storeplatform.core.db import get_by_id
from storeplatform.core.db.counts import count_rows
from storeplatform.core.errors import InvalidParams
from storeplatform.components.shop import schemas
from storeplatform.components.shop.models import Product
from storeplatform.core.options import site_options, site_timezone
from storeplatform.components.shop.products import (STATUSES, current_price, product_conditions,
                                                     create_product, products_select, sale_is_active,
                                                     update_product)
from .forms import form_values, refuse_form
from .guard import admin_redirect
from .listing import csv_response, export_filename, list_query, page_of
from .pages import AdminPage, admin_view

PRODUCTS = AdminPage("products", "Products", "/products", "manage_shop", order=21, section="Shop")
ONE = r"/{id:\d+}"
PRODUCT_PAGE = "admin/product.jinja2"
# The columns the list sorts by, each with its first direction, and the list's own (newest first).
SORTS = {"name": "asc", "price": "asc", "status": "asc", "id": "desc"}
DEFAULT_SORT = ("id", "desc")
STATUS_BADGES = {"publish": "badge-ok", "draft": "badge-warn", "pending": "badge-warn", "private": "",
                 "trash": "badge-bad"}
# The fields the page edits, as REST's body names them (a product's type and parent stay REST's).
FIELDS = ("name", "sku", "status", "regular_price", "sale_price", "sale_from", "sale_to")
LABELS = {"name": "Name", "sku": "SKU", "status": "Status", "regular_price": "Regular price",
          "sale_price": "Sale price", "sale_from": "Sale from (UTC)", "sale_to": "Sale to (UTC)"}


# The admin's columns of the shop's products list (the same statement as REST's).
COLUMNS = (Product.id, Product.name, Product.sku, Product.type, Product.status, Product.regular_price,
           Product.sale_price, Product.sale_from, Product.sale_to)
EXPORT_COLUMNS = (Product.id, Product.name, Product.sku, Product.type, Product.status, Product.parent_id,
                  Product.regular_price, Product.sale_price, Product.sale_from, Product.sale_to,
                  Product.created_at, Product.modified_at)


def _conditions(query):
    return product_conditions(status=query.status, search=query.search)


def _query(request):
    return list_query(request, statuses=STATUSES, dates=False, sorts=SORTS, default_sort=DEFAULT_SORT)


def _sort(query):
    return {"orderby": query.orderby, "order": query.order}


@admin_view(PRODUCTS, template="admin/products.jinja2")
def list_products(request):
    query = _query(request)
    listed = query.status or [status for status in STATUSES if status != "trash"]  # as product_conditions
    total = None if query.search else count_rows(request.db, Product, status=listed)
    p = page_of(request, query, products_select((), *COLUMNS, **_sort(query)), total=total,
                keys=products_select(_conditions(query), Product.id, **_sort(query)))
    return {"title": "Products", "p": p, "query": query, "statuses": STATUSES, "badges": STATUS_BADGES,
            "rows": [{**r._asdict(), "price": current_price(r), "on_sale": sale_is_active(r)} for r in p.rows],
            "bulk_choices": [("trash", "Move to the trash")] + [(s, f"Change status to {s}") for s in STATUSES
                                                                 if s != "trash"],
            "back": urlencode(query.params(page=p.page))}


@admin_view(PRODUCTS, path="/export.csv")
def export_products(request):
    query = _query(request)
    # Prices are in the store's currency, named in the column after them.
    header = ["id", "name", "sku", "type", "status", "parent_id", "regular_price", "sale_price", "currency",
              "sale_from", "sale_to", "created", "modified"]
    currency = site_options(request.db)["store.currency"]
    return csv_response(request, export_filename("products", site_timezone(request.db)), header,
                        products_select(_conditions(query), *EXPORT_COLUMNS, **_sort(query)),
                        lambda r: (*r[:8], currency, *r[8:]),
                        money=("regular_price", "sale_price"))


def _product(request):
    item = get_by_id(request.db, Product, request.matchdict["id"])
    if item is None:
        raise HTTPNotFound("There is no such product.")
    return item


def _shown(item):
    def text(value):
        return "" if value is None else (value.strftime("%Y-%m-%dT%H:%M") if hasattr(value, "strftime") else str(value))

    return {name: text(getattr(item, name)) for name in FIELDS}


def _product_page(request, item, values=None, errors=None):
    """A product's page, or (``item`` None) the page that makes one."""
    return {"title": f"Product {item.name}" if item else "New product", "item": item,
            "values": values or (_shown(item) if item else {"status": "publish"}), "errors": errors or {},
            "labels": LABELS, "statuses": STATUSES, "badges": STATUS_BADGES,
            "price": current_price(item) if item else None, "on_sale": sale_is_active(item) if item else False,
            "tz": site_timezone(request.db)}


@admin_view(PRODUCTS, path="/new", template=PRODUCT_PAGE)
def new_product(request):
    return _product_page(request, None)


@admin_view(PRODUCTS, path="/new", request_method="POST", template=PRODUCT_PAGE)
def create_product_form(request):
    form = form_values(request)
    body = {name: form[name].strip() for name in FIELDS if form.get(name, "").strip()}  # empty: not given
    try:
        item = create_product(request.db, schemas.validate_product(request.db, body))  # as REST's create
    except InvalidParams as exc:
        refuse_form(request)
        return _product_page(request, None, values={name: form.get(name, "") for name in FIELDS}, errors=exc.params)
    return admin_redirect(request, f"/products/{item.id}", notice=f"{item.name} created.")


@admin_view(PRODUCTS, path=ONE + "/trash", request_method="POST", template=PRODUCT_PAGE)
def trash_product(request):
    """To the trash: out of the lists and the storefront, kept for the orders that name it (its
    page restores it by choosing another status)."""
    item = update_product(request.db, _product(request), {"status": "trash"})
    return admin_redirect(request, "/products", notice=f"{item.name} moved to the trash.")


@admin_view(PRODUCTS, path=ONE, template=PRODUCT_PAGE)
def show_product(request):
    return _product_page(request, _product(request))


@admin_view(PRODUCTS, path=ONE, request_method="POST", template=PRODUCT_PAGE)
def save_product(request):
    item = _product(request)
    form = form_values(request)
    body = {name: form[name].strip() for name in FIELDS if name in form}
    try:
        values = schemas.validate_product(request.db, body, item)  # as REST's update
    except InvalidParams as exc:
        refuse_form(request)
        return _product_page(request, item, values={**_shown(item), **body}, errors=exc.params)
    update_product(request.db, item, values)
    return admin_redirect(request, f"/products/{item.id}", notice=f"{item.name} saved.")
