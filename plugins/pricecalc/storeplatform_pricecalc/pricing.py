"""The price of a measurement: inputs checked and converted, the measurement, overage, the
pricing rule (tier) that applies, surcharges of the conditions, the minimum price.

Arithmetic (all Decimal, half-up rounding):
  measurement            = the type's formula over the inputs converted exactly to SI, then
                           expressed in the pricing unit, rounded to 4 places
  measurement_with_overage = round4(measurement * (100 + overage) / 100)   (overage > 0 only)
  priced quantity q      = measurement_with_overage when an overage applies, else measurement
  price_per_unit         = the rule whose range holds q (its sale price while the sale is
                           active), else the product's (or variation's) current price, else 0
  subtotal               = round_money(q * price_per_unit)
  surcharge amount       = round_money(subtotal * value / 100)  (percentage)
                           round_money(value)                     (fixed)
  total_price            = max(subtotal + surcharges, minimum_price), rounded to the store's decimals
"""
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext

from storeplatform.api import counter, current_price, format_money, parse_decimal, round_money

from . import formula as formulas
from .readmodel import CALCULATOR_TYPES, input_fields, pricing_unit_of
from .units import from_si, to_si

FOUR_PLACES = Decimal("0.0001")
_COMPARE = {
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}


def round4(value):
    return value.quantize(FOUR_PLACES, rounding=ROUND_HALF_UP)


class MissingMeasurements(ValueError):
    """Inputs of the calculator that the measurements lack (``fields``, by name)."""

    def __init__(self, fields):
        self.fields = list(fields)
        super().__init__("Missing measurement(s): " + ", ".join(self.fields) + ".")


class MeasurementError(ValueError):
    """Measurements that cannot be priced: ``params`` maps each bad input (or ``measurements``,
    ``formula``) to why; ``field`` is the first of them."""

    def __init__(self, params):
        self.params = dict(params)
        self.field = next(iter(self.params))
        super().__init__(f"Invalid measurement {self.field}: {self.params[self.field]}")


def read_measurements(fields, measurements):
    """The checked Decimal value of each input; MissingMeasurements / MeasurementError."""
    if measurements is None:
        measurements = {}
    if not isinstance(measurements, dict):
        raise MeasurementError({"measurements": "must be an object of input name -> number"})
    missing = [f.name for f in fields if measurements.get(f.name) is None or measurements.get(f.name) == ""]
    if missing:
        raise MissingMeasurements(missing)
    values = {}
    errors = {}
    for f in fields:
        try:
            values[f.name] = check_value(f, measurements[f.name])
        except ValueError as exc:
            errors[f.name] = str(exc)
    names = {f.name for f in fields}
    for key in measurements:
        if key not in names:
            errors[key] = "not an input of this calculator (inputs: " + ", ".join(sorted(names)) + ")"
    if errors:
        raise MeasurementError(errors)
    return values


def check_value(field, raw):
    value = parse_decimal(raw)
    low, high, step = field.limits
    if field.input_type == "options":
        if not any(value == Decimal(option) for option in field.options):
            raise ValueError("must be one of " + ", ".join(field.options))
        return value
    if value < low or value > high:
        raise ValueError(f"must be between {field.min} and {field.max}")
    if step > 0:
        with localcontext() as ctx:
            ctx.prec = 80
            try:
                on_step = (value - low) % step == 0
            except InvalidOperation:  # more steps than the precision can count: not on one
                on_step = False
        if not on_step:
            raise ValueError(f"must be {field.min} plus a multiple of {field.step}")
    return value


def measure(ctype, settings, fields, values, variables, formula_text):
    """The measurement in the pricing unit, rounded to 4 places."""
    with localcontext() as ctx:
        ctx.prec = 50
        if ctype == "custom":
            names = dict(values)
            names.update({v["name"]: Decimal(v["value"]) for v in variables})
            try:
                result = formulas.evaluate(formula_text, names)
            except formulas.EvaluationError as exc:
                raise MeasurementError({"formula": f"cannot be evaluated for these measurements: {exc}"})
            if result < 0:
                raise MeasurementError({"formula": "gives a negative measurement for these measurements"})
            return round4(result)
        si = {f.name: to_si(values[f.name], f.unit) for f in fields}
        if ctype == "area":
            quantity = si["length"] * si["width"]
        elif ctype == "perimeter":
            quantity = 2 * (si["length"] + si["width"])
        elif ctype == "volume":
            quantity = si["length"] * si["width"] * si["height"]
        else:  # length, weight: the one input
            quantity = si[fields[0].name]
        return round4(from_si(quantity, pricing_unit_of(ctype, settings)))


def parse_moment(text):
    return datetime.fromisoformat(text) if text else None


def rule_sale_active(rule, now):
    if rule.get("sale_price") is None:
        return False
    start, end = parse_moment(rule.get("sale_from")), parse_moment(rule.get("sale_to"))
    return (start is None or now >= start) and (end is None or now <= end)


def find_rule(rules, quantity):
    """The first rule (by range_start) whose inclusive range holds ``quantity``."""
    for rule in rules:
        if Decimal(rule["range_start"]) <= quantity and (rule["range_end"] is None
                                                         or quantity <= Decimal(rule["range_end"])):
            return rule
    return None


# For Prometheus (the host serves them at /metrics).
CALCULATIONS = counter("pricecalc_calculations", "Price calculations computed, by calculator type and outcome "
                       "(priced, refused: missing or invalid measurements). An answer the host's cache gives "
                       "again is not computed: the requests of route pricecalc/v1:calculate count those.",
                       ("calculator", "outcome"))
# Every series exists, at 0, from the start (a dashboard's panel shows 0, not "No data").
for _kind in (*CALCULATOR_TYPES, "other"):
    for _outcome in ("priced", "refused"):
        CALCULATIONS.labels(_kind, _outcome)


def calculate(calc, price_source, measurements, fmt, now):
    """The calculation result body for ``measurements`` (the request's raw object) by the
    ``Calculator`` row ``calc``, at the current price of the product ``price_source`` at ``now``."""
    kind = calc.calculator_type if calc.calculator_type in CALCULATOR_TYPES else "other"
    # Wide enough for the largest measurement (1e30) times the largest price (1e15) to be
    # rounded to cents without InvalidOperation.
    with localcontext() as ctx:
        ctx.prec = 60
        try:
            result = _calculate(calc, price_source, measurements, fmt, now)
        except ValueError:  # MissingMeasurements, MeasurementError
            CALCULATIONS.labels(kind, "refused").inc()
            raise
    CALCULATIONS.labels(kind, "priced").inc()
    return result


def _calculate(calc, price_source, measurements, fmt, now):
    settings = calc.settings or {}
    ctype = calc.calculator_type
    fields = input_fields(calc)
    values = read_measurements(fields, measurements)
    measurement = measure(ctype, settings, fields, values, calc.variables or [], calc.formula)
    overage = Decimal(settings.get("overage", "0"))
    quantity = measurement
    result = {"success": True, "calculated_measurement": measurement,
              "measurement_unit": pricing_unit_of(ctype, settings)}
    if overage > 0:
        quantity = round4(measurement * (100 + overage) / 100)
        result["overage_percentage"] = overage
        result["measurement_with_overage"] = quantity
    rule = find_rule(calc.pricing_rules or [], quantity)
    tier = None
    if rule is not None:
        is_sale = rule_sale_active(rule, now)
        price_per_unit = Decimal(rule["sale_price"] if is_sale else rule["price"])
        tier = {"range_start": Decimal(rule["range_start"]),
                "range_end": Decimal(rule["range_end"]) if rule["range_end"] is not None else None,
                "price": price_per_unit, "is_sale": is_sale}
    else:
        price_per_unit = current_price(price_source, now) or Decimal(0)
    decimals = fmt["decimals"]
    subtotal = round_money(quantity * price_per_unit, decimals)
    surcharges = []
    for condition in calc.conditions or []:
        subject = measurement if condition["field"] == "measurement" else values[condition["field"]]
        if not _COMPARE[condition["operator"]](subject, Decimal(condition["threshold"])):
            continue
        value = Decimal(condition["value"])
        if condition["type"] == "percentage":
            amount = round_money(subtotal * value / 100, decimals)
        else:
            amount = round_money(value, decimals)
        surcharges.append({"type": condition["type"], "value": value, "amount": amount,
                           "label": condition.get("label", "")})
    total = subtotal + sum((s["amount"] for s in surcharges), Decimal(0))
    minimum = round_money(Decimal(settings.get("minimum_price", "0")), decimals)
    if total < minimum:
        total = minimum
    result.update({
        "price_per_unit": price_per_unit,
        "total_price": total,
        "total_price_formatted": format_money(total, fmt),
        "surcharges": surcharges,
    })
    if tier is not None:
        result["pricing_tier"] = tier
    return result


def pricing_table(product_id, calc, fmt, now):
    settings = calc.settings or {}
    rules = []
    for rule in calc.pricing_rules or []:
        price = Decimal(rule["price"])
        sale = Decimal(rule["sale_price"]) if rule.get("sale_price") is not None else None
        rules.append({
            "range_start": Decimal(rule["range_start"]),
            "range_end": Decimal(rule["range_end"]) if rule["range_end"] is not None else None,
            "price": price,
            "price_formatted": format_money(price, fmt),
            "sale_price": sale,
            "sale_price_formatted": format_money(sale, fmt) if sale is not None else None,
            "is_sale_active": rule_sale_active(rule, now),
        })
    return {"product_id": product_id, "pricing_unit": pricing_unit_of(calc.calculator_type, settings),
            "rules": rules}
