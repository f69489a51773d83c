"""JSON encoding shared by responses, task payloads and webhooks."""
import datetime
import decimal
import json


def _default(value):
    if isinstance(value, decimal.Decimal):
        # Money travels as a JSON number; int when it has no fraction.
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def dumps(value, **kwargs):
    return json.dumps(value, default=_default, ensure_ascii=False, separators=(",", ":"), **kwargs)
