"""Demo data: a few orders of the last days with names in several scripts, each with its
document rendered."""
from datetime import timedelta
from decimal import Decimal

from sqlalchemy import select

from storeplatform.api import Product, create_order, utcnow

from .documents import regenerate

DEMO_SKU = "INVOICING-DEMO-LAMP"
# When each demo order was placed, in days before the load.
PLACED_DAYS_AGO = (9, 5, 1)


def load_demo(session):
    if session.execute(select(Product.id).where(Product.sku == DEMO_SKU)).first() is not None:
        return
    lamp = Product(name="Desk lamp", sku=DEMO_SKU, regular_price=Decimal("39.90"), meta={})
    cable = Product(name="Кабель USB-C (2 м)", sku="INVOICING-DEMO-CABLE", regular_price=Decimal("7.25"), meta={})
    session.add_all([lamp, cable])
    session.flush()
    orders = [
        ({"first_name": "Ωμέγα", "last_name": "Παπαδοπούλου", "address_1": "Οδός Ερμού 12", "city": "Αθήνα",
          "postcode": "105 63", "country": "GR", "email": "omega@example.com"}, "completed", None),
        ({"first_name": "Дмитрий", "last_name": "Соколов", "address_1": "ул. Ленина 5", "city": "Новосибирск",
          "postcode": "630000", "country": "RU", "email": "dmitry.sokolov@example.com"}, "refunded", None),
        ({"first_name": "Zoë", "last_name": "Łukasz", "company": "Łukasz & Córka", "address_1": "ul. Długa 3",
          "city": "Gdańsk", "postcode": "80-001", "country": "PL", "email": "zoe.lukasz@example.com"},
         "processing", "packing-slip"),
    ]
    now = utcnow()
    for (billing, status, extra_type), days_ago in zip(orders, PLACED_DAYS_AGO):
        order = create_order(session, line_items=[{"product_id": lamp.id, "quantity": 1},
                                                  {"product_id": cable.id, "quantity": 3}],
                             billing=billing, status=status)
        # Placed in the last days (a shop's dates, not all the load's), before its document is made.
        order.created_at = order.modified_at = now - timedelta(days=days_ago, hours=2 * days_ago + 1)
        session.flush()
        # Rendered now, so the demo shows documents even before a worker runs.
        regenerate(session, order)
        if extra_type:
            regenerate(session, order, extra_type)
