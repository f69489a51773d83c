"""Demo products with calculators: flooring per sq ft with tiers, fabric per metre, gravel per
cubic yard, and a custom formula (paint by wall area)."""
from decimal import Decimal

from sqlalchemy import select

from storeplatform.api import Product

from .merge import merge
from .models import Calculator
from .readmodel import store
from .validation import clean

DEMO = [
    ("Oak flooring", "DEMO-PC-FLOOR", "5.99", {
        "calculator_type": "area",
        "settings": {"pricing_unit": "sq ft", "pricing_label": "Price per sq ft", "overage": "10",
                     "minimum_price": "50", "fields": {"length": {"max": "200"}, "width": {"max": "200"}}},
        "pricing_rules": [
            {"range_start": "0", "range_end": "100", "price": "5.99"},
            {"range_start": "100", "range_end": "500", "price": "5.49", "sale_price": "4.99"},
            {"range_start": "500", "range_end": None, "price": "4.79"},
        ],
    }),
    ("Linen fabric", "DEMO-PC-FABRIC", "12.00", {
        "calculator_type": "length",
        "settings": {"pricing_unit": "m", "pricing_label": "Price per metre", "minimum_price": "6",
                     "fields": {"length": {"label": "Length", "unit": "cm", "min": "10", "max": "5000",
                                           "step": "10"}}},
        "conditions": [{"field": "length", "operator": ">=", "threshold": "1000", "type": "percentage",
                        "value": "-10", "label": "Bolt discount"}],
    }),
    ("Pea gravel", "DEMO-PC-GRAVEL", "48.00", {
        "calculator_type": "volume",
        "settings": {"pricing_unit": "cu yd", "pricing_label": "Price per cubic yard", "minimum_price": "25",
                     "fields": {"length": {"unit": "ft"}, "width": {"unit": "ft"},
                                "height": {"label": "Depth", "unit": "in", "min": "1", "max": "24", "step": "1"}}},
        "conditions": [{"field": "measurement", "operator": "<", "threshold": "1", "type": "fixed",
                        "value": "15", "label": "Small load delivery"}],
    }),
    ("Wall paint", "DEMO-PC-PAINT", "0.35", {
        "calculator_type": "custom",
        "settings": {"pricing_unit": "sq ft", "pricing_label": "Price per sq ft of wall",
                     "fields": {"perimeter": {"label": "Room perimeter", "unit": "ft", "max": "500"},
                                "height": {"label": "Wall height", "unit": "ft", "max": "30"},
                                "openings": {"label": "Doors and windows", "unit": "", "min": "0", "max": "20",
                                             "step": "1"}}},
        "variables": [{"name": "opening_area", "label": "Area of one opening (sq ft)", "value": "18"},
                      {"name": "coats", "label": "Coats", "value": "2"}],
        "formula": "max(perimeter * height - openings * opening_area, 0) * coats",
    }),
]


def load_demo(session):
    if session.execute(select(Product.id).where(Product.sku == DEMO[0][1])).first() is not None:
        return
    for name, sku, price, body in DEMO:
        product = Product(name=name, sku=sku, regular_price=Decimal(price), meta={})
        session.add(product)
        session.flush()
        calc = Calculator(product_id=product.id)
        store(calc, clean(merge(None, body)))
        session.add(calc)
    session.flush()
