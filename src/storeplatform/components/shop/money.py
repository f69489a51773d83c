"""Money: Decimal arithmetic, shop rounding and formatting by the store's currency options."""
from decimal import ROUND_HALF_UP, Decimal

from storeplatform.core.options import site_options

CURRENCY_SYMBOLS = {
    "USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CAD": "$", "AUD": "$", "CHF": "CHF", "SEK": "kr",
    "NOK": "kr", "DKK": "kr", "PLN": "zł", "CZK": "Kč", "INR": "₹", "CNY": "¥", "BRL": "R$", "RUB": "₽",
}


def to_decimal(value):
    return value if isinstance(value, Decimal) else Decimal(str(value))


def amount_text(value, decimals=2):
    """A stored amount as a person reads it: at least ``decimals`` places, the stored zeros
    beyond them dropped (``12.5000`` -> ``12.50``, ``12.3450`` -> ``12.345``): the digits stored,
    none rounded away or made up. None stays None."""
    if value is None:
        return None
    amount = to_decimal(value)
    shown = amount.quantize(Decimal(1).scaleb(-decimals)) if amount.as_tuple().exponent < -decimals else amount
    if shown != amount:
        return f"{amount:f}".rstrip("0")
    return f"{shown:.{decimals}f}"


def round_money(value, decimals=2):
    """Half-up rounding, as classic shops round (Decimal's default is half-even)."""
    return to_decimal(value).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def currency_format(session):
    o = site_options(session)
    return {
        "currency": o["store.currency"],
        "symbol": o["store.currency_symbol"] or CURRENCY_SYMBOLS.get(o["store.currency"], o["store.currency"]),
        "position": o["store.currency_position"],
        "thousand_separator": o["store.thousand_separator"],
        "decimal_separator": o["store.decimal_separator"],
        "decimals": o["store.decimals"],
    }


def format_money(value, fmt, currency=None):
    """``value`` rounded half-up to the store's decimals, with separators and symbol placed
    as the options say. ``fmt`` comes from ``currency_format(session)``. ``currency``: the
    amount's own (an order's), when it may not be the store's: another currency's symbol
    (or its code) takes the store's symbol's place, the rest stays the store's format."""
    decimals = fmt["decimals"]
    amount = round_money(value, decimals)
    negative = amount < 0
    text = f"{abs(amount):.{decimals}f}"
    whole, _, fraction = text.partition(".")
    groups = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    number = fmt["thousand_separator"].join(groups)
    if decimals:
        number += fmt["decimal_separator"] + fraction
    symbol = fmt["symbol"]
    if currency and currency != fmt["currency"]:
        symbol = CURRENCY_SYMBOLS.get(currency, currency)
    number = {
        "left": symbol + number,
        "right": number + symbol,
        "left_space": symbol + " " + number,
        "right_space": number + " " + symbol,
    }[fmt["position"]]
    return ("-" if negative else "") + number
