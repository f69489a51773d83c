"""The Products pages of the admin: the list (search by name or SKU, status, paging), its CSV
export, and a product's page whose form saves as REST's product update does (its schema and
cross-field rules, then the same columns), with errors beside the fields."""
from pyramid.httpexceptions import HTTPNotFound

from storeplatform.core.db import get_by_id
from storeplatform.core.db.counts import count_rows
from storeplatform.core.errors import InvalidParams
from storeplatform.components.shop import schemas
from storeplatform.components.shop.models import Product
from storeplatform.core.options import site_timezone
from storeplatform.components.shop.products import (STATUSES, current_price, product_conditions,
                                                     products_select, sale_is_active, update_product)
from .forms import form_values, refuse_form
from .guard import admin_redirect
from .listing import csv_response, export_filename, list_query, page_of
from .pages import AdminPage, admin_view

PRODUCTS = AdminPage("products", "Products", "/products", "manage_shop", order=21, section="Shop")
ONE = r"/{id:\d+}"
PRODUCT_PAGE = "admin/product.jinja2"
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


@admin_view(PRODUCTS, template="admin/products.jinja2")
def list_products(request):
    query = list_query(request, statuses=STATUSES, dates=False)
    total = None if query.search else count_rows(request.db, Product, **({"status": query.status} if query.status else {}))
    p = page_of(request, query, products_select((), *COLUMNS), total=total,
                keys=products_select(_conditions(query), Product.id))
    return {"title": "Products", "p": p, "query": query, "statuses": STATUSES, "badges": STATUS_BADGES,
            "rows": [{**r._asdict(), "price": current_price(r), "on_sale": sale_is_active(r)} for r in p.rows]}


@admin_view(PRODUCTS, path="/export.csv")
def export_products(request):
    query = list_query(request, statuses=STATUSES, dates=False)
    header = ["id", "name", "sku", "type", "status", "parent_id", "regular_price", "sale_price", "sale_from",
              "sale_to", "created", "modified"]
    return csv_response(request, export_filename("products", site_timezone(request.db)), header,
                        products_select(_conditions(query), *EXPORT_COLUMNS))


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
    return {"title": f"Product {item.name}", "item": item, "values": values or _shown(item), "errors": errors or {},
            "labels": LABELS, "statuses": STATUSES, "badges": STATUS_BADGES, "price": current_price(item),
            "on_sale": sale_is_active(item), "tz": site_timezone(request.db)}


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
