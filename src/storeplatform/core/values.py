"""Values as every boundary reads them (JSON bodies, query strings, the CLI, site options):
booleans from their usual spellings, exact decimals, and the range of the integer columns.

A leaf module: the schema types of the REST server and the option types both use it.
"""
from decimal import Decimal, InvalidOperation

TRUE_WORDS = frozenset({"true", "1", "yes", "on"})
FALSE_WORDS = frozenset({"false", "0", "no", "off"})

# The integer columns (ids, counts, capacities) are 32-bit on PostgreSQL.
INT_MIN, INT_MAX = -(2**31), 2**31 - 1


def parse_bool(value):
    """True or False from a JSON boolean, 0/1, or a usual word; ValueError otherwise."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in TRUE_WORDS:
            return True
        if text in FALSE_WORDS:
            return False
    raise ValueError(f"{value!r} is not a boolean")


def parse_decimal(value):
    """A finite Decimal from a JSON number or numeric text; ValueError saying why otherwise."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float, Decimal)):
        raise ValueError(f"{value!r} is not a number")
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(f"{value!r} is not a number")
    if not number.is_finite():
        raise ValueError(f"{value!r} is not a finite number")
    return number


def is_digits(text):
    """True for a text of ASCII digits only. ``str.isdigit`` alone also accepts digits such as
    "²", which ``int`` refuses, and other scripts' digits, which ``int`` reads."""
    return text.isascii() and text.isdigit()


def id_in_range(value):
    """True when ``value`` can be an id of a row; a larger number names no row."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= INT_MAX
