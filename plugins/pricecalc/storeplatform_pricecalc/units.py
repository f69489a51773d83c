"""Measurement units: the codes and labels of GET /units and exact conversion factors.

Every factor is the unit's size in the SI unit of its type (metre, square metre, cubic
metre, kilogram), written as the exact decimal of its legal definition (1 in = 0.0254 m,
1 lb = 0.45359237 kg, 1 US gal = 231 cu in), so conversions are exact in Decimal until the
final division into the pricing unit.
"""
from decimal import Decimal

UNIT_LABELS = {
    "length": {"in": "inches", "ft": "feet", "yd": "yards", "m": "metres", "cm": "centimetres",
               "mm": "millimetres"},
    "area": {"sq in": "square inches", "sq ft": "square feet", "sq yd": "square yards", "sq m": "square metres",
             "sq cm": "square centimetres", "acre": "acres", "ha": "hectares"},
    "volume": {"cu in": "cubic inches", "cu ft": "cubic feet", "cu yd": "cubic yards", "cu m": "cubic metres",
               "L": "litres", "mL": "millilitres", "gal": "gallons"},
    "weight": {"oz": "ounces", "lb": "pounds", "t": "tons", "g": "grams", "kg": "kilograms"},
}

_INCH = Decimal("0.0254")
_FOOT = _INCH * 12
_YARD = _FOOT * 3
_POUND = Decimal("0.45359237")

FACTORS = {
    "length": {"in": _INCH, "ft": _FOOT, "yd": _YARD, "m": Decimal(1), "cm": Decimal("0.01"),
               "mm": Decimal("0.001")},
    "area": {"sq in": _INCH ** 2, "sq ft": _FOOT ** 2, "sq yd": _YARD ** 2, "sq m": Decimal(1),
             "sq cm": Decimal("0.0001"), "acre": 43560 * _FOOT ** 2, "ha": Decimal(10000)},
    "volume": {"cu in": _INCH ** 3, "cu ft": _FOOT ** 3, "cu yd": _YARD ** 3, "cu m": Decimal(1),
               "L": Decimal("0.001"), "mL": Decimal("0.000001"), "gal": 231 * _INCH ** 3},
    # "t" is the US short ton (2000 lb): the list's other customary units are the US ones
    # (the US gallon) and its label says "tons", not "tonnes".
    "weight": {"oz": _POUND / 16, "lb": _POUND, "t": 2000 * _POUND, "g": Decimal("0.001"), "kg": Decimal(1)},
}

UNIT_TYPE = {code: kind for kind, codes in UNIT_LABELS.items() for code in codes}

# The length unit an area or volume is naturally measured in, for default input units.
LINEAR_UNIT = {
    "sq in": "in", "sq ft": "ft", "sq yd": "yd", "sq m": "m", "sq cm": "cm", "acre": "ft", "ha": "m",
    "cu in": "in", "cu ft": "ft", "cu yd": "yd", "cu m": "m", "L": "cm", "mL": "cm", "gal": "in",
}


def unit_type(code):
    """``length``, ``area``, ``volume``, ``weight``, or None for an unknown code."""
    return UNIT_TYPE.get(code)


def to_si(value, code):
    """``value`` in ``code`` expressed in the SI unit of its type (exact)."""
    return value * FACTORS[UNIT_TYPE[code]][code]


def from_si(value, code):
    """An SI quantity expressed in ``code`` (a division: the caller's context decides precision)."""
    return value / FACTORS[UNIT_TYPE[code]][code]


def label(code):
    kind = UNIT_TYPE.get(code)
    return UNIT_LABELS[kind][code] if kind else code
