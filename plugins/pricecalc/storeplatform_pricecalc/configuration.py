"""A product's calculator configuration: calculator types and their input fields, defaults,
the deep merge of the save route, the checks every value passes before it is stored, and
the resolved form the pricing reads.

Stored form (the ``Calculator`` row): ``settings`` holds text values as sent, with the
per-field adjustments under ``settings.fields.<name>``; the lists hold items of text values.
"""
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal

from storeplatform.rest import parse_decimal

from . import formula as formulas
from .units import LINEAR_UNIT, UNIT_TYPE, unit_type

# type -> (input fields, unit type of the inputs, unit type of the measurement)
CALCULATOR_TYPES = {
    "length": (("length",), "length", "length"),
    "area": (("length", "width"), "length", "area"),
    "perimeter": (("length", "width"), "length", "length"),
    "volume": (("length", "width", "height"), "length", "volume"),
    "weight": (("weight",), "weight", "weight"),
    "custom": ((), None, None),
}
DEFAULT_PRICING_UNIT = {"length": "ft", "area": "sq ft", "perimeter": "ft", "volume": "cu ft", "weight": "lb"}
INPUT_TYPES = ("free", "options")
SURCHARGE_TYPES = ("percentage", "fixed")
OPERATORS = (">", ">=", "<", "<=", "==", "!=")
SETTING_KEYS = ("pricing_unit", "pricing_label", "minimum_price", "overage", "enabled", "fields")
FIELD_KEYS = ("label", "unit", "min", "max", "step", "input_type", "options")
RULE_KEYS = ("range_start", "range_end", "price", "sale_price", "sale_from", "sale_to")
CONDITION_KEYS = ("field", "operator", "threshold", "type", "value", "label")
VARIABLE_KEYS = ("name", "label", "value")
FIELD_DEFAULTS = {"min": "0.01", "max": "10000", "step": "0.01", "input_type": "free"}
MAX_ITEMS = {"pricing_rules": 100, "conditions": 50, "variables": 50, "fields": 10, "options": 50}
MAX_LABEL = 200
# Finer steps than this are no real measuring tool; it also keeps the step check exact.
MAX_STEP_PLACES = 10
NAME_PATTERN = re.compile(r"^[a-z_][a-z0-9_]{0,39}$")
# "measurement" is what a condition on the calculated measurement names.
RESERVED_NAMES = formulas.FUNCTIONS | {"measurement"}
TRUE_TEXT = {"yes", "true", "1", "on"}
FALSE_TEXT = {"no", "false", "0", "off"}


class ConfigurationError(ValueError):
    """Values the save route refuses: ``params`` maps each bad value's path to a message."""

    def __init__(self, params):
        super().__init__(", ".join(sorted(params)))
        self.params = params


# --- merge ---------------------------------------------------------------------------------

def stored_form(calc):
    """The stored configuration of a ``Calculator`` row as a plain dict (None: no row)."""
    if calc is None:
        return None
    return {"calculator_type": calc.calculator_type, "enabled": calc.enabled, "settings": dict(calc.settings or {}),
            "variables": list(calc.variables or []), "formula": calc.formula or "",
            "pricing_rules": list(calc.pricing_rules or []), "conditions": list(calc.conditions or [])}


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
    """The configuration after the save ``body`` (validated shapes) is applied to ``stored``
    (None for a product without a calculator yet). Not yet checked: see ``clean``."""
    current = stored or {"calculator_type": None, "enabled": True, "settings": {}, "variables": [], "formula": "",
                         "pricing_rules": [], "conditions": []}
    merged = dict(current)
    if "calculator_type" in body:
        merged["calculator_type"] = body["calculator_type"]
    if "settings" in body:
        merged["settings"] = deep_merge(current["settings"], body["settings"] or {})
    for key in ("variables", "pricing_rules", "conditions"):
        if key in body:
            merged[key] = body[key] if body[key] is not None else []
    if "formula" in body:
        merged["formula"] = body["formula"] or ""
    # A new configuration is enabled; afterwards only settings.enabled changes that, so that
    # a bulk update of prices does not switch a disabled calculator back on.
    if "enabled" in merged["settings"]:
        merged["enabled"] = merged["settings"].pop("enabled")
    return merged


# --- checks --------------------------------------------------------------------------------

def number_text(value):
    """Canonical numeric text of a JSON number or numeric text; ValueError otherwise."""
    number = parse_decimal(value)
    if abs(number) >= Decimal("1e15"):
        raise ValueError("is too large")
    return format(number, "f")


def clean(merged, body):
    """Check every value of ``merged`` and return it in canonical form; raise
    ConfigurationError naming each bad value. ``body`` is the request, to tell values sent now
    from stored ones that a change of calculator type makes obsolete."""
    errors = {}
    ctype = merged.get("calculator_type")
    if ctype not in CALCULATOR_TYPES:
        if ctype is None:
            errors["calculator_type"] = "required for a new calculator (one of " + ", ".join(CALCULATOR_TYPES) + ")"
        else:
            errors["calculator_type"] = "must be one of " + ", ".join(CALCULATOR_TYPES)
        raise ConfigurationError(errors)
    sent_settings = body.get("settings") or {}
    result = {"calculator_type": ctype, "enabled": None, "formula": "", "settings": {}}
    result["enabled"] = _clean_enabled(merged["enabled"], errors)
    settings = _clean_settings(ctype, merged["settings"], sent_settings, errors)
    result["settings"] = settings
    fields = resolve_fields(ctype, settings)
    field_names = [f.name for f in fields]
    result["variables"] = _clean_variables(merged["variables"], field_names, errors)
    result["pricing_rules"] = _clean_rules(merged["pricing_rules"], errors)
    result["conditions"] = _clean_conditions(merged["conditions"], field_names, errors)
    text = merged.get("formula") or ""
    if not isinstance(text, str):
        errors["formula"] = "must be text"
    elif ctype == "custom":
        try:
            formulas.check(text, field_names + [v["name"] for v in result["variables"]])
        except formulas.FormulaError as exc:
            errors["formula"] = str(exc)
        result["formula"] = text.strip()
    else:
        # Kept for a later switch to the custom type, which checks it then.
        result["formula"] = text.strip()
        if len(text) > formulas.MAX_LENGTH:
            errors["formula"] = f"the formula is longer than {formulas.MAX_LENGTH} characters"
    if errors:
        raise ConfigurationError(errors)
    return result


def _clean_enabled(value, errors):
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower() if isinstance(value, (str, int)) else None
    if text in TRUE_TEXT:
        return True
    if text in FALSE_TEXT:
        return False
    errors["settings.enabled"] = "must be yes or no"
    return True


def _clean_settings(ctype, settings, sent, errors):
    _, input_kind, measure_kind = CALCULATOR_TYPES[ctype]
    out = {}
    for key in settings:
        if key not in SETTING_KEYS:
            errors[f"settings.{key}"] = "unknown setting (known: " + ", ".join(SETTING_KEYS) + ")"
    unit = settings.get("pricing_unit")
    if unit is not None:
        if not isinstance(unit, str) or unit not in UNIT_TYPE:
            errors["settings.pricing_unit"] = f"{unit!r} is not a unit code (see GET /units)"
        elif measure_kind and unit_type(unit) != measure_kind:
            if "pricing_unit" in sent:
                errors["settings.pricing_unit"] = f"a {ctype} calculator needs a {measure_kind} unit, not {unit!r}"
            else:
                unit = None  # a stored unit of the previous calculator type: back to the default
        if unit is not None:
            out["pricing_unit"] = unit
    elif ctype == "custom":
        errors["settings.pricing_unit"] = "required for a custom calculator (a unit code, see GET /units)"
    label = settings.get("pricing_label")
    if label is not None:
        if not isinstance(label, str) or len(label) > MAX_LABEL:
            errors["settings.pricing_label"] = f"must be text of at most {MAX_LABEL} characters"
        else:
            out["pricing_label"] = label
    for key, low, high in (("minimum_price", Decimal(0), None), ("overage", Decimal(0), Decimal(100))):
        if key in settings:
            try:
                out[key] = _bounded(settings[key], low, high)
            except ValueError as exc:
                errors[f"settings.{key}"] = str(exc)
    fields = settings.get("fields", {})
    if not isinstance(fields, dict):
        errors["settings.fields"] = "must be an object of field name -> adjustments"
        return out
    names = CALCULATOR_TYPES[ctype][0]
    sent_fields = sent.get("fields") if isinstance(sent.get("fields"), dict) else {}
    clean_fields = {}
    for name, adjust in fields.items():
        path = f"settings.fields.{name}"
        if ctype != "custom" and name not in names:
            if name in sent_fields:
                errors[path] = f"a {ctype} calculator has the fields " + ", ".join(names)
            continue  # an adjustment of a field the previous calculator type had
        if ctype == "custom" and (not NAME_PATTERN.match(name) or name in RESERVED_NAMES):
            errors[path] = ("a field name is lower-case letters, digits and _ (at most 40), not a function "
                            "name nor measurement")
            continue
        if not isinstance(adjust, dict):
            errors[path] = "must be an object with " + ", ".join(FIELD_KEYS)
            continue
        clean_fields[name] = _clean_field(path, adjust, input_kind, errors)
    if ctype == "custom" and not clean_fields and not any(k.startswith("settings.fields") for k in errors):
        errors["settings.fields"] = "a custom calculator needs at least one input field"
    if len(clean_fields) > MAX_ITEMS["fields"]:
        errors["settings.fields"] = f"at most {MAX_ITEMS['fields']} fields"
    if clean_fields:
        out["fields"] = clean_fields
    return out


def _clean_field(path, adjust, input_kind, errors):
    out = {}
    for key, value in adjust.items():
        where = f"{path}.{key}"
        if key not in FIELD_KEYS:
            errors[where] = "unknown key (known: " + ", ".join(FIELD_KEYS) + ")"
        elif key == "label":
            if not isinstance(value, str) or len(value) > MAX_LABEL:
                errors[where] = f"must be text of at most {MAX_LABEL} characters"
            else:
                out[key] = value
        elif key == "unit":
            if not isinstance(value, str) or (value not in UNIT_TYPE and not (input_kind is None and value == "")):
                errors[where] = f"{value!r} is not a unit code (see GET /units)"
            elif input_kind and unit_type(value) != input_kind:
                errors[where] = f"this input needs a {input_kind} unit, not {value!r}"
            else:
                out[key] = value
        elif key == "input_type":
            if value not in INPUT_TYPES:
                errors[where] = "must be one of " + ", ".join(INPUT_TYPES)
            else:
                out[key] = value
        elif key == "options":
            if not isinstance(value, list) or len(value) > MAX_ITEMS["options"]:
                errors[where] = f"must be a list of at most {MAX_ITEMS['options']} numbers"
                continue
            try:
                out[key] = [_bounded(v, Decimal(0), None) for v in value]
            except ValueError as exc:
                errors[where] = f"each option {exc}"
        else:
            try:
                out[key] = _bounded(value, Decimal(0), None)
            except ValueError as exc:
                errors[where] = str(exc)
                continue
            if key == "step" and -Decimal(out[key]).normalize().as_tuple().exponent > MAX_STEP_PLACES:
                errors[where] = f"at most {MAX_STEP_PLACES} decimal places"
    low = Decimal(out.get("min", FIELD_DEFAULTS["min"]))
    high = Decimal(out.get("max", FIELD_DEFAULTS["max"]))
    if f"{path}.min" not in errors and f"{path}.max" not in errors and high < low:
        errors[f"{path}.max"] = "must not be less than min"
    if out.get("input_type") == "options" and not out.get("options"):
        errors[f"{path}.options"] = "an options input needs at least one option"
    return out


def _bounded(value, low, high):
    text = number_text(value)
    number = Decimal(text)
    if low is not None and number < low:
        raise ValueError(f"must be at least {low}")
    if high is not None and number > high:
        raise ValueError(f"must be at most {high}")
    return text


def _item_list(key, items, errors):
    if not isinstance(items, list):
        errors[key] = "must be a list"
        return []
    if len(items) > MAX_ITEMS[key]:
        errors[key] = f"at most {MAX_ITEMS[key]} items"
        return []
    return items


def _unknown_keys(path, item, known, errors):
    if not isinstance(item, dict):
        errors[path] = "must be an object with " + ", ".join(known)
        return False
    for key in item:
        if key not in known:
            errors[f"{path}.{key}"] = "unknown key (known: " + ", ".join(known) + ")"
    return True


def _optional_number(path, item, key, errors, low=Decimal(0)):
    value = item.get(key)
    if value is None or value == "":
        return None
    try:
        return _bounded(value, low, None)
    except ValueError as exc:
        errors[f"{path}.{key}"] = str(exc)
        return None


def _required_number(path, item, key, errors, low=Decimal(0), high=None):
    if item.get(key) is None or item.get(key) == "":
        errors[f"{path}.{key}"] = "required"
        return None
    try:
        return _bounded(item[key], low, high)
    except ValueError as exc:
        errors[f"{path}.{key}"] = str(exc)
        return None


def _datetime_text(path, item, key, errors):
    value = item.get(key)
    if value is None or value == "":
        return None
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        errors[f"{path}.{key}"] = "must be an ISO 8601 date and time"
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat()


def _clean_rules(items, errors):
    rules = []
    for i, item in enumerate(_item_list("pricing_rules", items, errors)):
        path = f"pricing_rules.{i}"
        if not _unknown_keys(path, item, RULE_KEYS, errors):
            continue
        rule = {
            "range_start": _required_number(path, item, "range_start", errors),
            "range_end": _optional_number(path, item, "range_end", errors),
            "price": _required_number(path, item, "price", errors),
            "sale_price": _optional_number(path, item, "sale_price", errors),
            "sale_from": _datetime_text(path, item, "sale_from", errors),
            "sale_to": _datetime_text(path, item, "sale_to", errors),
        }
        if None not in (rule["range_start"], rule["range_end"]) and \
                Decimal(rule["range_end"]) < Decimal(rule["range_start"]):
            errors[f"{path}.range_end"] = "must not be less than range_start"
        if rule["sale_from"] and rule["sale_to"] and rule["sale_to"] < rule["sale_from"]:
            errors[f"{path}.sale_to"] = "must not be before sale_from"
        rules.append(rule)
    if any(k.startswith("pricing_rules") for k in errors):
        return rules
    rules.sort(key=lambda r: Decimal(r["range_start"]))
    for before, after in zip(rules, rules[1:]):
        if before["range_end"] is None or Decimal(after["range_start"]) < Decimal(before["range_end"]):
            errors["pricing_rules"] = (f"the ranges starting at {before['range_start']} and "
                                       f"{after['range_start']} overlap")
            break
    return rules


def _clean_conditions(items, field_names, errors):
    conditions = []
    for i, item in enumerate(_item_list("conditions", items, errors)):
        path = f"conditions.{i}"
        if not _unknown_keys(path, item, CONDITION_KEYS, errors):
            continue
        field = item.get("field")
        if field not in field_names and field != "measurement":
            errors[f"{path}.field"] = "must be an input field (" + ", ".join(field_names) + ") or measurement"
        operator = item.get("operator")
        if operator not in OPERATORS:
            errors[f"{path}.operator"] = "must be one of " + ", ".join(OPERATORS)
        kind = item.get("type", "percentage")
        if kind not in SURCHARGE_TYPES:
            errors[f"{path}.type"] = "must be one of " + ", ".join(SURCHARGE_TYPES)
        label = item.get("label", "")
        if not isinstance(label, str) or len(label) > MAX_LABEL:
            errors[f"{path}.label"] = f"must be text of at most {MAX_LABEL} characters"
        conditions.append({
            "field": field, "operator": operator,
            "threshold": _required_number(path, item, "threshold", errors, low=None),
            "type": kind,
            "value": _required_number(path, item, "value", errors,
                                      low=Decimal(-100) if kind == "percentage" else None),
            "label": label,
        })
    return conditions


def _clean_variables(items, field_names, errors):
    variables = []
    seen = set()
    for i, item in enumerate(_item_list("variables", items, errors)):
        path = f"variables.{i}"
        if not _unknown_keys(path, item, VARIABLE_KEYS, errors):
            continue
        name = item.get("name")
        if not isinstance(name, str) or not NAME_PATTERN.match(name) or name in RESERVED_NAMES:
            errors[f"{path}.name"] = "lower-case letters, digits and _ (at most 40), not a function name"
        elif name in seen or name in field_names:
            errors[f"{path}.name"] = f"{name} is already an input field or variable"
        seen.add(name)
        label = item.get("label", "")
        if not isinstance(label, str) or len(label) > MAX_LABEL:
            errors[f"{path}.label"] = f"must be text of at most {MAX_LABEL} characters"
        variables.append({"name": name, "label": label,
                          "value": _required_number(path, item, "value", errors, low=None)})
    return variables


# --- resolved form ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Field:
    name: str
    label: str
    unit: str
    min: str
    max: str
    step: str
    input_type: str
    options: tuple

    def json(self):
        return {"name": self.name, "label": self.label, "unit": self.unit, "min": self.min, "max": self.max,
                "step": self.step, "input_type": self.input_type, "options": list(self.options)}


def pricing_unit_of(ctype, settings):
    return settings.get("pricing_unit") or DEFAULT_PRICING_UNIT.get(ctype, "")


def resolve_fields(ctype, settings):
    """The input fields of a calculator: the type's own, adjusted by ``settings.fields``
    (a custom calculator's fields are those of ``settings.fields``, in their order)."""
    names, input_kind, _ = CALCULATOR_TYPES[ctype]
    adjustments = settings.get("fields") or {}
    if ctype == "custom":
        names = tuple(adjustments)
    pricing_unit = pricing_unit_of(ctype, settings)
    if input_kind == "length":
        default_unit = LINEAR_UNIT.get(pricing_unit, pricing_unit)
    elif input_kind == "weight":
        default_unit = pricing_unit
    else:
        default_unit = ""
    fields = []
    for name in names:
        adjust = adjustments.get(name) or {}
        input_type = adjust.get("input_type", FIELD_DEFAULTS["input_type"])
        fields.append(Field(
            name=name,
            label=adjust.get("label") or name.replace("_", " ").capitalize(),
            unit=adjust.get("unit", default_unit),
            min=adjust.get("min", FIELD_DEFAULTS["min"]),
            max=adjust.get("max", FIELD_DEFAULTS["max"]),
            step=adjust.get("step", FIELD_DEFAULTS["step"]),
            input_type=input_type,
            options=tuple(adjust.get("options", ())) if input_type == "options" else (),
        ))
    return fields


def configuration_json(product_id, calc):
    """The GET products/{id}/calculator body, exactly the spec's keys."""
    settings = calc.settings or {}
    unit = pricing_unit_of(calc.calculator_type, settings)
    return {
        "product_id": product_id,
        "calculator_type": calc.calculator_type,
        "pricing_unit": unit,
        "pricing_label": settings.get("pricing_label") or f"Price per {unit}",
        "minimum_price": settings.get("minimum_price", "0"),
        "overage": settings.get("overage", "0"),
        "fields": [f.json() for f in resolve_fields(calc.calculator_type, settings)],
        "pricing_rules": list(calc.pricing_rules or []),
        "conditions": list(calc.conditions or []),
        "custom_variables": list(calc.variables or []),
    }
