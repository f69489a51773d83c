"""Custom formulas: the allow-list, the limits, refusal at save time."""
from decimal import Decimal

import pytest

from storeplatform.testing import assert_error
from storeplatform_pricecalc.formula import EvaluationError, FormulaError, check, evaluate

NAMES = {"a", "b", "c"}


@pytest.mark.parametrize("text, expected", [
    ("a * b", "6"),
    ("a + b - c / 4", "4"),
    ("a ** 2 + b ** 0.5 * 0", "4"),
    ("-a + +b", "1"),
    ("min(a, b, c) + max(a, b) + abs(-c)", "9"),
    ("round(b / c, 3) + ceil(0.1) + floor(1.9)", "2.750"),
    ("round(2.5) + round(0.125, 2)", "3.13"),   # half-up
    ("sqrt(a * 8)", "4"),
    ("a if a > b else b", "3"),
    ("1 if a < b <= c else 0", "1"),
    ("(a == 2) + (a != 2) + (a >= 3)", "1"),
    ("a > 1 and b", "3"),
    ("a > 5 or c", "4"),
    ("not a", "0"),
    ("0.1 + 0.2", "0.3"),                        # Decimal, not float
])
def test_allowed_expressions(text, expected):
    check(text, NAMES)
    assert evaluate(text, {"a": Decimal(2), "b": Decimal(3), "c": Decimal(4)}) == Decimal(expected)


@pytest.mark.parametrize("text, reason", [
    ("", "empty"),
    ("a +", "not a valid expression"),
    ("__import__('os').system('true')", "only the functions"),
    ("a.real", "Attribute"),
    ("(1).__class__", "Attribute"),
    ("[a]", "List"),
    ("a[0]", "Subscript"),
    ("'text'", "only numbers"),
    ("True + a", "only numbers"),
    ("lambda: 1", "Lambda"),
    ("open('x')", "only the functions"),
    ("min(a, key=b)", "plain arguments"),
    ("max(*a)", "plain arguments"),
    ("a // b", "FloorDiv"),
    ("a % b", "Mod"),
    ("a << 2", "LShift"),
    ("9 ** 3999999", "constant exponent"),
    ("a ** b", "constant exponent"),
    ("a ** -1", "constant exponent"),
    ("a ** 11", "constant exponent"),
    ("1e999 * a", "too large"),
    ("a in b", "comparison"),
    ("a is b", "comparison"),
    ("sqrt", "is a function"),
    ("sqrt(a, b)", "argument"),
    ("round(a, b)", "constant n"),
    ("x + 1", "unknown name"),
    ("[x for x in a]", "ListComp"),
    ("(a := 2)", "NamedExpr"),
    ("a + " * 150 + "a", "longer than"),
    ("-" * 30 + "a", "nested deeper"),
    ("+".join(["a"] * 30), "nested deeper"),
    ("min(" + ",".join(["a"] * 210) + ")", "more than"),
])
def test_refused_expressions(text, reason):
    with pytest.raises(FormulaError) as info:
        check(text, NAMES)
    assert reason in str(info.value)


@pytest.mark.parametrize("text, values", [
    ("a / b", {"a": Decimal(1), "b": Decimal(0)}),
    ("sqrt(a)", {"a": Decimal(-1)}),
    ("(a * 1000000000) ** 10", {"a": Decimal(10 ** 6)}),
])
def test_evaluation_errors(text, values):
    with pytest.raises(EvaluationError):
        evaluate(text, values)


CUSTOM = {"calculator_type": "custom", "settings": {"pricing_unit": "sq ft", "fields": {"w": {}, "h": {}}},
          "variables": [{"name": "waste", "value": "1.1"}], "formula": "w * h * waste"}


@pytest.mark.parametrize("patch, param", [
    ({"formula": "w.__class__"}, "formula"),
    ({"formula": "w ** 99"}, "formula"),
    ({"formula": "w * depth"}, "formula"),
    ({"formula": ""}, "formula"),
    ({"formula": None}, "formula"),
    ({"variables": []}, "formula"),                       # waste is used by the stored formula
    ({"settings": {"fields": {"h": None}}}, "formula"),   # so is h
    ({"settings": {"fields": None}}, "settings.fields"),  # a custom calculator needs inputs
    ({"settings": {"fields": {"Bad Name": {}}}}, "settings.fields.Bad Name"),
    ({"settings": {"fields": {"max": {}}}}, "settings.fields.max"),
    ({"settings": {"fields": {"measurement": {}}}}, "settings.fields.measurement"),
    ({"variables": [{"name": "measurement", "value": "1"}]}, "variables.0.name"),
    ({"settings": {"pricing_unit": None}}, "settings.pricing_unit"),
])
def test_bad_custom_configuration_is_refused_at_save(pc, patch, param):
    pid = pc.priced(CUSTOM, price="2.00")
    params = assert_error(pc.save(pid, patch, status=400), 400, "rest_invalid_param")["data"]["params"]
    assert param in params, params
    # the stored formula still works: 3 x 4 x 1.1 = 13.2 sq ft x 2.00 = 26.40
    assert pc.calculate(pid, {"w": 3, "h": 4}).json["total_price"] == 26.4


def test_custom_fields_have_any_unit_or_none(pc):
    pid = pc.priced({**CUSTOM, "settings": {"pricing_unit": "kg", "fields": {"w": {"unit": "cm"}, "h": {"unit": ""}}}})
    fields = pc.config(pid).json["fields"]
    assert [(f["name"], f["unit"], f["label"]) for f in fields] == [("w", "cm", "W"), ("h", "", "H")]


def test_formula_of_another_type_is_checked_when_switching_to_custom(pc):
    pid = pc.priced({"calculator_type": "area", "formula": "length * nope"})
    res = pc.save(pid, {"calculator_type": "custom", "settings": {"fields": {"length": {}}}}, status=400)
    assert "formula" in assert_error(res, 400, "rest_invalid_param")["data"]["params"]
