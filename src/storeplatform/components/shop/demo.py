"""Demo data of the store core: users, a few products and orders."""
from decimal import Decimal

from sqlalchemy import select

from storeplatform.core.auth.passwords import hash_password
from .models import Product, User
from .orders import create_order

DEMO_USERS = [
    ("admin", "administrator", "admin@example.com", "Site Admin"),
    ("manager", "shop_manager", "manager@example.com", "Shop Manager"),
    ("editor", "editor", "editor@example.com", "Edith Editor"),
    ("customer", "customer", "customer@example.com", "Zoë Łukasz"),
]
DEMO_PASSWORD = "demo-password"


def load_demo(session):
    if session.execute(select(User.id).where(User.login == "admin")).first() is not None:
        return
    users = {}
    for login, role, email, name in DEMO_USERS:
        users[login] = User(login=login, role=role, email=email, display_name=name,
                            password_hash=hash_password(DEMO_PASSWORD))
        session.add(users[login])
    products = [
        Product(name="T-shirt", sku="DEMO-TS", regular_price=Decimal("19.99"), meta={}),
        Product(name="Mug", sku="DEMO-MUG", regular_price=Decimal("9.50"), sale_price=Decimal("7.50"), meta={}),
        Product(name="Poster", sku="DEMO-POSTER", regular_price=Decimal("14.00"), meta={}),
    ]
    session.add_all(products)
    session.flush()
    billing = {"first_name": "Zoë", "last_name": "Łukasz", "address_1": "Ulica 1", "city": "Kraków",
               "postcode": "30-001", "country": "PL", "email": "zoe@example.com"}
    create_order(session, line_items=[{"product_id": products[0].id, "quantity": 2},
                                      {"product_id": products[1].id, "quantity": 1}],
                 billing=billing, status="completed", customer_id=users["customer"].id)
    create_order(session, line_items=[{"product_id": products[2].id, "quantity": 3}],
                 billing={"first_name": "Дмитрий", "last_name": "Иванов", "city": "Москва", "country": "RU",
                          "email": "dmitry@example.com"}, status="processing")


def demo_logins(session):
    """The demo users that still log in with the demo password, as ``[(login, role)]``: a site
    whose owner changed them names none."""
    from sqlalchemy import select

    from storeplatform.core.auth.passwords import verify_password

    from .models import User

    logins = [login for login, *_ in DEMO_USERS]
    rows = session.execute(select(User.login, User.role, User.password_hash, User.disabled)
                           .where(User.login.in_(logins))).all()
    found = {row.login: row for row in rows}
    return [(login, found[login].role) for login in logins
            if login in found and not found[login].disabled and verify_password(DEMO_PASSWORD, found[login].password_hash)]
