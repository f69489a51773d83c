"""A product's calculator configuration as stored and as read: the calculator types and their
inputs, the defaults, the resolved input fields the pricing reads, and the GET body.

Stored form (the ``Calculator`` row): ``settings`` holds text values as sent, with the
per-input adjustments under ``settings.fields.<name>``; the lists hold items of text values;
``enabled`` is a column of its own. The *document* of a configuration is the save body's shape
(``enabled`` under ``settings``): what ``merge`` patches and ``validation.clean`` checks.
"""
from dataclasses import dataclass
from decimal import Decimal

from .units import LINEAR_UNIT

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
FIELD_DEFAULTS = {"min": "0.01", "max": "10000", "step": "0.01", "input_type": "free"}


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

    @property
    def limits(self):
        """(min, max, step) as Decimals."""
        return Decimal(self.min), Decimal(self.max), Decimal(self.step)

    def json(self):
        return {"name": self.name, "label": self.label, "unit": self.unit, "min": self.min, "max": self.max,
                "step": self.step, "input_type": self.input_type, "options": list(self.options)}


def pricing_unit_of(ctype, settings):
    return settings.get("pricing_unit") or DEFAULT_PRICING_UNIT.get(ctype, "")


def input_fields(calc):
    """The input fields of a ``Calculator`` row, which the pricing checks measurements against and
    the GET body lists: the type's own, adjusted by ``settings.fields`` (a custom calculator's
    fields are those of ``settings.fields``, in their order)."""
    ctype, settings = calc.calculator_type, calc.settings or {}
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
        "fields": [f.json() for f in input_fields(calc)],
        "pricing_rules": list(calc.pricing_rules or []),
        "conditions": list(calc.conditions or []),
        "custom_variables": list(calc.variables or []),
    }


def stored_form(calc):
    """The document of a ``Calculator`` row (None: no row), for ``merge`` to patch."""
    if calc is None:
        return None
    return {"calculator_type": calc.calculator_type, "settings": {**(calc.settings or {}), "enabled": calc.enabled},
            "variables": list(calc.variables or []), "formula": calc.formula or "",
            "pricing_rules": list(calc.pricing_rules or []), "conditions": list(calc.conditions or [])}


def store(calc, configuration):
    """Write a checked document (``validation.clean``) into the ``Calculator`` row ``calc``."""
    settings = dict(configuration["settings"])
    calc.calculator_type = configuration["calculator_type"]
    calc.enabled = settings.pop("enabled")
    calc.settings = settings
    calc.variables = configuration["variables"]
    calc.formula = configuration["formula"]
    calc.pricing_rules = configuration["pricing_rules"]
    calc.conditions = configuration["conditions"]
