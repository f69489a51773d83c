"""GET products/{id}/pricing-table: rules enriched with formatted prices and sale status."""
from datetime import datetime, timedelta, timezone

from storeplatform.testing import assert_error, count_queries

PAST = (datetime.now(timezone.utc) - timedelta(days=3)).isoformat()
YESTERDAY = (datetime.now(timezone.utc) - timedelta(days=1)).isoformat()
FUTURE = (datetime.now(timezone.utc) + timedelta(days=3)).isoformat()

RULES = [
    {"range_start": "0", "range_end": "99.5", "price": "1234.5"},
    {"range_start": "99.5", "range_end": "500", "price": "4.25", "sale_price": "3.99", "sale_to": FUTURE},
    {"range_start": "500", "range_end": "1000", "price": "4", "sale_price": "3", "sale_from": PAST,
     "sale_to": YESTERDAY},
    {"range_start": "1000", "range_end": None, "price": "3.5", "sale_price": "3.25", "sale_from": FUTURE},
]


def test_pricing_table_shape_and_values(pc):
    pid = pc.priced({"calculator_type": "area", "settings": {"pricing_unit": "sq yd"}, "pricing_rules": RULES})
    with count_queries(pc.site.engine) as n:
        body = pc.table(pid).json
    assert n() == 2
    assert body == {"product_id": pid, "pricing_unit": "sq yd", "rules": [
        {"range_start": 0, "range_end": 99.5, "price": 1234.5, "price_formatted": "$1,234.50", "sale_price": None,
         "sale_price_formatted": None, "is_sale_active": False},
        {"range_start": 99.5, "range_end": 500, "price": 4.25, "price_formatted": "$4.25", "sale_price": 3.99,
         "sale_price_formatted": "$3.99", "is_sale_active": True},
        {"range_start": 500, "range_end": 1000, "price": 4, "price_formatted": "$4.00", "sale_price": 3,
         "sale_price_formatted": "$3.00", "is_sale_active": False},
        {"range_start": 1000, "range_end": None, "price": 3.5, "price_formatted": "$3.50", "sale_price": 3.25,
         "sale_price_formatted": "$3.25", "is_sale_active": False},
    ]}


def test_pricing_table_formats_with_the_store_options(pc):
    pc.site.set_option("store.currency", "EUR")
    pc.site.set_option("store.currency_position", "right")
    pc.site.set_option("store.decimal_separator", ",")
    pc.site.set_option("store.thousand_separator", " ")
    pid = pc.priced({"calculator_type": "length", "pricing_rules": RULES[:1]})
    assert pc.table(pid).json["rules"][0]["price_formatted"] == "1 234,50€"


def test_pricing_table_without_rules_is_empty(pc):
    pid = pc.priced({"calculator_type": "weight"})
    assert pc.table(pid).json == {"product_id": pid, "pricing_unit": "lb", "rules": []}


def test_pricing_table_errors(pc):
    assert_error(pc.table(999999, status=404), 404, "invalid_product")
    assert_error(pc.table(pc.product(), status=404), 404, "invalid_product")
