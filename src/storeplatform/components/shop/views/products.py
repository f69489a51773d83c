"""store/v1 products: public reads of published products, writes with manage_shop."""
from storeplatform.core.auth import user_can
from storeplatform.core.db import get_by_id
from storeplatform.core.db.types import utcnow
from storeplatform.core.rest import Service, json_body, paginate
from storeplatform.core.rest.types import once
from .. import schemas
from ..errors import PRODUCT_INVALID_ID
from ..models import Product
from ..money import currency_format, format_money
from .. import products as catalogue
from ..products import current_price, product_conditions, product_problems, products_select, sale_is_active

products = Service("store/v1", "/products", name="products", description="Products.")
product = Service("store/v1", r"/products/{id:\d+}", name="product", description="One product.")


def product_json(request, item, fmt=None, now=None):
    fmt = fmt or currency_format(request.db)
    now = now or utcnow()
    price = current_price(item, now)
    return {
        "id": item.id,
        "name": item.name,
        "sku": item.sku or "",
        "type": item.type,
        "status": item.status,
        "parent_id": item.parent_id or 0,
        "price": price,
        "price_formatted": format_money(price, fmt) if price is not None else None,
        "regular_price": item.regular_price,
        "sale_price": item.sale_price,
        "sale_from": item.sale_from.isoformat() if item.sale_from else None,
        "sale_to": item.sale_to.isoformat() if item.sale_to else None,
        "on_sale": sale_is_active(item, now),
        "meta": item.meta or {},
        "date_created": item.created_at.isoformat(),
        "date_modified": item.modified_at.isoformat(),
        "_links": {"self": [{"href": request.rest_url("store/v1", f"/products/{item.id}")}]},
    }


def _load_product(request):
    item = get_by_id(request.db, Product, request.validated["id"])
    if item is None or (item.status != "publish" and not user_can(request, "manage_shop")):
        raise PRODUCT_INVALID_ID()
    return item


def product_checks(request):
    """The bindings of a product body: its rules across fields and rows (parent, SKU), worked
    out once, on first use, from the raw body and the stored product."""
    def problems():
        item = get_by_id(request.db, Product, request.validated["id"]) if "id" in request.validated else None
        return product_problems(request.db, json_body(request), item)

    return {"product_rules": once(problems)}


@products.get(query=schemas.ProductListQuery(), cache="public")
def list_products(request):
    v = request.validated
    # Whoever may not manage the shop sees the published products only.
    status = v.get("status") if user_can(request, "manage_shop") else "publish"
    stmt = products_select(product_conditions(status=status, type=v.get("type"), parent=v.get("parent"),
                                              search=v.get("search")))
    fmt, now = currency_format(request.db), utcnow()
    return [product_json(request, p, fmt, now) for p in paginate(request, stmt)]


@products.post(permission="manage_shop", body=schemas.ProductBody(), bind=product_checks)
def create_product(request):
    item = catalogue.create_product(request.db, request.validated)
    request.response.status = 201
    request.response.headers["Location"] = request.rest_url("store/v1", f"/products/{item.id}")
    return product_json(request, item)


@product.get(cache="public")
def get_product(request):
    return product_json(request, _load_product(request))


@product.put(permission="manage_shop", body=schemas.ProductUpdate, bind=product_checks)
def update_product(request):
    item = catalogue.update_product(request.db, _load_product(request), request.validated)
    return product_json(request, item)


@product.delete(permission="manage_shop")
def delete_product(request):
    item = _load_product(request)
    previous = product_json(request, item)
    catalogue.delete_product(request.db, item)
    return {"deleted": True, "previous": previous}
