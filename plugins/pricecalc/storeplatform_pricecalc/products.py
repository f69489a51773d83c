"""Which product a request prices or configures, the product whose price applies and the
calculator that applies: one rule for every route, over the rows loaded together in one query,
hidden from the public while unpublished, invalid_product otherwise."""
from dataclasses import dataclass

from sqlalchemy import bindparam, select

from storeplatform.api import Product, cached, id_in_range, record_of, user_can

from .errors import INVALID_PRODUCT
from .models import Calculator

# Built once: constructing the statement per request costs more than running it.
_PRODUCTS_WITH_CALCULATORS = (
    select(Product, Calculator).outerjoin(Calculator, Calculator.product_id == Product.id)
    .where(Product.id.in_(bindparam("ids", expanding=True)))
)


def load_with_calculators(session, ids):
    """``{id: (product, calculator or None)}`` for the products ``ids``, in one query (none while
    the host's cache holds them: a price for new measurements reads no row)."""
    ids = tuple(i for i in ids if id_in_range(i))
    return _with_calculators(session, ids) if ids else {}


@cached
def _with_calculators(session, ids):
    # Records, not the session's instances: the cache hands them to every request of the
    # process, on any thread.
    rows = session.execute(_PRODUCTS_WITH_CALCULATORS, {"ids": list(ids)}).all()
    return {product.id: (record_of(product), record_of(calc)) for product, calc in rows}


def visible(request, product):
    return product.status == "publish" or user_can(request, "manage_shop")


@dataclass(frozen=True)
class Applicable:
    """What a route works on: the ``product`` it names, the ``price_source`` whose current price
    applies (the variation when one is named) and the enabled ``calculator`` that applies."""

    product: object  # records (``record_of``) of a Product, a Product and a Calculator
    price_source: object
    calculator: object


def applicable(request, product_id, variation_id=None, *, variation_as_product=False):
    """The rule of every route: the product ``product_id`` (visible), priced at its own price or
    at that of its visible variation ``variation_id``, by the variation's own calculator, else the
    product's; the calculator must be enabled. ``variation_as_product``: the route's id may name
    a variation itself (the calculator and pricing-table routes), which then uses its parent's
    calculator when it has none; calculate refuses a variation as ``product_id``, as it is to be
    named by ``variation_id``. invalid_product otherwise, on ``variation_id`` when the variation
    is at fault. One query, a second for the parent of a variation named alone without its own
    calculator."""
    found = load_with_calculators(request.db, [product_id] if variation_id is None else [product_id, variation_id])
    product, calc = found.get(product_id, (None, None))
    if product is None or (product.type == "variation" and not variation_as_product) \
            or not visible(request, product):
        raise INVALID_PRODUCT()
    price_source = product
    if variation_id is not None:
        variation, own = found.get(variation_id, (None, None))
        if variation is None or variation.type != "variation" or variation.parent_id != product_id \
                or not visible(request, variation):
            raise INVALID_PRODUCT(f"Invalid variation: {variation_id} is not a variation of product {product_id}.",
                                  field="variation_id")
        price_source = variation
        if own is not None:
            calc = own
    elif calc is None and product.type == "variation" and product.parent_id:
        parent, parent_calc = load_with_calculators(request.db, [product.parent_id]).get(product.parent_id,
                                                                                         (None, None))
        if parent is not None and visible(request, parent):
            calc = parent_calc
    if calc is None or not calc.enabled:
        raise INVALID_PRODUCT()
    return Applicable(product, price_source, calc)


def lock_product(session, product_id):
    """The product to configure, its row locked so that concurrent saves of one product merge
    one after the other; invalid_product when there is none."""
    product = None
    if id_in_range(product_id):
        product = session.execute(
            select(Product).where(Product.id == product_id).with_for_update()).scalar_one_or_none()
    if product is None:
        raise INVALID_PRODUCT("Invalid product: not found.")
    return product
