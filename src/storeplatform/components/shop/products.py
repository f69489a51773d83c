"""Products: the lists' statements (REST's and the admin's), prices in effect, sale windows,
variations, the values a product body is stored as, and making, changing and deleting one (REST,
the admin and plugins alike: the same rules and the same actions)."""
from bisect import bisect_left, bisect_right
from datetime import timezone

from sqlalchemy import or_, select

from storeplatform.core.cache import cached, note_state
from storeplatform.core.db import hooks_of
from storeplatform.core.db.text_search import text_contains
from storeplatform.core.plugins import call_action
from storeplatform.core.db.types import utcnow
from storeplatform.core.values import id_in_range
from .models import Product

TYPES = ("simple", "variable", "variation")
STATUSES = ("publish", "draft", "pending", "private", "trash")


def product_conditions(*, status=None, type=None, parent=None, search=None):
    """The conditions of a products list: a status (``STATUSES``, or ``"publish"`` for whoever
    may not manage the shop; none: every status but the trash, which is asked for by name), a
    type, a parent's id, and a text in the name or SKU (its wildcards taken as typed)."""
    conditions = [Product.status == status if status else Product.status != "trash"]
    if type:
        conditions.append(Product.type == type)
    if parent is not None:
        conditions.append(Product.parent_id == parent)
    if search:
        conditions.append(or_(text_contains(Product.name, search), text_contains(Product.sku, search)))
    return conditions


# What a list of products sorts by (the admin's ``orderby``), each ending with the id (a total
# order, which a page walk needs) and read from an index in that order (``Product``'s). The
# price is the regular price (a sale's price is not a column an index can hold).
ORDERBY = {"id": (Product.id,), "name": (Product.name, Product.id), "price": (Product.regular_price, Product.id),
           "status": (Product.status, Product.id)}


def products_select(conditions, *columns, orderby="id", order="desc"):
    """The products matching ``conditions``, newest first (or by ``orderby``, a key of
    ``ORDERBY``, in ``order``): whole products (REST), or ``columns`` of them (the admin's table
    and export; ``Product.id`` alone: a page walk's keys)."""
    return select(*(columns or (Product,))).where(*conditions) \
        .order_by(*(c.desc() if order == "desc" else c.asc() for c in ORDERBY[orderby]))


def product_values(values):
    """Validated values of a product body as the columns hold them: sale dates in UTC, an empty
    SKU none."""
    for key in ("sale_from", "sale_to"):
        if key in values and values[key].tzinfo is None:
            values[key] = values[key].replace(tzinfo=timezone.utc)
    if "sku" in values:
        values["sku"] = values["sku"] or None
    return values


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
    just after ``sale_to`` (``sale_is_active``). The instants are kept by the host's cache until
    a product changes."""
    starts, ends = _sale_instants(session)
    return bisect_right(starts, now) + bisect_left(ends, now)


@cached
def _sale_instants(session):
    """(starts, ends) of every product's sale window, each sorted."""
    rows = session.execute(select(Product.sale_from, Product.sale_to).where(
        Product.sale_price.is_not(None), (Product.sale_from.is_not(None)) | (Product.sale_to.is_not(None)))).all()
    return (tuple(sorted(start for start, _ in rows if start is not None)),
            tuple(sorted(end for _, end in rows if end is not None)))


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
    for field, message in plugin_product_problems(session, values, item).items():
        errors.setdefault(field, message)
    return errors


def plugin_product_problems(session, values, item=None):
    """The plugins' rules of a product body (``storeplatform_product_problems``): ``{field: message}``."""
    problems = {}
    for found in hooks_of(session).storeplatform_product_problems(session=session, values=values, product=item):
        for field, message in (found or {}).items():
            problems.setdefault(field, message)
    return problems


def create_product(session, values):
    """A new product from validated ``values`` (a product body: ``ProductBody``); fires
    ``storeplatform_product_saved``."""
    item = Product(**product_values(dict(values)))
    session.add(item)
    session.flush()
    call_action(hooks_of(session).storeplatform_product_saved, product=item, created=True)
    return item


def update_product(session, item, values):
    """Change the sent fields of ``item`` (validated ``values``: ``ProductUpdate``)."""
    for key, value in product_values(dict(values)).items():
        setattr(item, key, value)
    session.flush()
    call_action(hooks_of(session).storeplatform_product_saved, product=item, created=False)
    return item


def delete_product(session, item):
    """Delete ``item`` for good; ``storeplatform_product_deleted`` fires first, in the same
    transaction (what a plugin keeps of the product goes with it)."""
    call_action(hooks_of(session).storeplatform_product_deleted, product=item)
    session.delete(item)
    session.flush()
