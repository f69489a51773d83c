"""JSON encoding shared by responses, task payloads and webhooks (orjson: fast, and exact for
money through raw number fragments)."""
import datetime
import decimal

import orjson

# Non-text keys (ids) become text as with the standard library; dates go through ``_default``
# so that they are written as ``isoformat()`` writes them.
_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME


def decimal_text(value):
    """The digits of a Decimal as a JSON number: exact, without trailing zeros of the column's
    scale (``12.5000`` -> ``12.5``, ``3.0000`` -> ``3``)."""
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


class Rendered:
    """JSON encoded once (``rendered_json``), written as it is wherever it is placed in what is
    encoded; ``size``: its bytes, which a cache keeping it counts against its budget."""
    __slots__ = ("fragment", "size")

    def __init__(self, data):
        self.fragment = orjson.Fragment(data)
        self.size = len(data)


def _default(value):
    if type(value) is Rendered:
        return value.fragment
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise TypeError(f"{value} is not a JSON number")
        # Money travels as a JSON number whose digits are the stored digits (never via float).
        return orjson.Fragment(decimal_text(value))
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def dumpb(value):
    """``value`` as compact UTF-8 JSON bytes."""
    return orjson.dumps(value, default=_default, option=_OPTIONS)


def dumps(value):
    """``value`` as compact JSON text."""
    return dumpb(value).decode("utf-8")


def rendered_json(value):
    """``value`` encoded once: what a view returns (or puts inside what it returns) to have those
    bytes written as they are, e.g. a page kept per process by generation."""
    return Rendered(dumpb(value))
