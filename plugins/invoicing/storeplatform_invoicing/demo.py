"""Demo data: a few orders with names in several scripts, each with its document rendered."""
from decimal import Decimal

from sqlalchemy import select

from storeplatform.api import Product, create_order

from .documents import regenerate

DEMO_SKU = "INVOICING-DEMO-LAMP"


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
    for billing, status, extra_type in orders:
        order = create_order(session, line_items=[{"product_id": lamp.id, "quantity": 1},
                                                  {"product_id": cable.id, "quantity": 3}],
                             billing=billing, status=status)
        # Rendered now, so the demo shows documents even before a worker runs.
        regenerate(session, order)
        if extra_type:
            regenerate(session, order, extra_type)
