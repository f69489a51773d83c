"""store/v1 products: public reads of published products, writes with manage_shop."""
from datetime import timezone

from sqlalchemy import or_, select

from ...auth import user_can
from ...db import get_by_id
from ...errors import InvalidParams
from ...rest import Service, paginate
from .. import schemas
from ..errors import PRODUCT_INVALID_ID
from ..models import Product
from ..money import currency_format, format_money
from ..products import current_price, sale_is_active

products = Service("store/v1", "/products", name="products", description="Products.")
product = Service("store/v1", r"/products/{id:\d+}", name="product", description="One product.")


def product_json(request, item, fmt=None):
    fmt = fmt or currency_format(request.db)
    price = current_price(item)
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
        "on_sale": sale_is_active(item),
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


def _product_values(request, values, item=None):
    """Check the cross-field rules of a product before anything is written."""
    errors = {}
    ptype = values.get("type", item.type if item else "simple")
    parent_id = values.get("parent_id", item.parent_id if item else None)
    if ptype == "variation":
        parent = get_by_id(request.db, Product, parent_id) if parent_id else None
        if parent is None or parent.type != "variable":
            errors["parent_id"] = "a variation needs parent_id of a variable product"
    elif "parent_id" in values and values["parent_id"]:
        errors["parent_id"] = "only a variation has a parent"
    for key in ("sale_from", "sale_to"):
        if key in values and values[key].tzinfo is None:
            values[key] = values[key].replace(tzinfo=timezone.utc)
    if "sku" in values:
        values["sku"] = values["sku"] or None
        if values["sku"]:
            clash = request.db.execute(select(Product.id).where(Product.sku == values["sku"])).scalar()
            if clash is not None and (item is None or clash != item.id):
                errors["sku"] = "another product has this SKU"
    if errors:
        raise InvalidParams(errors)
    return values


@products.get(query=schemas.ProductListQuery())
def list_products(request):
    v = request.validated
    stmt = select(Product).order_by(Product.id.desc())
    if user_can(request, "manage_shop"):
        if "status" in v:
            stmt = stmt.where(Product.status == v["status"])
    else:
        stmt = stmt.where(Product.status == "publish")
    if "type" in v:
        stmt = stmt.where(Product.type == v["type"])
    if "parent" in v:
        stmt = stmt.where(Product.parent_id == v["parent"])
    if v.get("search"):
        like = f"%{v['search']}%"
        stmt = stmt.where(or_(Product.name.ilike(like), Product.sku.ilike(like)))
    fmt = currency_format(request.db)
    return [product_json(request, p, fmt) for p in paginate(request, stmt)]


@products.post(permission="manage_shop", body=schemas.ProductBody())
def create_product(request):
    item = Product(**_product_values(request, dict(request.validated)))
    request.db.add(item)
    request.db.flush()
    request.response.status = 201
    request.response.headers["Location"] = request.rest_url("store/v1", f"/products/{item.id}")
    return product_json(request, item)


@product.get()
def get_product(request):
    return product_json(request, _load_product(request))


@product.put(permission="manage_shop", body=schemas.ProductUpdate)
def update_product(request):
    item = _load_product(request)
    for key, value in _product_values(request, dict(request.validated), item).items():
        setattr(item, key, value)
    request.db.flush()
    return product_json(request, item)


@product.delete(permission="manage_shop")
def delete_product(request):
    item = _load_product(request)
    previous = product_json(request, item)
    request.db.delete(item)
    request.db.flush()
    return {"deleted": True, "previous": previous}
