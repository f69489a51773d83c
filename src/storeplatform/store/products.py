"""Products: prices in effect, sale windows, variations."""
from ..db.types import utcnow

TYPES = ("simple", "variable", "variation")
STATUSES = ("publish", "draft", "pending", "private")


def sale_is_active(product, now=None):
    if product.sale_price is None:
        return False
    now = now or utcnow()
    if product.sale_from is not None and now < product.sale_from:
        return False
    if product.sale_to is not None and now > product.sale_to:
        return False
    return True


def current_price(product, now=None):
    """The price a customer pays now: the sale price in its window, else the regular price."""
    if sale_is_active(product, now):
        return product.sale_price
    return product.regular_price
