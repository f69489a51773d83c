"""GET /units and unit conversion between the inputs' units and the pricing unit."""
from decimal import Decimal

from storeplatform_pricecalc.units import FACTORS, UNIT_LABELS, from_si, to_si

from .conftest import PC

SPEC_UNITS = {
    "length": {"in": "inches", "ft": "feet", "yd": "yards", "m": "metres", "cm": "centimetres", "mm": "millimetres"},
    "area": {"sq in": "square inches", "sq ft": "square feet", "sq yd": "square yards", "sq m": "square metres",
             "sq cm": "square centimetres", "acre": "acres", "ha": "hectares"},
    "volume": {"cu in": "cubic inches", "cu ft": "cubic feet", "cu yd": "cubic yards", "cu m": "cubic metres",
               "L": "litres", "mL": "millilitres", "gal": "gallons"},
    "weight": {"oz": "ounces", "lb": "pounds", "t": "tons", "g": "grams", "kg": "kilograms"},
}


def test_units_route_lists_exactly_the_spec_codes_and_labels(pc):
    assert pc.app.get(f"{PC}/units").json == SPEC_UNITS


def test_every_unit_has_an_exact_factor():
    assert {kind: set(codes) for kind, codes in FACTORS.items()} == {k: set(v) for k, v in UNIT_LABELS.items()}
    assert FACTORS["length"]["in"] == Decimal("0.0254")
    assert FACTORS["area"]["acre"] == Decimal("4046.8564224")
    assert FACTORS["volume"]["gal"] == Decimal("0.003785411784")
    assert FACTORS["weight"]["oz"] == Decimal("0.028349523125")
    assert FACTORS["weight"]["t"] == Decimal("907.18474")  # the short ton, 2000 lb
    for codes in FACTORS.values():
        for code in codes:
            assert from_si(to_si(Decimal("12.5"), code), code) == Decimal("12.5")


# (type, pricing unit, input unit, measurements, expected measurement)
CONVERSIONS = [
    ("length", "ft", "yd", {"length": 1}, 3),
    ("length", "m", "mm", {"length": 1250}, 1.25),
    ("length", "in", "ft", {"length": 2}, 24),
    ("length", "cm", "in", {"length": 1}, 2.54),
    ("area", "sq ft", "in", {"length": 36, "width": 48}, 12),          # 1728 sq in
    ("area", "sq m", "cm", {"length": 250, "width": 120}, 3),
    ("area", "sq yd", "ft", {"length": 9, "width": 3}, 3),
    ("area", "sq in", "ft", {"length": 1, "width": 1}, 144),
    ("area", "sq cm", "m", {"length": "0.5", "width": "0.2"}, 1000),
    ("area", "acre", "ft", {"length": 220, "width": 198}, 1),           # 43560 sq ft
    ("area", "ha", "m", {"length": 100, "width": 100}, 1),
    ("perimeter", "ft", "m", {"length": 3, "width": 2}, 32.8084),       # 10 m = 32.80839895 ft
    ("perimeter", "m", "cm", {"length": 150, "width": 50}, 4),
    ("volume", "cu yd", "ft", {"length": 9, "width": 6, "height": "0.5"}, 1),   # 27 cu ft
    ("volume", "L", "cm", {"length": 10, "width": 10, "height": 10}, 1),
    ("volume", "mL", "cm", {"length": 2, "width": 3, "height": 4}, 24),
    ("volume", "gal", "in", {"length": 11, "width": 7, "height": 3}, 1),        # 231 cu in
    ("volume", "cu m", "mm", {"length": 1000, "width": 500, "height": 200}, 0.1),
    ("volume", "cu in", "ft", {"length": 1, "width": 1, "height": 1}, 1728),
    ("volume", "cu ft", "yd", {"length": 1, "width": 1, "height": 1}, 27),
    ("weight", "lb", "oz", {"weight": 24}, 1.5),
    ("weight", "kg", "lb", {"weight": 10}, 4.5359),                     # 4.5359237 kg
    ("weight", "t", "kg", {"weight": "907.18474"}, 1),
    ("weight", "g", "oz", {"weight": 1}, 28.3495),                      # 28.349523125 g
    ("weight", "oz", "g", {"weight": 100}, 3.5274),                     # 3.52739619... oz
]


def test_inputs_are_converted_to_the_pricing_unit(pc):
    # One site for the whole table: a site per row would make this file slow.
    for ctype, pricing_unit, input_unit, measurements, expected in CONVERSIONS:
        fields = {name: {"unit": input_unit, "step": "0", "max": "100000"} for name in measurements}
        pid = pc.priced({"calculator_type": ctype, "settings": {"pricing_unit": pricing_unit, "fields": fields}},
                        price="1.00")
        body = pc.calculate(pid, measurements).json
        row = (ctype, pricing_unit, input_unit, measurements)
        assert body["calculated_measurement"] == expected, (row, body)
        assert body["measurement_unit"] == pricing_unit, row


def test_inputs_may_have_different_units(pc):
    fields = {"length": {"unit": "ft"}, "width": {"unit": "in"}}
    pid = pc.priced({"calculator_type": "area", "settings": {"pricing_unit": "sq ft", "fields": fields}},
                    price="2.00")
    body = pc.calculate(pid, {"length": 10, "width": 18}).json
    # 10 ft x 1.5 ft = 15 sq ft x 2.00 = 30.00
    assert body["calculated_measurement"] == 15 and body["total_price"] == 30


def test_default_input_unit_follows_the_pricing_unit(pc):
    for ctype, pricing_unit, input_unit in [
        ("length", "yd", "yd"), ("area", "sq m", "m"), ("area", "acre", "ft"), ("area", "ha", "m"),
        ("volume", "L", "cm"), ("volume", "gal", "in"), ("volume", "cu yd", "yd"), ("weight", "kg", "kg"),
    ]:
        pid = pc.priced({"calculator_type": ctype, "settings": {"pricing_unit": pricing_unit}})
        assert {f["unit"] for f in pc.config(pid).json["fields"]} == {input_unit}, (ctype, pricing_unit)


def test_every_unit_code_of_the_type_is_a_pricing_unit(pc):
    pid = pc.product()
    for kind, ctype in [("length", "length"), ("length", "perimeter"), ("area", "area"), ("volume", "volume"),
                        ("weight", "weight")]:
        for code in SPEC_UNITS[kind]:
            pc.save(pid, {"calculator_type": ctype, "settings": {"pricing_unit": code}})
            assert pc.config(pid).json["pricing_unit"] == code
