"""Demo data: venues, organizers, categories, a dozen events around the day the demo is loaded
(one today, most upcoming, two past), a ticket product for each, orders for them placed over the
weeks before, and check-ins: at today's door in the last hours, and at the past events. What a
new owner opens first (the dashboard's next events and today's check-ins, the desk's choice)
shows a season under way.

Everything goes through the same functions as REST and the door, so each action fires once. The
sales come from a seeded generator: the same on every load, dated from the day it is loaded."""
import random
from datetime import datetime, time, timedelta
from decimal import Decimal
from typing import NamedTuple

from sqlalchemy import select

from storeplatform.api import Post, Product, Term, User, create_order, site_timezone, utcnow

from . import checkin, posts, queries, ticket_mail
from .models import CATEGORY_TAXONOMY, VENUE_TYPE, Attendee

VENUES = [
    {"name": "Grand Hall", "address": "1 Concert Square", "city": "Vienna", "country": "AT", "postal": "1010",
     "capacity": 800, "website": "https://grandhall.example.com"},
    {"name": "Riverside Pavilion", "address": "22 Quay Road", "city": "Lyon", "country": "FR", "postal": "69002",
     "capacity": 250},
    {"name": "Tech Loft", "address": "5 Ulica Długa", "city": "Kraków", "country": "PL", "postal": "30-001",
     "capacity": 120, "email": "hello@techloft.example.com"},
]
ORGANIZERS = [
    {"name": "City Arts Society", "email": "arts@example.com", "website": "https://arts.example.com"},
    {"name": "Open Source Meetups", "email": "meet@example.com", "twitter": "@osmeetups"},
]
CATEGORIES = [("Music", "music", "#e11d48"), ("Workshops", "workshops", "#2563eb"),
              ("Talks", "talks", "#16a34a"), ("Family", "family", "#f59e0b")]
# (title, days from the load, start, end, ticket price): today's first, then the upcoming ones,
# then two past.
EVENTS = [
    ("Family Picnic", 0, "09:00", "21:00", "12.00"),
    ("Spring Concert", 2, "19:30", "22:00", "35.00"),
    ("Python Workshop", 4, "09:00", "17:00", "45.00"),
    ("Jazz Night", 7, "20:00", "23:30", "25.00"),
    ("Design Talk", 9, "18:00", "19:30", "10.00"),
    ("String Quartet", 12, "19:00", "21:00", "30.00"),
    ("Data Meetup", 16, "18:30", "21:00", "15.00"),
    ("Open Mic", 20, "20:00", "23:00", "8.00"),
    ("Photography Walk", 25, "10:00", "13:00", "20.00"),
    ("Chamber Choir", 31, "19:00", "21:00", "28.00"),
    ("Startup Pitch Night", -6, "18:00", "21:00", "15.00"),
    ("Kids' Theatre", -15, "15:00", "16:30", "9.50"),
]
CAPACITIES = (60, 80, 120, 40)
BUYERS = [("Anna", "Nowak", "anna@example.com", "PL"), ("Björn", "Larsson", "bjorn@example.com", "SE"),
          ("Chloé", "Martin", "chloe@example.com", "FR"), ("Dimitra", "Georgiou", "dimitra@example.com", "GR"),
          ("Emil", "Novák", "emil@example.com", "CZ"), ("Fatima", "Haddad", "fatima@example.com", "AT"),
          ("Grace", "O'Neill", "grace@example.com", "IE"), ("Hiroshi", "Tanaka", "hiroshi@example.com", "AT")]
DEMO_SEED = 20240407
# Orders are placed up to this many days before their event, never earlier than the shop's
# demo history (60 days) nor later than today.
SOLD_WITHIN_DAYS = 40
# Share of the tickets that came in: at today's door so far, and at the past events.
CAME_TODAY, CAME_PAST = 0.6, 0.85
# Today's door opened this long before the demo was loaded (within today).
DOOR_OPEN_MINUTES = 150


class TicketOrder(NamedTuple):
    event: int  # index in EVENTS
    days_ago: int  # when the order was placed, days before the load
    hour: int
    buyer: int  # index in BUYERS
    quantity: int


def ticket_orders(seed=DEMO_SEED):
    """The demo's ticket orders, event by event: two to four per event (six to eight for today's,
    whose door is open), one to five tickets each, placed on days before the event. The same list
    for the same seed."""
    rng = random.Random(seed)
    orders = []
    for index, (_, day, *_) in enumerate(EVENTS):
        for _ in range(rng.randint(6, 8) if day == 0 else rng.randint(2, 4)):
            placed = min(max(day - rng.randint(1, SOLD_WITHIN_DAYS), -59), 0)
            orders.append(TicketOrder(index, -placed, rng.randint(8, 22), rng.randrange(len(BUYERS)),
                                      rng.randint(1, 5)))
    return orders


def load_demo(session):
    if session.execute(select(Post.id).where(Post.post_type == VENUE_TYPE).limit(1)).first() is not None:
        return
    admin = session.execute(select(User.id).where(User.login == "admin")).scalar()
    terms = [Term(taxonomy=CATEGORY_TAXONOMY, name=n, slug=s, color=c, description=f"{n} events") for n, s, c in
             CATEGORIES]
    session.add_all(terms)
    session.flush()
    venues = [posts.create(session, posts.VENUE, v, author_id=admin)[0] for v in VENUES]
    organizers = [posts.create(session, posts.ORGANIZER, o, author_id=admin)[0] for o in ORGANIZERS]
    today = queries.today(session)
    events = []
    for index, (title, day, start, end, _) in enumerate(EVENTS):
        values = {
            "title": title, "content": f"<p>{title}: an evening to remember.</p>", "excerpt": f"{title}.",
            "start_date": today + timedelta(days=day), "start_time": start, "end_date": today + timedelta(days=day),
            "end_time": end, "venue_id": venues[index % len(venues)].id, "organizer_id": organizers[index % 2].id,
            "capacity": CAPACITIES[index % len(CAPACITIES)],
            "event_type": ("in-person", "hybrid", "virtual")[index % 3],
            "featured": index % 4 == 0, "categories": [terms[index % len(terms)].id],
        }
        if values["event_type"] != "in-person":
            values["virtual_url"] = "https://stream.example.com/" + str(index)
        events.append(posts.create(session, posts.EVENT, values, author_id=admin)[0])
    products = [Product(name=f"Ticket: {e.title}", sku=f"DEMO-EVT-{i + 1}", regular_price=Decimal(EVENTS[i][4]),
                        meta={"event_id": e.id}) for i, e in enumerate(events)]
    session.add_all(products)
    session.flush()
    tz = site_timezone(session)
    now = utcnow()
    # The demo's buyers are made up: their orders get no tickets message (ticket_mail.py).
    session.info[ticket_mail.QUIET] = True
    for planned in ticket_orders():
        first_name, last_name, email, country = BUYERS[planned.buyer]
        order = create_order(session, line_items=[{"product_id": products[planned.event].id,
                                                   "quantity": planned.quantity}],
                             billing={"first_name": first_name, "last_name": last_name, "email": email,
                                      "country": country}, status="completed")
        order.created_at = order.modified_at = _local(now, tz, today - timedelta(days=planned.days_ago),
                                                      time(planned.hour))
    session.flush()
    session.info.pop(ticket_mail.QUIET, None)
    _check_in(session, events, today, now, tz)


def _check_in(session, events, today, now, tz):
    """Today's door: more than half the tickets in, over the last hours; the past events: most of
    theirs, around their start. Through the door's own check-in, then dated."""
    rng = random.Random(DEMO_SEED)
    opened = max(now - timedelta(minutes=DOOR_OPEN_MINUTES), _local(now, tz, today, time(0)))
    for index, (_, day, start, _, _) in enumerate(EVENTS):
        if day > 0:
            continue
        codes = session.execute(select(Attendee.ticket_code).where(Attendee.event_id == events[index].id)
                                .order_by(Attendee.id)).scalars().all()
        came = codes[:round(len(codes) * (CAME_TODAY if day == 0 else CAME_PAST))]
        if day == 0:
            first, span = opened, now - opened
        else:  # doors open half an hour before the start
            first = _local(now, tz, today + timedelta(days=day), time.fromisoformat(start)) - timedelta(minutes=30)
            span = timedelta(minutes=75)
        for code in came:
            attendee = checkin.check_in(session, code)[0]
            moment = first + span * rng.random()
            session.execute(Attendee.__table__.update().where(Attendee.id == attendee.id)
                            .values(checked_in_at=moment, modified_at=moment))


def _local(now, tz, day, at):
    """``at`` on the local ``day``, in UTC; never later than ``now``."""
    return min(datetime.combine(day, at, tzinfo=tz).astimezone(now.tzinfo), now)
