"""Which product a request prices or configures, with its calculator: loaded together in one
query, hidden from the public while unpublished, invalid_product otherwise."""
import functools
from collections import namedtuple

from sqlalchemy import bindparam, select

from storeplatform.api import Product, cached_by_generation, generation, id_in_range, user_can

from .errors import INVALID_PRODUCT
from .models import Calculator
from .readmodel import resolve_fields

# Built once: constructing the statement per request costs more than running it.
_PRODUCTS_WITH_CALCULATORS = (
    select(Product, Calculator).outerjoin(Calculator, Calculator.product_id == Product.id)
    .where(Product.id.in_(bindparam("ids", expanding=True)))
)


def load_with_calculators(session, ids):
    """``{id: (product, calculator or None)}`` for the products ``ids``, in one query."""
    ids = [i for i in ids if id_in_range(i)]
    if not ids:
        return {}
    rows = session.execute(_PRODUCTS_WITH_CALCULATORS, {"ids": ids}).all()
    return {product.id: (product, calc) for product, calc in rows}


# What pricing reads of a product and its calculator, as values a process keeps between requests
# (the JSON settings and rules are shared: pricing only reads them).
ProductRef = namedtuple("ProductRef", "id type status parent_id regular_price sale_price sale_from sale_to")


class CalculatorRef(namedtuple("CalculatorRef", "calculator_type enabled settings variables formula pricing_rules conditions")):
    """A kept calculator, with the input fields pricing resolves from it worked out once per
    kept value rather than on every price."""

    @functools.cached_property
    def fields(self):
        return resolve_fields(self.calculator_type, self.settings or {})


def priced_with_calculators(session, ids):
    """``load_with_calculators`` as values, kept per process until a product or a calculator
    changes (the ``store`` and ``pricecalc`` generations): a price costs no query of its own."""
    def load():
        return {pid: (ProductRef(*(getattr(product, f) for f in ProductRef._fields)),
                      None if calc is None else CalculatorRef(*(getattr(calc, f) for f in CalculatorRef._fields)))
                for pid, (product, calc) in load_with_calculators(session, ids).items()}

    key = ("priced", tuple(ids), generation(session, "store"))
    return cached_by_generation(session, "pricecalc", key, load)


def visible(request, product):
    return product.status == "publish" or user_can(request, "manage_shop")


def effective_calculator(request, product_id):
    """The product and the calculator that applies to it (a variation without one of its own
    uses its parent's); invalid_product when there is none or it is disabled."""
    found = load_with_calculators(request.db, [product_id])
    if product_id not in found:
        raise INVALID_PRODUCT()
    product, calc = found[product_id]
    if not visible(request, product):
        raise INVALID_PRODUCT()
    if calc is None and product.type == "variation" and product.parent_id:
        parent = load_with_calculators(request.db, [product.parent_id]).get(product.parent_id)
        if parent is not None and visible(request, parent[0]):
            calc = parent[1]
    if calc is None or not calc.enabled:
        raise INVALID_PRODUCT()
    return product, calc


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
