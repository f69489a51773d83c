"""Products: prices in effect, sale windows, variations."""
from bisect import bisect_left, bisect_right

from sqlalchemy import select

from storeplatform.core.cache import note_state
from storeplatform.core.db.generations import cached_by_generation
from storeplatform.core.db.types import utcnow
from storeplatform.core.values import id_in_range
from .models import Product

TYPES = ("simple", "variable", "variation")
STATUSES = ("publish", "draft", "pending", "private")


def sale_is_active(product, now=None):
    if product.sale_price is None:
        return False
    note_state(sale_epoch)  # a cached answer that asked holds while the same windows are open
    now = now or utcnow()
    if product.sale_from is not None and now < product.sale_from:
        return False
    if product.sale_to is not None and now > product.sale_to:
        return False
    return True


def sale_epoch(session, now):
    """How many sale windows have opened or closed by ``now``, over every product: between two
    instants with the same epoch no product's sale started or ended, so that what was computed
    from prices at one of them holds at the other. A window opens at ``sale_from`` and closes
    just after ``sale_to`` (``sale_is_active``). The instants are read once per ``store``
    generation."""
    def load():
        rows = session.execute(select(Product.sale_from, Product.sale_to).where(
            Product.sale_price.is_not(None), (Product.sale_from.is_not(None)) | (Product.sale_to.is_not(None)))).all()
        return (sorted(start for start, _ in rows if start is not None),
                sorted(end for _, end in rows if end is not None))

    starts, ends = cached_by_generation(session, "store", "sale instants", load)
    return bisect_right(starts, now) + bisect_left(ends, now)


def current_price(product, now=None):
    """The price a customer pays now: the sale price in its window, else the regular price."""
    if sale_is_active(product, now):
        return product.sale_price
    return product.regular_price


def product_problems(session, values, item=None):
    """What is wrong with a product body across fields and rows: ``{field: message}``.
    ``values`` is the raw body (values of another JSON kind are the schema's business and are
    passed over), ``item`` the stored product on an update. A variation needs the id of a
    variable product as its parent (named on ``parent_id``, or on ``type`` when the parent was
    not sent), only a variation has a parent, and a SKU belongs to one product."""
    errors = {}
    ptype = values.get("type", item.type if item is not None else "simple")
    parent_id = values.get("parent_id", item.parent_id if item is not None else None)
    if ptype == "variation":
        parent = None
        if isinstance(parent_id, int) and not isinstance(parent_id, bool) and id_in_range(parent_id):
            parent = session.execute(select(Product.type).where(Product.id == parent_id)).scalar()
        if parent != "variable":
            errors["parent_id" if "parent_id" in values else "type"] = \
                "a variation needs parent_id of a variable product"
    elif isinstance(ptype, str) and values.get("parent_id"):
        errors["parent_id"] = "only a variation has a parent"
    sku = values.get("sku")
    if isinstance(sku, str) and sku:
        clash = session.execute(select(Product.id).where(Product.sku == sku)).scalar()
        if clash is not None and (item is None or clash != item.id):
            errors["sku"] = "another product has this SKU"
    return errors
