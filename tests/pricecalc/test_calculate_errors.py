"""POST /calculate: every error row of the spec, and the decided ones."""
import pytest

from storeplatform.testing import assert_error

from .conftest import PC

AREA = {"calculator_type": "area",
        "settings": {"pricing_unit": "sq ft", "fields": {"length": {"min": "1", "max": "100", "step": "0.5"}}}}


@pytest.fixture
def area_id(pc):
    return pc.priced(AREA, price="2.00")


def test_unknown_product_is_invalid_product(pc):
    assert_error(pc.calculate(999999, {"length": 1}, status=404), 404, "invalid_product")
    # beyond the id column's range: not found, not a database error
    assert_error(pc.calculate(10 ** 17, {"length": 1}, status=404), 404, "invalid_product")


def test_product_without_calculator_is_invalid_product(pc):
    assert_error(pc.calculate(pc.product(), {"length": 1, "width": 1}, status=404), 404, "invalid_product")


def test_disabled_calculator_is_invalid_product(pc, area_id):
    pc.save(area_id, {"settings": {"enabled": "no"}})
    assert_error(pc.calculate(area_id, {"length": 2, "width": 2}, status=404), 404, "invalid_product")
    pc.save(area_id, {"settings": {"enabled": "yes"}})
    assert pc.calculate(area_id, {"length": 2, "width": 2}).json["success"] is True


def test_unpublished_product_is_invalid_product_for_the_public(pc):
    pid = pc.priced(AREA, status="draft")
    assert_error(pc.calculate(pid, {"length": 2, "width": 2}, status=404), 404, "invalid_product")
    res = pc.app.post_json(f"{PC}/calculate", {"product_id": pid, "measurements": {"length": 2, "width": 2}},
                           headers=pc.site.headers_for("shop_manager"))
    assert res.json["total_price"] == 40  # a shop manager may try a draft: 4 sq ft x 10.00


def test_product_check_comes_before_measurements(pc):
    assert_error(pc.calculate(999999, None, status=404), 404, "invalid_product")


@pytest.mark.parametrize("measurements, missing", [
    (None, ["length", "width"]),
    ({}, ["length", "width"]),
    ({"length": 2}, ["width"]),
    ({"length": 2, "width": None}, ["width"]),
    ({"length": "", "width": 2}, ["length"]),
])
def test_missing_measurements(pc, area_id, measurements, missing):
    body = assert_error(pc.calculate(area_id, measurements, status=400), 400, "missing_measurements")
    assert body["data"]["fields"] == missing


def test_measurements_key_absent_is_missing_measurements(pc, area_id):
    res = pc.app.post_json(f"{PC}/calculate", {"product_id": area_id}, status=400)
    assert assert_error(res, 400, "missing_measurements")["data"]["fields"] == ["length", "width"]


@pytest.mark.parametrize("value, field", [
    ("abc", "width"),
    ("NaN", "width"),
    ("Infinity", "width"),
    ("-Infinity", "width"),
    (True, "width"),
    ([2], "width"),
    ({"v": 2}, "width"),
    (-1, "width"),
    (10001, "width"),          # the default max
    ("0.005", "width"),        # below the default min 0.01
    ("2.345", "width"),        # off the default step 0.01
])
def test_invalid_width(pc, area_id, value, field):
    body = assert_error(pc.calculate(area_id, {"length": 2, "width": value}, status=400), 400, "invalid_measurement")
    assert body["data"]["field"] == field and field in body["data"]["params"]


@pytest.mark.parametrize("value", [0.5, 100.5, "2.25", 101])
def test_length_outside_its_adjusted_range_or_step(pc, area_id, value):
    body = assert_error(pc.calculate(area_id, {"length": value, "width": 2}, status=400), 400, "invalid_measurement")
    assert body["data"]["field"] == "length"


def test_values_on_the_bounds_and_step_are_accepted(pc, area_id):
    assert pc.calculate(area_id, {"length": 1, "width": "0.01"}).json["calculated_measurement"] == 0.01
    assert pc.calculate(area_id, {"length": "99.5", "width": 2}).json["calculated_measurement"] == 199
    assert pc.calculate(area_id, {"length": 100, "width": 10000}).json["calculated_measurement"] == 1000000


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_literals_name_the_field(pc, area_id, literal):
    raw = '{"product_id": %d, "measurements": {"length": 2, "width": %s}}' % (area_id, literal)
    res = pc.app.post(f"{PC}/calculate", raw, headers={"Content-Type": "application/json"}, status=400)
    assert assert_error(res, 400, "invalid_measurement", field="width")


def test_every_bad_field_is_named(pc, area_id):
    body = assert_error(pc.calculate(area_id, {"length": "x", "width": -2}, status=400), 400, "invalid_measurement")
    assert set(body["data"]["params"]) == {"length", "width"}


def test_unknown_input_is_refused(pc, area_id):
    body = assert_error(pc.calculate(area_id, {"length": 2, "width": 2, "height": 3}, status=400), 400,
                        "invalid_measurement")
    assert body["data"]["field"] == "height"


def test_measurements_must_be_an_object(pc, area_id):
    body = assert_error(pc.calculate(area_id, [1, 2], status=400), 400, "invalid_measurement")
    assert body["data"]["field"] == "measurements"


@pytest.mark.parametrize("body", [{}, {"product_id": "abc", "measurements": {}}, {"product_id": 1.5},
                                  {"product_id": True}, {"product_id": 1, "variation_id": "x"}])
def test_bad_product_id_is_rest_invalid_param(pc, body):
    res = pc.app.post_json(f"{PC}/calculate", body, status=400)
    params = assert_error(res, 400, "rest_invalid_param")["data"]["params"]
    assert set(params) <= {"product_id", "variation_id"} and params


def test_malformed_json_is_rest_invalid_json(pc):
    for raw in ("{nope", "[1]", '"text"'):
        res = pc.app.post(f"{PC}/calculate", raw, headers={"Content-Type": "application/json"}, status=400)
        assert_error(res, 400, "rest_invalid_json")


def test_oversized_or_deeply_nested_body(pc, area_id):
    huge = '{"product_id": %d, "measurements": {"length": 2, "width": 2}, "pad": "%s"}' % (area_id, "x" * (3 * 1024 * 1024))
    res = pc.app.post(f"{PC}/calculate", huge, headers={"Content-Type": "application/json"}, status=413)
    assert_error(res, 413, "rest_request_too_large")
    deep = '{"product_id": %d, "measurements": %s}' % (area_id, "[" * 30000 + "]" * 30000)
    res = pc.app.post(f"{PC}/calculate", deep, headers={"Content-Type": "application/json"}, status=400)
    assert_error(res, 400, "rest_invalid_json")


def test_options_input_accepts_only_its_options(pc):
    body = {"calculator_type": "area", "settings": {"pricing_unit": "sq ft", "fields": {
        "width": {"input_type": "options", "options": ["1.5", "3", "4.5"]}}}}
    pid = pc.priced(body, price="1.00")
    assert pc.calculate(pid, {"length": 2, "width": "3.0"}).json["calculated_measurement"] == 6
    err = assert_error(pc.calculate(pid, {"length": 2, "width": 2}, status=400), 400, "invalid_measurement")
    assert err["data"]["field"] == "width"
    assert pc.config(pid).json["fields"][1]["options"] == ["1.5", "3", "4.5"]


def test_formula_division_by_zero_is_a_clear_error(pc):
    body = {"calculator_type": "custom",
            "settings": {"pricing_unit": "sq m", "fields": {"total": {}, "pieces": {"min": "0", "step": "1"}}},
            "formula": "total / pieces"}
    pid = pc.priced(body)
    assert pc.calculate(pid, {"total": 9, "pieces": 3}).json["calculated_measurement"] == 3
    err = assert_error(pc.calculate(pid, {"total": 9, "pieces": 0}, status=400), 400, "invalid_measurement")
    assert err["data"]["field"] == "formula" and "division by zero" in err["message"]


def test_formula_negative_result_and_undefined_values(pc):
    body = {"calculator_type": "custom", "settings": {"pricing_unit": "m", "fields": {"a": {}, "b": {}}},
            "formula": "a - b"}
    pid = pc.priced(body)
    assert_error(pc.calculate(pid, {"a": 1, "b": 2}, status=400), 400, "invalid_measurement", field="formula")
    pc.save(pid, {"formula": "sqrt(a - b)"})
    assert_error(pc.calculate(pid, {"a": 1, "b": 2}, status=400), 400, "invalid_measurement", field="formula")
    pc.save(pid, {"formula": "(a * 1000000) ** 10"})
    assert_error(pc.calculate(pid, {"a": 10000, "b": 2}, status=400), 400, "invalid_measurement", field="formula")


def test_extreme_but_valid_values_do_not_break_the_arithmetic(pc):
    body = {"calculator_type": "custom",
            "settings": {"pricing_unit": "cu m", "fields": {"a": {"max": "100000000000000", "step": "0"}}},
            "formula": "a * a"}
    pid = pc.priced({**body, "pricing_rules": [{"range_start": "0", "range_end": None,
                                                "price": "999999999999999"}]})
    res = pc.calculate(pid, {"a": "100000000000000"}).json
    # 1e28 cu m x 999999999999999 = 9.99999999999999e42
    assert res["total_price"] == pytest.approx(9.99999999999999e42)


def test_finest_step_with_a_large_value(pc):
    body = {"calculator_type": "length",
            "settings": {"fields": {"length": {"min": "0", "max": "100000000000000", "step": "0.0000000001"}}}}
    pid = pc.priced(body, price="1")
    assert pc.calculate(pid, {"length": "12345678901234.5"}).json["calculated_measurement"] == 12345678901234.5
    res = pc.calculate(pid, {"length": "12345678901234.00000000001"}, status=400)
    assert_error(res, 400, "invalid_measurement", field="length")


def test_the_same_body_again_follows_its_calculator(pc, area_id):
    """A body this process answered before is answered from what it kept, without being read
    again (#39), only while nothing it depends on changed: a narrower range refuses it."""
    for _ in range(3):
        assert pc.calculate(area_id, {"length": 50, "width": 2}).json["calculated_measurement"] == 100
    pc.save(area_id, {"settings": {"fields": {"length": {"min": "1", "max": "40", "step": "0.5"}}}})
    body = assert_error(pc.calculate(area_id, {"length": 50, "width": 2}, status=400), 400, "invalid_measurement")
    assert body["data"]["field"] == "length"
    assert pc.calculate(area_id, {"length": 40, "width": 2}).json["calculated_measurement"] == 80
    # The same measurements written otherwise are another body: answered the same.
    res = pc.app.post(f"{PC}/calculate", '{"measurements": {"width": 2, "length": 40}, "product_id": %d}' % area_id,
                      content_type="application/json")
    assert res.json["calculated_measurement"] == 80
