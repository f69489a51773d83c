"""The save route's partial update: the body (a merge patch) applied to the stored document.

What the merge decides is *what the configuration becomes*; whether it is valid is
``validation.clean``'s business, which therefore never needs to know what was sent.
"""
from .readmodel import CALCULATOR_TYPES
from .units import unit_type

# The document of a product without a calculator yet: a new configuration is enabled.
NEW = {"calculator_type": None, "settings": {"enabled": True}, "variables": [], "formula": "", "pricing_rules": [],
       "conditions": []}
LISTS = ("variables", "pricing_rules", "conditions")


def deep_merge(stored, patch):
    """Objects merge key by key (recursively); a null removes the key; anything else,
    lists included, replaces the stored value (RFC 7386 merge patch)."""
    result = dict(stored)
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = deep_merge(result[key], value)
        elif isinstance(value, dict):
            result[key] = deep_merge({}, value)
        else:
            result[key] = value
    return result


def merge(stored, body):
    """The document after the save ``body`` (its JSON kinds checked by ``schemas.SaveBody``) is
    applied to ``stored`` (``readmodel.stored_form``; None for a product without a calculator).
    Not yet checked: see ``validation.clean``."""
    current = stored or NEW
    merged = dict(current)
    if "calculator_type" in body:
        merged["calculator_type"] = body["calculator_type"]
    if "settings" in body:
        # null resets the whole object to its defaults, as it resets one key inside it.
        base = current["settings"] if body["settings"] is not None else {}
        merged["settings"] = deep_merge(base, body["settings"] or {})
        # Only yes or no changes the switch (a null leaves it), so that a bulk update of prices
        # does not switch a disabled calculator back on.
        merged["settings"].setdefault("enabled", current["settings"]["enabled"])
    for key in LISTS:
        if key in body:
            merged[key] = body[key] if body[key] is not None else []
    if "formula" in body:
        merged["formula"] = body["formula"] or ""
    return _without_obsolete(merged, body.get("settings") or {})


def _without_obsolete(merged, sent):
    """Drop the stored settings that a change of calculator type leaves without use (a pricing
    unit of another kind, adjustments of inputs the type does not have), so that the type can
    change without resending them; the same values *sent* now are kept, to be refused."""
    ctype = merged["calculator_type"]
    if ctype not in CALCULATOR_TYPES or ctype == "custom":
        return merged
    names, _, measure_kind = CALCULATOR_TYPES[ctype]
    settings = dict(merged["settings"])
    unit = settings.get("pricing_unit")
    if "pricing_unit" not in sent and isinstance(unit, str) and unit_type(unit) not in (None, measure_kind):
        del settings["pricing_unit"]
    fields = settings.get("fields")
    if isinstance(fields, dict):
        sent_fields = sent.get("fields") if isinstance(sent.get("fields"), dict) else {}
        settings["fields"] = {name: adjust for name, adjust in fields.items() if name in names or name in sent_fields}
    return {**merged, "settings": settings}
