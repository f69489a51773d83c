"""Benchmark of the events plugin's hot routes on a large catalogue.

10,000 events, 500 venues, 100 organizers, 20 categories and 100,000 attendees are bulk
inserted into a fresh database (SQLite in a temporary folder; PostgreSQL when
STOREPLATFORM_DATABASE_URL names a server). Each route is then called in-process through
WebTest, like a bare Pyramid JSON view served the same way in the same run; the report gives
requests per second, the ratio to the bare view, and the SQL queries per request.

    .venv/bin/python bench/events_bench.py [--requests 200]
"""
import argparse
import random
import tempfile
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import insert

N_EVENTS = 10_000
N_VENUES = 500
N_ORGANIZERS = 100
N_CATEGORIES = 20
N_ATTENDEES = 100_000
BIG_EVENT_ATTENDEES = 5_000  # one sold-out event, the rest spread over the others


def bare_app():
    from pyramid.config import Configurator
    from webtest import TestApp

    with Configurator() as config:
        config.add_route("bare", "/bare")
        config.add_view(lambda request: {"ok": True, "items": []}, route_name="bare", renderer="json")
        return TestApp(config.make_wsgi_app())


def generate(site):
    from storeplatform.components.shop.models import Post, PostTerm, Term
    from storeplatform_events.models import Attendee, EventDetails, OrganizerDetails, VenueDetails
    from storeplatform_events.tickets import new_ticket_code

    rng = random.Random(7)
    now = datetime.now(timezone.utc)
    today = date.today()
    venue_ids = list(range(1, N_VENUES + 1))
    organizer_ids = list(range(N_VENUES + 1, N_VENUES + N_ORGANIZERS + 1))
    first_event = N_VENUES + N_ORGANIZERS + 1
    event_ids = list(range(first_event, first_event + N_EVENTS))

    def post(pid, post_type, title):
        return {"id": pid, "post_type": post_type, "title": title, "slug": f"{post_type}-{pid}", "content": "",
                "excerpt": "", "status": "publish", "created_at": now - timedelta(minutes=pid),
                "modified_at": now}

    with site.session() as s:
        s.execute(insert(Term), [{"id": i, "taxonomy": "evt_category", "name": f"Category {i}", "slug": f"cat-{i}",
                                  "description": "", "color": f"#{i:06x}"} for i in range(1, N_CATEGORIES + 1)])
        s.execute(insert(Post), [post(i, "evt_venue", f"Venue {i}") for i in venue_ids]
                  + [post(i, "evt_organizer", f"Organizer {i}") for i in organizer_ids]
                  + [post(i, "evt_event", f"Event {i}") for i in event_ids])
        s.execute(insert(VenueDetails), [{"post_id": i, "address": f"{i} Street", "city": f"City {i % 50}",
                                          "state": "", "country": "AT", "postal": "1010", "capacity": 500,
                                          "phone": "", "email": "", "website": ""} for i in venue_ids])
        s.execute(insert(OrganizerDetails), [{"post_id": i, "phone": "", "email": f"o{i}@example.com", "website": "",
                                              "facebook": "", "twitter": "", "linkedin": ""} for i in organizer_ids])
        events = []
        for n, pid in enumerate(event_ids):
            day = today + timedelta(days=n % 400 - 30)
            events.append({"post_id": pid, "start_date": day, "start_time": f"{10 + n % 10:02d}:00", "end_date": day,
                           "end_time": "23:00", "timezone": "UTC", "all_day": False,
                           "venue_id": rng.choice(venue_ids), "organizer_id": rng.choice(organizer_ids),
                           "capacity": 100, "event_status": "scheduled", "event_type": "in-person",
                           "virtual_url": "", "featured": n % 10 == 0, "featured_image": None})
        s.execute(insert(EventDetails), events)
        s.execute(insert(PostTerm), [{"post_id": pid, "term_id": 1 + pid % N_CATEGORIES} for pid in event_ids])
        big_event = event_ids[0]
        rows = []
        for n in range(N_ATTENDEES):
            event_id = big_event if n < BIG_EVENT_ATTENDEES else event_ids[1 + n % (N_EVENTS - 1)]
            rows.append({"event_id": event_id, "order_id": None, "order_item_id": None, "ticket_index": 0,
                         "user_id": None, "first_name": f"First{n}", "last_name": f"Last{n}",
                         "email": f"a{n}@example.com", "phone": "", "ticket_code": new_ticket_code(),
                         "status": "active", "custom_fields": {}, "created_at": now - timedelta(seconds=n),
                         "modified_at": now})
        for start in range(0, len(rows), 10_000):
            s.execute(insert(Attendee), rows[start:start + 10_000])
        if site.engine.dialect.name == "postgresql":
            s.execute(__import__("sqlalchemy").text("ANALYZE"))
    codes = [r["ticket_code"] for r in rows[:BIG_EVENT_ATTENDEES]]
    return big_event, codes


def measure(call, n):
    call(0)  # warm-up
    start = time.perf_counter()
    for i in range(1, n + 1):
        call(i)
    return n / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="requests per route (default 200)")
    args = parser.parse_args()

    from storeplatform.testing import Site, TestDatabase, count_queries

    tmp = Path(tempfile.mkdtemp(prefix="evt-bench-"))
    database = TestDatabase(tmp)
    try:
        t0 = time.perf_counter()
        database.migrate("events")
        site = Site(database.settings(**{"storeplatform.plugins": "events"}))
        admin = site.headers_for("administrator")
        big_event, codes = generate(site)
        backend = site.engine.dialect.name
        print(f"backend {backend}; data: {N_EVENTS} events, {N_VENUES} venues, {N_ORGANIZERS} organizers, "
              f"{N_ATTENDEES} attendees ({BIG_EVENT_ATTENDEES} on event {big_event}); "
              f"generated in {time.perf_counter() - t0:.1f} s")
        if len(codes) < args.requests + 2:
            raise SystemExit("too many requests for the tickets available")
        app = site.app
        api = "/api/events/v1"
        today = date.today()
        routes = [
            ("GET /events?per_page=100&_embed=1",
             lambda i: app.get(f"{api}/events?per_page=100&_embed=1&page={1 + i % 5}")),
            ("GET /calendar/month", lambda i: app.get(f"{api}/calendar/month?year={today.year}&month={today.month}")),
            (f"GET /attendees?event={big_event}",
             lambda i: app.get(f"{api}/attendees?event={big_event}&per_page=100&page={1 + i % 10}", headers=admin)),
            ("POST /checkin",
             lambda i: app.post_json(f"{api}/checkin", {"ticket_code": codes[i], "event_id": big_event},
                                     headers=admin)),
        ]
        bare = bare_app()
        bare_rps = measure(lambda i: bare.get("/bare"), args.requests)
        print(f"{'route':44} {'req/s':>9} {'ratio':>8} {'queries':>8} {'items':>6}")
        print(f"{'bare Pyramid JSON view':44} {bare_rps:9.1f} {1:8.3f} {0:8d}")

        for name, call in routes:
            if name.startswith("POST"):
                # Every call checks a different active ticket in (a real transition each time).
                base = args.requests + 2
                def run(i, call=call, base=base):
                    return call(base + i)
                with count_queries(site.engine) as queries:
                    res = call(1)
                per_request = queries()
                rps = measure(run, args.requests)
            else:
                with count_queries(site.engine) as queries:
                    res = call(0)
                per_request = queries()
                rps = measure(call, args.requests)
            body = res.json
            items = len(body) if isinstance(body, list) else len(body.get("events", [])) if "events" in body else 1
            print(f"{name:44} {rps:9.1f} {rps / bare_rps:8.3f} {per_request:8d} {items:6d}")
        site.close()
    finally:
        database.drop()


if __name__ == "__main__":
    main()
