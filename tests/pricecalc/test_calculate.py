"""POST /calculate: worked examples whose totals are computed by hand here, and the query budget."""
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest

from storeplatform.testing import assert_error, count_queries

from .conftest import PC

PAST = (datetime.now(timezone.utc) - timedelta(days=2)).isoformat()
YESTERDAY = (datetime.now(timezone.utc) - timedelta(days=1)).isoformat()
FUTURE = (datetime.now(timezone.utc) + timedelta(days=2)).isoformat()

TIERS = [
    {"range_start": "0", "range_end": "50", "price": "4.00"},
    {"range_start": "50", "range_end": "200", "price": "3.50", "sale_price": "3.00",
     "sale_from": PAST, "sale_to": FUTURE},
    {"range_start": "200", "range_end": None, "price": "2.75"},
]


def area(**settings):
    return {"calculator_type": "area", "settings": {"pricing_unit": "sq ft", **settings}}


def test_result_shape_without_overage_tier_or_surcharge(pc):
    pid = pc.priced(area(), price="2.50")
    body = pc.calculate(pid, {"length": 4, "width": 3}).json
    # 4 ft x 3 ft = 12 sq ft at the product's 2.50 = 30.00
    assert body == {"success": True, "calculated_measurement": 12, "measurement_unit": "sq ft",
                    "price_per_unit": 2.5, "total_price": 30, "total_price_formatted": "$30.00", "surcharges": []}


@pytest.mark.parametrize("length, width, per_unit, total, tier", [
    (5, 4, 4.00, "80.00", (0, 50, False)),          # 20 sq ft in the first tier
    (10, 5, 4.00, "200.00", (0, 50, False)),        # exactly 50: the lower tier (ranges are inclusive)
    (10, 10, 3.00, "300.00", (50, 200, True)),      # 100 sq ft: the sale price of the second tier
    (20, 15, 2.75, "825.00", (200, None, False)),   # 300 sq ft: the open-ended tier
])
def test_tiers_choose_the_unit_price(pc, length, width, per_unit, total, tier):
    pid = pc.priced({**area(), "pricing_rules": TIERS}, price="9.99")
    body = pc.calculate(pid, {"length": length, "width": width}).json
    assert body["price_per_unit"] == per_unit
    assert Decimal(str(body["total_price"])) == Decimal(total)
    assert body["pricing_tier"] == {"range_start": tier[0], "range_end": tier[1], "price": per_unit, "is_sale": tier[2]}


def test_expired_sale_tier_uses_the_regular_price(pc):
    rules = [{"range_start": "0", "range_end": None, "price": "3.50", "sale_price": "3.00",
              "sale_from": PAST, "sale_to": YESTERDAY}]
    pid = pc.priced({**area(), "pricing_rules": rules})
    body = pc.calculate(pid, {"length": 10, "width": 10}).json
    # 100 sq ft x 3.50 = 350.00
    assert body["price_per_unit"] == 3.5 and body["total_price"] == 350
    assert body["pricing_tier"]["is_sale"] is False


def test_future_sale_is_not_active_yet(pc):
    rules = [{"range_start": "0", "range_end": None, "price": "3.50", "sale_price": "3.00", "sale_from": FUTURE}]
    pid = pc.priced({**area(), "pricing_rules": rules})
    assert pc.calculate(pid, {"length": 1, "width": 1}).json["price_per_unit"] == 3.5


def test_no_tier_matches_product_price_and_its_sale(pc):
    rules = [{"range_start": "0", "range_end": "10", "price": "1.00"}]
    pid = pc.priced({**area(), "pricing_rules": rules}, price="2.00", sale_price=Decimal("1.80"))
    body = pc.calculate(pid, {"length": 4, "width": 3}).json
    # 12 sq ft is above the only rule: the product's sale price 1.80 -> 21.60
    assert body["price_per_unit"] == 1.8 and body["total_price"] == 21.6
    assert "pricing_tier" not in body


def test_product_without_any_price_prices_at_zero_then_minimum(pc):
    pid = pc.priced(area(minimum_price="12.5"), price=None)
    body = pc.calculate(pid, {"length": 2, "width": 2}).json
    assert body["price_per_unit"] == 0 and body["total_price"] == 12.5


def test_overage_is_applied_before_pricing(pc):
    pid = pc.priced(area(overage="15"), price="2.50")
    body = pc.calculate(pid, {"length": 8, "width": 6}).json
    # 48 sq ft + 15 % = 55.2 sq ft x 2.50 = 138.00
    assert body["calculated_measurement"] == 48
    assert body["overage_percentage"] == 15
    assert body["measurement_with_overage"] == 55.2
    assert body["total_price"] == 138


def test_overage_chooses_the_tier(pc):
    rules = [{"range_start": "0", "range_end": "50", "price": "4.00"},
             {"range_start": "50", "range_end": None, "price": "3.00"}]
    pid = pc.priced({**area(overage="10"), "pricing_rules": rules})
    body = pc.calculate(pid, {"length": 7, "width": 7}).json
    # 49 sq ft + 10 % = 53.9 sq ft: the second tier, 53.9 x 3.00 = 161.70
    assert body["measurement_with_overage"] == 53.9
    assert body["price_per_unit"] == 3 and body["total_price"] == 161.7


def test_overage_result_is_rounded_to_four_places(pc):
    pid = pc.priced(area(overage="7.5"), price="1.00")
    body = pc.calculate(pid, {"length": "1.01", "width": "1.01"}).json
    # 1.0201 x 1.075 = 1.09660750 -> 1.0966 sq ft; x 1.00 = 1.0966 -> 1.10
    assert body["measurement_with_overage"] == 1.0966 and body["total_price"] == 1.1


def test_minimum_price_is_a_floor(pc):
    pid = pc.priced(area(minimum_price="25"), price="2.50")
    body = pc.calculate(pid, {"length": 2, "width": 3}).json
    # 6 sq ft x 2.50 = 15.00 < 25.00
    assert body["total_price"] == 25 and body["total_price_formatted"] == "$25.00"
    above = pc.calculate(pid, {"length": 5, "width": 3}).json
    assert above["total_price"] == 37.5  # 15 sq ft x 2.50


def test_percentage_and_fixed_surcharges(pc):
    conditions = [
        {"field": "width", "operator": ">", "threshold": "10", "type": "percentage", "value": "15",
         "label": "Wide cut"},
        {"field": "measurement", "operator": "<", "threshold": "20", "type": "fixed", "value": "5",
         "label": "Small piece"},
    ]
    pid = pc.priced({**area(), "conditions": conditions}, price="2.00")
    wide = pc.calculate(pid, {"length": 12, "width": 11}).json
    # 132 sq ft x 2.00 = 264.00; 15 % of 264.00 = 39.60; total 303.60
    assert wide["surcharges"] == [{"type": "percentage", "value": 15, "amount": 39.6, "label": "Wide cut"}]
    assert wide["total_price"] == 303.6
    small = pc.calculate(pid, {"length": 3, "width": 4}).json
    # 12 sq ft x 2.00 = 24.00 + 5.00 = 29.00
    assert small["surcharges"] == [{"type": "fixed", "value": 5, "amount": 5, "label": "Small piece"}]
    assert small["total_price"] == 29
    plain = pc.calculate(pid, {"length": 5, "width": 5}).json
    assert plain["surcharges"] == [] and plain["total_price"] == 50


def test_surcharge_amount_is_rounded_half_up(pc):
    conditions = [{"field": "length", "operator": ">=", "threshold": "1", "type": "percentage", "value": "12.5",
                   "label": "Cutting"}]
    pid = pc.priced({**area(), "conditions": conditions}, price="1.00")
    body = pc.calculate(pid, {"length": "1.5", "width": 1}).json
    # 1.5 sq ft x 1.00 = 1.50; 12.5 % = 0.1875 -> 0.19; total 1.69
    assert body["surcharges"][0]["amount"] == 0.19 and body["total_price"] == 1.69


def test_total_is_rounded_half_up_not_half_even(pc):
    pid = pc.priced(area(), price="1.25")
    # 0.5 sq ft x 1.25 = 0.625 -> 0.63 (half-even would give 0.62)
    assert pc.calculate(pid, {"length": "0.5", "width": 1}).json["total_price"] == 0.63


def test_formatting_follows_the_currency_options(pc):
    for key, value in (("store.currency_symbol", "€"), ("store.currency_position", "right_space"),
                       ("store.thousand_separator", "."), ("store.decimal_separator", ",")):
        pc.site.set_option(key, value)
    pid = pc.priced(area(), price="1.2345")
    body = pc.calculate(pid, {"length": 100, "width": 10}).json
    # 1000 sq ft x 1.2345 = 1234.50
    assert body["total_price"] == 1234.5 and body["total_price_formatted"] == "1.234,50 €"


def test_zero_decimals_round_the_total(pc):
    pc.site.set_option("store.decimals", 0)
    pid = pc.priced(area(), price="1.25")
    body = pc.calculate(pid, {"length": 10, "width": "3.4"}).json
    # 34 sq ft x 1.25 = 42.50 -> 43 with no decimals (half-up)
    assert body["total_price"] == 43 and body["total_price_formatted"] == "$43"


def test_measurements_as_numeric_text(pc):
    pid = pc.priced(area(), price="1.00")
    assert pc.calculate(pid, {"length": "2.5", "width": " 4 "}).json["calculated_measurement"] == 10


def test_custom_formula_with_variables(pc):
    body = {
        "calculator_type": "custom",
        "settings": {"pricing_unit": "sq ft",
                     "fields": {"perimeter": {"unit": "ft", "max": "500"}, "height": {"unit": "ft"},
                                "openings": {"min": "0", "max": "20", "step": "1"}}},
        "variables": [{"name": "opening_area", "value": "18", "label": "One opening"},
                      {"name": "coats", "value": "2"}],
        "formula": "max(perimeter * height - openings * opening_area, 0) * coats",
    }
    pid = pc.priced(body, price="0.35")
    result = pc.calculate(pid, {"perimeter": 50, "height": 8, "openings": 3}).json
    # (50 x 8 - 3 x 18) x 2 = 692 sq ft x 0.35 = 242.20
    assert result["calculated_measurement"] == 692 and result["total_price"] == 242.2
    assert result["measurement_unit"] == "sq ft"


def test_formula_conditional_and_functions(pc):
    body = {"calculator_type": "custom",
            "settings": {"pricing_unit": "m", "fields": {"a": {}, "b": {}}},
            "formula": "ceil(a + b) if a > b else round(sqrt(a * b), 2)"}
    pid = pc.priced(body, price="1.00")
    assert pc.calculate(pid, {"a": "2.2", "b": "1.1"}).json["calculated_measurement"] == 4
    # sqrt(1 x 2) = 1.41421... -> 1.41
    assert pc.calculate(pid, {"a": 1, "b": 2}).json["calculated_measurement"] == 1.41


def test_a_price_costs_one_query_while_nothing_changes(pc):
    pid = pc.priced({**area(overage="5", minimum_price="3"), "pricing_rules": TIERS,
                     "conditions": [{"field": "width", "operator": ">", "threshold": "1", "type": "percentage",
                                     "value": "5"}]})
    pc.calculate(pid, {"length": 3, "width": 3})
    with count_queries(pc.site.engine) as n:
        pc.calculate(pid, {"length": 12, "width": 10})
    # Was two (the product joined with its calculator, the options). Now one: the generations with
    # the options; the product and calculator are kept per process until either changes.
    assert n() == 1


def test_calculate_is_public_and_ignores_no_credentials(pc):
    pid = pc.priced(area())
    res = pc.app.post_json(f"{PC}/calculate", {"product_id": pid, "measurements": {"length": 1, "width": 1}},
                           headers=pc.site.headers_for("customer"))
    assert res.json["success"] is True


def test_a_kept_price_follows_every_committed_change(pc):
    """A new price, a new calculator and an unpublished product apply at the next calculation,
    whoever wrote them (whatever keeps answers must let them through)."""
    from storeplatform.api import Product

    pid = pc.priced(area(), price="2.00")
    assert pc.calculate(pid, {"length": 1, "width": 1}).json["total_price"] == 2
    with pc.site.session() as s:  # outside REST, as another process or the CLI would
        s.get(Product, pid).regular_price = Decimal("3.00")
    assert pc.calculate(pid, {"length": 1, "width": 1}).json["total_price"] == 3
    pc.save(pid, area(minimum_price="50"))
    assert pc.calculate(pid, {"length": 1, "width": 1}).json["total_price"] == 50
    # A saved limit of an input applies at the next calculation.
    pc.save(pid, {"settings": {"fields": {"length": {"min": "0.25", "max": "0.5", "step": "0.25"}}}})
    res = pc.calculate(pid, {"length": 1, "width": 1}, status=400)
    assert assert_error(res, 400, "invalid_measurement")["data"]["field"] == "length"
    assert pc.calculate(pid, {"length": 0.5, "width": 1}).json["total_price"] == 50
    with pc.site.session() as s:
        s.get(Product, pid).status = "draft"
    assert_error(pc.calculate(pid, {"length": 1, "width": 1}, status=404), 404, "invalid_product")
