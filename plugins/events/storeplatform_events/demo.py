"""Demo data: venues, organizers, categories, a month of events, ticket products, orders with
attendees and a few check-ins. Everything goes through the same functions as REST, so each
action fires once."""
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import select

from storeplatform.api import Post, Product, Term, User, create_order

from . import checkin, posts, queries
from .models import CATEGORY_TAXONOMY, VENUE_TYPE

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
TITLES = ["Spring Concert", "Python Workshop", "Jazz Night", "Design Talk", "Family Picnic", "String Quartet",
          "Data Meetup", "Open Mic", "Photography Walk", "Chamber Choir", "Startup Pitch Night", "Kids' Theatre"]


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
    first = date(today.year, today.month, 1)
    events = []
    for index, title in enumerate(TITLES):
        day = first + timedelta(days=(index * 5 // 2) % 28)
        start = f"{10 + index % 9:02d}:00"
        values = {
            "title": title, "content": f"<p>{title}: an evening to remember.</p>", "excerpt": f"{title}.",
            "start_date": day, "start_time": start, "end_date": day, "end_time": f"{12 + index % 9:02d}:30",
            "venue_id": venues[index % len(venues)].id, "organizer_id": organizers[index % 2].id,
            "capacity": 100, "event_type": ("in-person", "hybrid", "virtual")[index % 3],
            "featured": index % 4 == 0, "categories": [terms[index % len(terms)].id],
        }
        if values["event_type"] != "in-person":
            values["virtual_url"] = "https://stream.example.com/" + str(index)
        events.append(posts.create(session, posts.EVENT, values, author_id=admin)[0])
    products = [Product(name=f"Ticket: {e.title}", sku=f"DEMO-EVT-{i + 1}", regular_price=Decimal("25.00"),
                        meta={"event_id": e.id}) for i, e in enumerate(events[:3])]
    session.add_all(products)
    session.flush()
    buyers = [("Anna", "Nowak", "anna@example.com"), ("Björn", "Larsson", "bjorn@example.com"),
              ("Chloé", "Martin", "chloe@example.com")]
    orders = []
    for index, (first_name, last_name, email) in enumerate(buyers):
        orders.append(create_order(
            session, line_items=[{"product_id": products[index % 3].id, "quantity": 2},
                                 {"product_id": products[(index + 1) % 3].id, "quantity": 1}],
            billing={"first_name": first_name, "last_name": last_name, "email": email, "country": "AT"},
            status="completed"))
    from .models import Attendee

    first_tickets = session.execute(select(Attendee.ticket_code).where(Attendee.order_id == orders[0].id)
                                    .order_by(Attendee.id).limit(2)).scalars().all()
    for code in first_tickets:
        checkin.check_in(session, code)
