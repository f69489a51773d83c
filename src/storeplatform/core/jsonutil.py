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


def _default(value):
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
    try:
        return orjson.dumps(value, default=_default, option=_OPTIONS)
    except TypeError:
        # orjson writes no integer beyond 64 bits, which free-form data (a product's meta) may
        # hold as any JSON number may: those are written as their digits, exactly. Any other
        # value it cannot write fails again here.
        return orjson.dumps(_wide_integers(value), default=_default, option=_OPTIONS)


def _wide_integers(value):
    if type(value) is int:
        return value if -(2**63) <= value < 2**64 else orjson.Fragment(str(value))
    if isinstance(value, dict):
        return {(str(k) if type(k) is int else k): _wide_integers(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_wide_integers(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return [_wide_integers(item) for item in sorted(value)]
    return value


def dumps(value):
    """``value`` as compact JSON text."""
    return dumpb(value).decode("utf-8")
