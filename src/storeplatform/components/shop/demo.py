"""Demo data of the store core: users, a few products, and two months of orders (what a new owner
sees on the dashboard is a shop that has been selling, not a day's test orders).

The orders' days and contents come from a seeded generator: the same shop on every load, its
dates counted back from the day it is loaded."""
import random
from datetime import datetime, time, timedelta
from decimal import Decimal
from typing import NamedTuple

from sqlalchemy import select

from storeplatform.core.auth.passwords import hash_password
from storeplatform.core.db.types import utcnow
from storeplatform.core.options import site_timezone
from .models import Product, User
from .orders import create_order

DEMO_USERS = [
    ("admin", "administrator", "admin@example.com", "Site Admin"),
    ("manager", "shop_manager", "manager@example.com", "Shop Manager"),
    ("editor", "editor", "editor@example.com", "Edith Editor"),
    ("customer", "customer", "customer@example.com", "Zoë Łukasz"),
]
DEMO_PASSWORD = "demo-password"
# The buyers of the history (the demo customer among them), names in several scripts.
BUYERS = [
    {"first_name": "Zoë", "last_name": "Łukasz", "address_1": "Ulica 1", "city": "Kraków", "postcode": "30-001",
     "country": "PL", "email": "zoe@example.com"},
    {"first_name": "Amélie", "last_name": "Durand", "city": "Lyon", "country": "FR", "email": "amelie@example.com"},
    {"first_name": "Jonas", "last_name": "Müller", "city": "Graz", "country": "AT", "email": "jonas@example.com"},
    {"first_name": "Ελένη", "last_name": "Παππά", "city": "Θεσσαλονίκη", "country": "GR", "email": "eleni@example.com"},
    {"first_name": "Sam", "last_name": "Okafor", "city": "Leeds", "country": "GB", "email": "sam@example.com"},
    {"first_name": "Ingrid", "last_name": "Berg", "city": "Bergen", "country": "NO", "email": "ingrid@example.com"},
]
# The history: this many orders on as many different days of the last HISTORY_DAYS (today
# included), drawn by a generator seeded with DEMO_SEED.
DEMO_SEED = 20240406
HISTORY_DAYS = 60
HISTORY_ORDERS = 28


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
    tz = site_timezone(session)
    now = utcnow()
    zoe = create_order(session, line_items=[{"product_id": products[0].id, "quantity": 2},
                                            {"product_id": products[1].id, "quantity": 1}],
                       billing=BUYERS[0], status="completed", customer_id=users["customer"].id)
    placed_on(zoe, local_time(now, tz, 3, 14, 20))
    create_order(session, line_items=[{"product_id": products[2].id, "quantity": 3}],
                 billing={"first_name": "Дмитрий", "last_name": "Иванов", "city": "Москва", "country": "RU",
                          "email": "dmitry@example.com"}, status="processing")
    for planned in order_history():
        buyer = BUYERS[planned.buyer]
        order = create_order(session, line_items=[{"product_id": products[index].id, "quantity": quantity}
                                                  for index, quantity in planned.lines],
                             billing=buyer, status=planned.status,
                             customer_id=users["customer"].id if planned.buyer == 0 else None)
        placed_on(order, local_time(now, tz, planned.days_ago, planned.hour, planned.minute))
    session.flush()


class PlannedOrder(NamedTuple):
    days_ago: int
    hour: int
    minute: int
    buyer: int  # index in BUYERS (0: the demo customer's account)
    lines: list  # (product index, quantity)
    status: str


def order_history(seed=DEMO_SEED):
    """The demo's orders, oldest first: ``PlannedOrder``s (days before the load, local time,
    buyer, ``(product index, quantity)`` lines, status). The same list for the same seed.
    Most are paid (completed; processing in the last days), a few still pending, on hold or
    cancelled, as in a shop's real list."""
    rng = random.Random(seed)
    days = sorted(rng.sample(range(1, HISTORY_DAYS), HISTORY_ORDERS - 1) + [0], reverse=True)
    planned = []
    for days_ago in days:
        products = rng.sample(range(3), rng.choice((1, 1, 2, 3)))
        lines = [(index, rng.choice((1, 1, 1, 2, 3))) for index in sorted(products)]
        paid = "processing" if days_ago < 4 else "completed"
        status = rng.choices((paid, "pending", "on-hold", "cancelled"), weights=(85, 6, 4, 5))[0]
        planned.append(PlannedOrder(days_ago, rng.randint(8, 21), rng.randrange(0, 60, 5), rng.randrange(len(BUYERS)),
                                    lines, status))
    return planned


def local_time(now, tz, days_ago, hour, minute):
    """``hour:minute`` of the local day ``days_ago`` days before ``now`` (UTC), in UTC; an
    hour still to come today is moved back to before ``now``."""
    day = now.astimezone(tz).date() - timedelta(days=days_ago)
    moment = datetime.combine(day, time(hour, minute), tzinfo=tz)
    if moment > now:
        moment = now - timedelta(minutes=5 + minute)
    return moment.astimezone(now.tzinfo)


def placed_on(order, moment):
    """Date ``order`` (just made, so made now) at ``moment``, as if it had been placed then."""
    order.created_at = order.modified_at = moment


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
