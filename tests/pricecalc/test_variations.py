"""Variable products: variation_id selects a variation's price and its own configuration."""
from decimal import Decimal

import pytest

from storeplatform.testing import assert_error, count_queries

AREA = {"calculator_type": "area", "settings": {"pricing_unit": "sq ft"}}


@pytest.fixture
def shop(pc):
    parent = pc.priced(AREA, price=None, type="variable")
    plain = pc.product("Plain variation", price="4.00", type="variation", parent_id=parent)
    own = pc.product("Own calculator", price="3.00", type="variation", parent_id=parent)
    pc.save(own, {"calculator_type": "length", "settings": {"pricing_unit": "m"}})
    other_parent = pc.priced(AREA, price=None, type="variable")
    stranger = pc.product("Other's variation", price="1.00", type="variation", parent_id=other_parent)
    simple = pc.priced(AREA, price="2.00")
    return {"parent": parent, "plain": plain, "own": own, "stranger": stranger, "simple": simple}


def test_variation_price_with_the_parent_configuration(pc, shop):
    body = pc.calculate(shop["parent"], {"length": 3, "width": 2}, variation_id=shop["plain"]).json
    # 6 sq ft x the variation's 4.00 = 24.00
    assert body["price_per_unit"] == 4 and body["total_price"] == 24


def test_variation_with_its_own_configuration(pc, shop):
    body = pc.calculate(shop["parent"], {"length": "2.5"}, variation_id=shop["own"]).json
    # 2.5 m x 3.00 = 7.50
    assert body["measurement_unit"] == "m" and body["total_price"] == 7.5
    assert_error(pc.calculate(shop["parent"], {"length": 2, "width": 2}, variation_id=shop["own"], status=400),
                 400, "invalid_measurement", field="width")


def test_variation_sale_price_applies(pc, shop):
    sale = pc.product("On sale", price="4.00", sale_price=Decimal("3.50"), type="variation", parent_id=shop["parent"])
    assert pc.calculate(shop["parent"], {"length": 2, "width": 1}, variation_id=sale).json["total_price"] == 7


def test_parent_without_variation_uses_its_own_price(pc, shop):
    # the variable product itself has no price: 0 per sq ft
    assert pc.calculate(shop["parent"], {"length": 2, "width": 2}).json["total_price"] == 0


def test_variation_of_another_product_is_refused(pc, shop):
    res = pc.calculate(shop["parent"], {"length": 1, "width": 1}, variation_id=shop["stranger"], status=404)
    assert_error(res, 404, "invalid_product", field="variation_id")


@pytest.mark.parametrize("variation", ["simple", "parent", "missing"])
def test_variation_id_that_is_no_variation_is_refused(pc, shop, variation):
    vid = 999999 if variation == "missing" else shop[variation]
    res = pc.calculate(shop["parent"], {"length": 1, "width": 1}, variation_id=vid, status=404)
    assert_error(res, 404, "invalid_product", field="variation_id")


def test_variation_id_on_a_simple_product_is_refused(pc, shop):
    res = pc.calculate(shop["simple"], {"length": 1, "width": 1}, variation_id=shop["plain"], status=404)
    assert_error(res, 404, "invalid_product")


def test_a_variation_as_product_id_is_refused(pc, shop):
    assert_error(pc.calculate(shop["plain"], {"length": 1, "width": 1}, status=404), 404, "invalid_product")


def test_variation_with_disabled_own_calculator_is_refused(pc, shop):
    pc.save(shop["own"], {"settings": {"enabled": "no"}})
    res = pc.calculate(shop["parent"], {"length": 1}, variation_id=shop["own"], status=404)
    assert_error(res, 404, "invalid_product")


def test_variation_calculation_stays_within_two_queries(pc, shop):
    pc.calculate(shop["parent"], {"length": 1, "width": 1}, variation_id=shop["plain"])
    for vid, measurements in ((shop["plain"], {"length": 1, "width": 1}), (shop["own"], {"length": 1})):
        counts = []
        for _ in range(2):
            with count_queries(pc.site.engine) as n:
                pc.calculate(shop["parent"], measurements, variation_id=vid)
            counts.append(n())
        # The first price of a pair reads it (two), the next one has it kept (the generations only).
        assert counts[0] <= 2 and counts[1] == 1, counts


def test_get_calculator_of_a_variation(pc, shop):
    own = pc.config(shop["own"]).json
    assert own["product_id"] == shop["own"] and own["calculator_type"] == "length"
    inherited = pc.config(shop["plain"]).json
    assert inherited["product_id"] == shop["plain"] and inherited["calculator_type"] == "area"
    assert pc.table(shop["plain"]).json == {"product_id": shop["plain"], "pricing_unit": "sq ft", "rules": []}


def test_a_draft_variation_is_refused_on_variation_id(pc, shop):
    draft = pc.product("Draft variation", price="4.00", type="variation", parent_id=shop["parent"], status="draft")
    res = pc.calculate(shop["parent"], {"length": 1, "width": 1}, variation_id=draft, status=404)
    assert_error(res, 404, "invalid_product", field="variation_id")
    assert_error(pc.config(draft, status=404), 404, "invalid_product")


def test_a_draft_parent_hides_what_its_variations_inherit(pc):
    parent = pc.priced(AREA, price=None, type="variable", status="draft")
    plain = pc.product("Plain variation", price="4.00", type="variation", parent_id=parent)
    own = pc.product("Own calculator", price="3.00", type="variation", parent_id=parent)
    pc.save(own, {"calculator_type": "length", "settings": {"pricing_unit": "m"}})
    for vid in (plain, own):  # calculate names the parent, which the public may not see
        assert_error(pc.calculate(parent, {"length": 1}, variation_id=vid, status=404), 404, "invalid_product")
    # The calculator routes name the variation: its own calculator shows, the parent's does not.
    assert pc.config(own).json["calculator_type"] == "length"
    assert pc.table(own).json["pricing_unit"] == "m"
    assert_error(pc.config(plain, status=404), 404, "invalid_product")
    assert_error(pc.table(plain, status=404), 404, "invalid_product")


def test_calculator_routes_of_a_variation_read_the_parent_only_when_they_inherit(pc, shop):
    # The generations with the options (what the host's cache files rows and answers under), the
    # variation joined with its calculator, and the parent joined with its own when it inherits.
    for vid, parent_read in ((shop["own"], 0), (shop["plain"], 1)):
        with count_queries(pc.site.engine) as n:
            pc.config(vid)
        assert n() == 2 + parent_read, vid
    # The pricing table works on the same rows, which the host's cache holds: only the generations.
    for vid in (shop["own"], shop["plain"]):
        with count_queries(pc.site.engine) as n:
            pc.table(vid)
        assert n() == 1, vid
