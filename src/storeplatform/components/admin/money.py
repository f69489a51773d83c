"""The admin's one way of showing money: the ``money`` filter of its templates (the host's and
every plugin's, which share the admin's Jinja2 environment), in the store's currency format
(``shop.money.format_money``: symbol, its position, separators, decimals), as the dashboard
and the invoicing plugin's pages write it.

``{{ product.price|money }}`` is an amount in the store's currency;
``{{ order.total|money(order.currency) }}`` one in the order's own (its symbol when it is not the
store's). None is shown as nothing."""
from jinja2 import pass_context

from storeplatform.components.shop.money import currency_format, format_money

# Where a request keeps the store's format once read (one page shows many amounts).
_FORMAT = "_admin_money_format"


@pass_context
def money(context, value, currency=None):
    if value is None:
        return ""
    request = context["request"]  # a page's context holds its request (pyramid_jinja2)
    fmt = request.__dict__.get(_FORMAT)
    if fmt is None:
        fmt = request.__dict__[_FORMAT] = currency_format(request.db)
    return format_money(value, fmt, currency)


def add_money_filter(environment):
    environment.filters["money"] = money
