"""The scale bench (issue #30): do the lists cost the same on a site ten times bigger?

    .venv/bin/python bench/scale/run.py [--scale 10000 100000] [--samples 30] [--reseed]

Builds two sites on the local PostgreSQL from one template and serves them side by side, each
with config/production.ini's app section and one gunicorn sync worker:

1. The template (database ``storeplatform_scale_template``, kept between runs) is seeded the
   way a site owner makes one: users, application passwords, options and categories through the
   CLI; venues, organizers, events (drafts and trashed ones among them; one in a hundred
   mentions a "quokka"), a ticket product per event and paid orders of five tickets through the
   public REST API; then some orders are cancelled and a tenth of the tickets checked in, through
   the API too.
2. Each site is a copy of the template (``CREATE DATABASE ... TEMPLATE``) multiplied in SQL: copy
   ``c`` of every post (events, venues, organizers, with their details and categories),
   product, order, order line and attendee, ids shifted by a stride per copy, slugs, SKUs, order
   keys and ticket codes made unique, the orders' billing e-mail addresses too (``anna7+3@``: each
   copy's guest buyers are its own, so the big site has ten times the guests, each with as many
   orders as on the small one; the attendees keep the template's), every reference (event -> venue/organizer, product ->
   event, line -> order/product, attendee -> event/order/line) pointing inside the copy, dates
   and times 400 days earlier per copy (so the month and upcoming views see the very same events
   on both sites, and the newest events are the template's); the sequences are moved past the
   new ids, ``storeplatform migrate`` runs (it fills what the migrations derive), and ``VACUUM
   ANALYZE`` gives the planner statistics and the visibility map autovacuum gives a live site.
   With the default template (1,000 events) the two sites are 10,000 events / 100,000
   attendees / 20,000 orders and 100,000 / 1,000,000 / 200,000.
3. Every route is measured with one client, sequential requests, alternating the sites request
   by request (the order of the two flips each round), each measured request preceded by a
   write through the API (an event's title and an order's billing: ``content`` and ``store``
   move on, so the request is the first after a content write, as on a site with editors). It
   prints p50, p95 and the growth (100k p50 / 10k p50) of each route, and the resident memory of
   each site's worker after the run.

The site databases are ``storeplatform_scale_<events>`` (kept; ``--reseed`` builds the template
and the sites anew; ``--rebuild`` only the sites).
"""
import argparse
import base64
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

import requests

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent / "http"))

from run import PG, REDIS, TOOL, Client, cli, free_port, log, parallel, write_ini  # noqa: E402
from run import served as http_served  # noqa: E402

TEMPLATE_DB = "storeplatform_scale_template"
STATE = ROOT / "var" / "bench-scale"
SEED_VERSION = 2
# Published events of the template; drafts and trashed ones come on top (one in 50 and one in 100 more).
N_EVENTS, N_VENUES, N_ORGANIZERS, N_CATEGORIES = 1000, 50, 10, 20
N_DRAFTS, N_TRASHED = 20, 10
ORDERS_PER_EVENT, TICKETS_PER_ORDER = 2, 5
SPAN_DAYS = 400  # the template's events start within 400 days (from 30 days ago); a copy is 400 days earlier
SEARCH_WORD = "quokka"
# The administrator's password for the admin's pages (set at each run: the template has none).
ADMIN_PASSWORD = "scale-bench-admin-password"
ADMIN = "admin pages"  # the auth of a route read by the administrator logged into the admin


def admin_engine():
    import sqlalchemy as sa

    return sa.create_engine(f"{PG}/postgres", isolation_level="AUTOCOMMIT")


def database_exists(name):
    import sqlalchemy as sa

    engine = admin_engine()
    with engine.connect() as c:
        found = c.execute(sa.text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}).first()
    engine.dispose()
    return found is not None


def recreate_database(name, template=None):
    import sqlalchemy as sa

    engine = admin_engine()
    with engine.connect() as c:
        c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        c.execute(sa.text(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else "")))
    engine.dispose()


def app_lines(database, secret):
    import configparser

    production = configparser.RawConfigParser()
    production.read(ROOT / "config" / "production.ini")
    app = dict(production["app:main"])
    app.update({"sqlalchemy.url": f"{PG}/{database}", "huey.url": REDIS, "huey.name": database,
                "storeplatform.secret": secret})
    return app


def served(ini, port):
    """``pserve ini`` on ``port`` until the block ends (run.py's, with this process's PYTHONPATH:
    ``--code``); waits until it answers."""
    return http_served(ini, port, env=dict(os.environ))


def use_code(checkout):
    """Run every command and server on the code of ``checkout`` (a tree of this repository: its
    ``src`` and plugins first on the path, before the editable installs): the code before a change."""
    root = Path(checkout).resolve()
    paths = [root / "src"] + sorted(p for p in (root / "plugins").iterdir() if p.is_dir())
    os.environ["PYTHONPATH"] = os.pathsep.join([*map(str, paths), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)


# --- the template, through the CLI and the REST API -----------------------------------------------

def seed_template(work, secret):
    ini = work / "template.ini"
    write_ini(ini, app_lines(TEMPLATE_DB, secret), workers=2)
    recreate_database(TEMPLATE_DB)
    cli(ini, "migrate")
    state = {"secret": secret}
    for login, role in (("admin", "administrator"), ("manager", "shop_manager")):
        cli(ini, "user", "create", login, "--role", role, "--email", f"{login}@example.com")
        state[login] = cli(ini, "user", "app-password", login, "--name", "bench")
    cli(ini, "option", "set", "invoicing.rest_api_enabled", "true")
    # Documents only on demand: a PDF per order is not what this bench is about (one is made below).
    cli(ini, "option", "set", "invoicing.auto_statuses", "")
    parallel(lambda n: cli(ini, "events", "category", "create", f"Category {n}", "--color", f"#{n * 9:06x}"),
             range(1, N_CATEGORIES + 1), threads=2)
    with served(ini, free_port()) as (base, _):
        seed_rest(base, state)
    return state


def seed_rest(base, state):
    import datetime as dt

    admin = Client(base, ("admin", state["admin"]))
    manager = Client(base, ("manager", state["manager"]))
    started = time.monotonic()
    categories = [c["id"] for c in admin.call("GET", "/events/v1/calendar/categories").json()["categories"]]
    venues = parallel(lambda n: admin.call("POST", "/events/v1/venues", {
        "name": f"Venue {n}", "address": f"{n} Ring Street", "city": f"City {n % 20}", "country": "AT",
        "postal": "1010", "capacity": 500}).json()["id"], range(N_VENUES))
    organizers = parallel(lambda n: admin.call("POST", "/events/v1/organizers", {
        "name": f"Organizer {n}", "email": f"o{n}@example.com"}).json()["id"], range(N_ORGANIZERS))
    first = dt.date.today() - dt.timedelta(days=30)

    def event(n):
        day = (first + dt.timedelta(days=n * SPAN_DAYS // N_EVENTS % SPAN_DAYS)).isoformat()
        words = f" A {SEARCH_WORD} will be there." if n % 100 == 7 else ""
        status = "draft" if N_EVENTS <= n < N_EVENTS + N_DRAFTS else "publish"
        return admin.call("POST", "/events/v1/events", {
            "title": f"Event {n}", "content": f"<p>Event {n}: an evening to remember.{words}</p>",
            "excerpt": "An evening.", "status": status, "start_date": day, "start_time": f"{10 + n % 10:02d}:00",
            "end_date": day, "end_time": "23:00", "venue_id": venues[n % len(venues)],
            "organizer_id": organizers[n % len(organizers)], "categories": [categories[n % len(categories)]],
            "capacity": 100, "featured": n % 10 == 0, "event_status": "cancelled" if n % 40 == 9 else "scheduled",
        }).json()["id"]

    made = parallel(event, range(N_EVENTS + N_DRAFTS + N_TRASHED))
    for event_id in made[N_EVENTS + N_DRAFTS:]:
        admin.call("DELETE", f"/events/v1/events/{event_id}")  # in the trash
    events = made[:N_EVENTS]
    log(f"  template: {len(venues)} venues, {len(organizers)} organizers, {len(events)} events "
        f"({time.monotonic() - started:.0f} s)")
    products = parallel(lambda e: admin.call("POST", "/store/v1/products", {
        "name": f"Ticket {e}", "regular_price": "25.00", "meta": {"event_id": e}}).json()["id"], events)

    def order(n):
        product = products[n % len(products)]
        return admin.call("POST", "/store/v1/orders", {
            "status": "processing", "billing": billing(n),
            "line_items": [{"product_id": product, "quantity": TICKETS_PER_ORDER}]}).json()["id"]

    orders = parallel(order, range(len(events) * ORDERS_PER_EVENT))
    log(f"  template: {len(orders)} orders ({time.monotonic() - started:.0f} s)")
    for n, order_id in enumerate(orders):
        if n % 50 == 11:
            admin.call("PUT", f"/store/v1/orders/{order_id}", {"status": "cancelled"})
        elif n % 20 == 4:
            admin.call("PUT", f"/store/v1/orders/{order_id}", {"status": "completed"})
    codes = []
    for page in range(1, 1 + len(orders) * TICKETS_PER_ORDER // 1000):
        codes += [a["ticket_code"] for a in manager.call("GET", "/events/v1/attendees", per_page=100, page=page,
                                                         status="active").json()]
    parallel(lambda code: manager.call("POST", "/events/v1/checkin", {"ticket_code": code}), codes)
    document_order = orders[0]
    admin.call("POST", f"/invoicing/v1/documents/{document_order}/regenerate", {})
    log(f"  template: {len(codes)} check-ins, done in {time.monotonic() - started:.0f} s")
    state.update(event=events[0], order=orders[-1], document_order=document_order, seed_version=SEED_VERSION)


def billing(n):
    return {"first_name": "Anna", "last_name": f"Nowak {n}", "address_1": "Ring Street 1", "city": "Vienna",
            "postcode": "1010", "country": "AT", "email": f"anna{n}@example.com"}


# --- a site: the template multiplied in SQL ---------------------------------------------------------

MULTIPLY = """
-- copy c (1 .. copies - 1) of every row of the template, ids shifted by c * stride
CREATE TEMP TABLE copies AS SELECT generate_series(1, {copies} - 1) AS c;
CREATE TEMP TABLE strides AS SELECT
  (SELECT max(id) FROM posts) AS p, (SELECT max(id) FROM products) AS pr, (SELECT max(id) FROM orders) AS o,
  (SELECT max(id) FROM order_items) AS oi, (SELECT max(id) FROM evt_attendees) AS a;
INSERT INTO posts (id, post_type, title, slug, content, excerpt, author_id, status, trashed_status, created_at,
                   modified_at)
  SELECT x.id + c * s.p, x.post_type, x.title, x.slug || '-' || c, x.content, x.excerpt, x.author_id, x.status,
         x.trashed_status, x.created_at - c * interval '400 days', x.modified_at - c * interval '400 days'
  FROM posts x, copies, strides s;
INSERT INTO evt_venues (post_id, address, city, state, country, postal, capacity, phone, email, website)
  SELECT x.post_id + c * s.p, x.address, x.city, x.state, x.country, x.postal, x.capacity, x.phone, x.email,
         x.website FROM evt_venues x, copies, strides s;
INSERT INTO evt_organizers (post_id, phone, email, website, facebook, twitter, linkedin)
  SELECT x.post_id + c * s.p, x.phone, x.email, x.website, x.facebook, x.twitter, x.linkedin
  FROM evt_organizers x, copies, strides s;
INSERT INTO evt_events (post_id, start_date, start_time, end_date, end_time, timezone, all_day, venue_id,
                        organizer_id, capacity, event_status, event_type, virtual_url, featured, featured_image)
  SELECT x.post_id + c * s.p, x.start_date - c * 400, x.start_time, x.end_date - c * 400, x.end_time, x.timezone,
         x.all_day, x.venue_id + c * s.p, x.organizer_id + c * s.p, x.capacity, x.event_status, x.event_type,
         x.virtual_url, x.featured, x.featured_image FROM evt_events x, copies, strides s;
INSERT INTO post_terms (post_id, term_id) SELECT x.post_id + c * s.p, x.term_id FROM post_terms x, copies, strides s;
INSERT INTO products (id, name, sku, type, status, parent_id, regular_price, sale_price, sale_from, sale_to, meta,
                      created_at, modified_at)
  SELECT x.id + c * s.pr, x.name, x.sku || '-' || c, x.type, x.status, x.parent_id + c * s.pr, x.regular_price,
         x.sale_price, x.sale_from, x.sale_to,
         CASE WHEN jsonb_exists(x.meta::jsonb, 'event_id')
              THEN jsonb_set(x.meta::jsonb, '{event_id}', to_jsonb((x.meta->>'event_id')::int + c * s.p))::json
              ELSE x.meta END,
         x.created_at - c * interval '400 days', x.modified_at - c * interval '400 days'
  FROM products x, copies, strides s;
INSERT INTO evt_ticket_types (product_id, event_id, capacity, sales_start, sales_end)
  SELECT x.product_id + c * s.pr, x.event_id + c * s.p, x.capacity, x.sales_start, x.sales_end
  FROM evt_ticket_types x, copies, strides s;
INSERT INTO orders (id, status, order_key, currency, billing, customer_id, total, created_at, modified_at)
  SELECT x.id + c * s.o, x.status, x.order_key || '-' || c, x.currency,
         CASE WHEN x.billing ->> 'email' LIKE '%@%'
              THEN jsonb_set(x.billing::jsonb, '{email}',
                             to_jsonb(replace(x.billing ->> 'email', '@', '+' || c || '@')))::json
              ELSE x.billing END,
         x.customer_id, x.total,
         x.created_at - c * interval '400 days', x.modified_at - c * interval '400 days'
  FROM orders x, copies, strides s;
INSERT INTO order_items (id, order_id, product_id, name, quantity, unit_price, total)
  SELECT x.id + c * s.oi, x.order_id + c * s.o, x.product_id + c * s.pr, x.name, x.quantity, x.unit_price, x.total
  FROM order_items x, copies, strides s;
INSERT INTO evt_attendees (id, event_id, order_id, order_item_id, ticket_index, user_id, first_name, last_name,
                           email, phone, ticket_code, status, cancelled_by_order, checked_in_at, checked_out_at,
                           custom_fields, created_at, modified_at)
  SELECT x.id + c * s.a, x.event_id + c * s.p, x.order_id + c * s.o, x.order_item_id + c * s.oi, x.ticket_index,
         x.user_id, x.first_name, x.last_name, x.email, x.phone, x.ticket_code || 'C' || c, x.status,
         x.cancelled_by_order, x.checked_in_at - c * interval '400 days', x.checked_out_at - c * interval '400 days',
         x.custom_fields, x.created_at - c * interval '400 days', x.modified_at - c * interval '400 days'
  FROM evt_attendees x, copies, strides s;
SELECT setval(pg_get_serial_sequence('posts', 'id'), (SELECT max(id) FROM posts) + 1, false);
SELECT setval(pg_get_serial_sequence('products', 'id'), (SELECT max(id) FROM products) + 1, false);
SELECT setval(pg_get_serial_sequence('orders', 'id'), (SELECT max(id) FROM orders) + 1, false);
SELECT setval(pg_get_serial_sequence('order_items', 'id'), (SELECT max(id) FROM order_items) + 1, false);
SELECT setval(pg_get_serial_sequence('evt_attendees', 'id'), (SELECT max(id) FROM evt_attendees) + 1, false);
"""


def build_site(name, copies, state, work):
    import sqlalchemy as sa

    started = time.monotonic()
    recreate_database(name, template=TEMPLATE_DB)
    engine = sa.create_engine(f"{PG}/{name}")
    with engine.begin() as c:
        for statement in (s.strip() for s in MULTIPLY.split(";\n")):
            lines = [line for line in statement.splitlines() if not line.startswith("--")]
            if lines:
                c.execute(sa.text("\n".join(lines).replace("{copies}", str(int(copies)))))
        counts = {t: c.execute(sa.text(f"SELECT count(*) FROM {t}")).scalar()
                  for t in ("posts", "evt_events", "evt_attendees", "orders", "products")}
    engine.dispose()
    ini = work / f"{name}.ini"
    write_ini(ini, app_lines(name, state["secret"]), workers=1)
    cli(ini, "migrate")
    vacuum(name)
    log(f"  {name}: {counts} in {time.monotonic() - started:.0f} s")


def vacuum(name):
    import sqlalchemy as sa

    engine = sa.create_engine(f"{PG}/{name}", isolation_level="AUTOCOMMIT")
    with engine.connect() as c:
        c.execute(sa.text("VACUUM ANALYZE"))
    engine.dispose()


# --- the routes -------------------------------------------------------------------------------------

class Site:
    def __init__(self, label, name, base, state):
        import sqlalchemy as sa

        self.label, self.name, self.base = label, name, base
        self.admin = ("admin", state["admin"])
        self.manager = ("manager", state["manager"])
        self.http = requests.Session()
        engine = sa.create_engine(f"{PG}/{name}")
        with engine.connect() as c:
            self.codes = list(c.execute(sa.text(
                "SELECT ticket_code FROM evt_attendees WHERE status = 'active' AND event_id = :e ORDER BY id DESC"
                " LIMIT 1"), {"e": state["event"]}).scalars())
            self.fresh = list(c.execute(sa.text(
                "SELECT ticket_code FROM evt_attendees WHERE status = 'active' ORDER BY id LIMIT 2000")).scalars())
            # The back office's forms (#40): the event's venue and organizer, its ticket type.
            self.venue, self.organizer = c.execute(sa.text(
                "SELECT venue_id, organizer_id FROM evt_events WHERE post_id = :e"), {"e": state["event"]}).one()
            self.ticket = c.execute(sa.text("SELECT min(product_id) FROM evt_ticket_types WHERE event_id = :e"),
                                    {"e": state["event"]}).scalar()
            # The Customers page's guests, A to Z by e-mail address, 50 a page: their last page's
            # number and the key its link carries (the last address of the page before), as a
            # person who follows Next to the end reaches it.
            guest = "lower(trim(billing ->> 'email'))"
            guests = c.execute(sa.text(f"SELECT count(DISTINCT {guest}) FROM orders WHERE customer_id IS NULL "
                                       f"AND {guest} <> ''")).scalar()
            self.guests_last_page = max(1, -(-guests // 50))
            self.guests_last_key = c.execute(sa.text(
                f"SELECT DISTINCT {guest} FROM orders WHERE customer_id IS NULL AND {guest} <> '' ORDER BY 1 "
                "OFFSET :n LIMIT 1"), {"n": (self.guests_last_page - 1) * 50 - 1}).scalar() \
                if self.guests_last_page > 1 else None
        engine.dispose()
        self.event, self.order, self.document_order = state["event"], state["order"], state["document_order"]
        self.writes = 0
        total = int(self.request("GET", "/api/events/v1/events?per_page=100").headers["X-Total"])
        self.last_page = (total + 99) // 100
        self.browser = admin_browser(base)
        pages = re.search(r"Page 1 of (\d+)", self.request("GET", "/admin/events", ADMIN).text)
        self.admin_last_page = int(pages.group(1)) if pages else 1
        # The form token of the administrator's session (what the admin's forms post).
        self.csrf = re.search(r'name="csrf_token" value="([^"]+)"',
                              self.request("GET", f"/admin/orders/{self.order}", ADMIN).text).group(1)
        self.last_pages = {}

    def admin_last(self, path):
        """``path`` (an admin list with its query) at its last page, read off its first page once
        (the first time: in the round that is not measured)."""
        if path not in self.last_pages:
            pages = re.search(r"Page 1 of (\d+)", self.request("GET", path, ADMIN).text)
            self.last_pages[path] = int(pages.group(1)) if pages else 1
        return f"{path}{'&' if '?' in path else '?'}page={self.last_pages[path]}"

    def request(self, method, path, auth=None, body=None, stream=False):
        http, form = self.http, None
        if auth == ADMIN:
            http, auth = self.browser, None
            if body is not None:  # an admin form: its fields and the session's form token
                form, body = {**body, "csrf_token": self.csrf}, None
        res = http.request(method, self.base + path, auth=auth, json=body, data=form, timeout=600, stream=stream)
        if not 200 <= res.status_code < 300:
            raise SystemExit(f"{self.label} {method} {path}: {res.status_code} {res.text[:300]}")
        return res

    def write(self):
        """A content write and a store write, through the API (what an editor and a sale do)."""
        self.writes += 1
        self.request("PUT", f"/api/events/v1/events/{self.event}", self.admin, {"title": f"Event 0 ({self.writes})"})
        self.request("PUT", f"/api/store/v1/orders/{self.order}", self.admin, {"billing": billing(self.writes)})


def admin_browser(base):
    """A requests session logged into the admin as the administrator (the login form, its token)."""
    browser = requests.Session()
    page = browser.get(base + "/admin/login", timeout=60)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    res = browser.post(base + "/admin/login", data={"login": "admin", "password": ADMIN_PASSWORD,
                                                    "csrf_token": token, "next": ""},
                       allow_redirects=False, timeout=60)
    if res.status_code != 303:
        raise SystemExit(f"admin login: {res.status_code} {res.text[:300]}")
    return browser


def set_admin_password(ini):
    proc = subprocess.run([TOOL, "-c", str(ini), "user", "set-password", "admin"], input=ADMIN_PASSWORD + "\n",
                          capture_output=True, text=True, timeout=300)
    if proc.returncode:
        raise SystemExit(f"storeplatform user set-password admin: {proc.stderr.strip()}")


def routes():
    """(label, method, path(site), auth(site), body(site))."""
    today = time.localtime()
    events = "/api/events/v1/events?per_page=100"
    return [
        ("GET events/v1/events?per_page=100 (anonymous)", "GET", lambda s: events, None, None),
        ("the same as an administrator", "GET", lambda s: events, lambda s: s.admin, None),
        ("?page=100 (the same offset on both)", "GET", lambda s: events + "&page=100", None, None),
        ("the last page", "GET", lambda s: events + f"&page={s.last_page}", None, None),
        (f"?search={SEARCH_WORD} (1 % of events)", "GET", lambda s: events + f"&search={SEARCH_WORD}", None, None),
        ("?per_page=100&_embed=1", "GET", lambda s: events + "&_embed=1", None, None),
        ("GET events/v1/attendees?per_page=100", "GET", lambda s: "/api/events/v1/attendees?per_page=100",
         lambda s: s.manager, None),
        ("GET store/v1/orders?per_page=100", "GET", lambda s: "/api/store/v1/orders?per_page=100",
         lambda s: s.manager, None),
        ("GET events/v1/attendees?search=anna1234@ (a buyer)", "GET",
         lambda s: "/api/events/v1/attendees?per_page=100&search=anna1234%40", lambda s: s.manager, None),
        # The dashboard's sales per day over REST: the last 30 days hold the template's 2,000 orders
        # on both sites (the copies lie 400 days apart): ten times the history must cost nothing.
        ("GET store/v1/reports/sales (30 days)", "GET", lambda s: "/api/store/v1/reports/sales",
         lambda s: s.manager, None),
        ("event by id", "GET", lambda s: f"/api/events/v1/events/{s.event}", None, None),
        ("attendee by code", "GET", lambda s: f"/api/events/v1/attendees/code/{s.codes[0]}", lambda s: s.manager,
         None),
        ("check-in (a fresh ticket)", "POST", lambda s: "/api/events/v1/checkin", lambda s: s.manager,
         lambda s: {"ticket_code": s.fresh.pop()}),
        ("check-in stats", "GET", lambda s: f"/api/events/v1/checkin/stats/{s.event}", lambda s: s.manager, None),
        ("calendar month", "GET",
         lambda s: f"/api/events/v1/calendar/month?year={today.tm_year}&month={today.tm_mon}", None, None),
        ("calendar upcoming", "GET", lambda s: "/api/events/v1/calendar/upcoming", None, None),
        ("invoicing documents/{id}", "GET", lambda s: f"/api/invoicing/v1/documents/{s.document_order}",
         lambda s: s.manager, None),
        # The admin's pages (issue #31), as the administrator: first pages under 200 ms on the big site.
        ("admin: dashboard", "GET", lambda s: "/admin/", lambda s: ADMIN, None),
        ("admin: events", "GET", lambda s: "/admin/events", lambda s: ADMIN, None),
        (f"admin: events?search={SEARCH_WORD}", "GET", lambda s: f"/admin/events?search={SEARCH_WORD}",
         lambda s: ADMIN, None),
        ("admin: events, the last page", "GET", lambda s: f"/admin/events?page={s.admin_last_page}",
         lambda s: ADMIN, None),
        ("admin: attendees", "GET", lambda s: "/admin/attendees", lambda s: ADMIN, None),
        # Searches of every attendee (the trigram index of evt0011; a scan before it): for a word
        # nobody has, and for a buyer's e-mail address (their tickets in every copy of the template).
        ("admin: attendees?search=quokka (no match)", "GET", lambda s: f"/admin/attendees?search={SEARCH_WORD}",
         lambda s: ADMIN, None),
        ("admin: attendees?search=anna1234@ (a buyer)", "GET", lambda s: "/admin/attendees?search=anna1234%40",
         lambda s: ADMIN, None),
        ("admin: an event's attendees", "GET", lambda s: f"/admin/events/{s.event}/attendees", lambda s: ADMIN, None),
        ("admin: orders", "GET", lambda s: "/admin/orders", lambda s: ADMIN, None),
        ("admin: orders?status=cancelled", "GET", lambda s: "/admin/orders?status=cancelled", lambda s: ADMIN, None),
        ("admin: an order", "GET", lambda s: f"/admin/orders/{s.order}", lambda s: ADMIN, None),
        ("admin: products", "GET", lambda s: "/admin/products", lambda s: ADMIN, None),
        ("admin: customers", "GET", lambda s: "/admin/customers", lambda s: ADMIN, None),
        # The lists sorted by each of their columns (issue #40), both ways, and the last page of
        # the long ones sorted (a walk from the nearer end): within 1.5x of the small site's.
        *((f"admin: events?{q}", "GET", lambda s, q=q: f"/admin/events?{q}", lambda s: ADMIN, None)
          for q in ("orderby=start&order=asc", "orderby=title&order=asc", "orderby=title&order=desc")),
        ("admin: events?orderby=title, the last page", "GET", lambda s: s.admin_last("/admin/events?orderby=title"),
         lambda s: ADMIN, None),
        *((f"admin: attendees?{q}", "GET", lambda s, q=q: f"/admin/attendees?{q}", lambda s: ADMIN, None)
          for q in ("orderby=name&order=asc", "orderby=name&order=desc", "orderby=email&order=asc",
                    "orderby=status&order=asc", "orderby=checked_in&order=desc", "orderby=created&order=asc")),
        ("admin: attendees?orderby=name, the last page", "GET", lambda s: s.admin_last("/admin/attendees?orderby=name"),
         lambda s: ADMIN, None),
        *((f"admin: an event's attendees?{q}", "GET", lambda s, q=q: f"/admin/events/{s.event}/attendees?{q}",
           lambda s: ADMIN, None)
          for q in ("orderby=name&order=asc", "orderby=email&order=desc", "orderby=status&order=asc",
                    "orderby=checked_in&order=desc", "orderby=checked_in&order=asc")),
        *((f"admin: orders?{q}", "GET", lambda s, q=q: f"/admin/orders?{q}", lambda s: ADMIN, None)
          for q in ("orderby=id&order=asc", "orderby=date&order=desc", "orderby=date&order=asc",
                    "orderby=total&order=desc", "orderby=total&order=asc", "orderby=status&order=asc",
                    "orderby=status&order=desc")),
        ("admin: orders?orderby=total, the last page", "GET", lambda s: s.admin_last("/admin/orders?orderby=total"),
         lambda s: ADMIN, None),
        *((f"admin: products?{q}", "GET", lambda s, q=q: f"/admin/products?{q}", lambda s: ADMIN, None)
          for q in ("orderby=name&order=asc", "orderby=name&order=desc", "orderby=price&order=asc",
                    "orderby=price&order=desc", "orderby=status&order=asc", "orderby=id&order=asc")),
        ("admin: products?orderby=name, the last page", "GET",
         lambda s: s.admin_last("/admin/products?orderby=name"), lambda s: ADMIN, None),
        *((f"admin: users?{q}", "GET", lambda s, q=q: f"/admin/users?{q}", lambda s: ADMIN, None)
          for q in ("orderby=login&order=asc", "orderby=login&order=desc", "orderby=name&order=asc",
                    "orderby=since&order=desc", "orderby=id&order=asc")),
        # The Customers page's guests (A to Z, not sortable), at their last page (keyed: its link
        # carries the last address of the page before): each copy's 2,000 billing addresses are its
        # own, 20,000 and 200,000 guests of one order each, 400 and 4,000 pages.
        ("admin: customers?kind=guests, the last page", "GET", lambda s: "/admin/customers?" + urlencode(
            {"kind": "guests", "page": s.guests_last_page, "after": s.guests_last_key or ""}), lambda s: ADMIN, None),
        # The back office's new pages (issue #40): under 200 ms on the big site. The event form
        # offers every venue and organizer (5,000 and 1,000 on the big site) in its <select>s.
        ("admin: new event form", "GET", lambda s: "/admin/events/new", lambda s: ADMIN, None),
        ("admin: an event's edit form", "GET", lambda s: f"/admin/events/{s.event}/edit", lambda s: ADMIN, None),
        ("admin: an event's page (its ticket types)", "GET", lambda s: f"/admin/events/{s.event}", lambda s: ADMIN,
         None),
        ("admin: a ticket type's form", "GET", lambda s: f"/admin/events/{s.event}/tickets/{s.ticket}",
         lambda s: ADMIN, None),
        ("admin: venues", "GET", lambda s: "/admin/venues", lambda s: ADMIN, None),
        ("admin: organizers", "GET", lambda s: "/admin/organizers", lambda s: ADMIN, None),
        ("admin: a venue's form", "GET", lambda s: f"/admin/venues/{s.venue}", lambda s: ADMIN, None),
        ("admin: an organizer's form", "GET", lambda s: f"/admin/organizers/{s.organizer}", lambda s: ADMIN, None),
        ("admin: new product form", "GET", lambda s: "/admin/products/new", lambda s: ADMIN, None),
        ("admin: new order form", "GET", lambda s: "/admin/orders/new", lambda s: ADMIN, None),
        # The refund form's first step: what would be given back, shown to confirm (nothing written).
        ("admin: an order's refund form, the review", "POST", lambda s: f"/admin/orders/{s.order}/refund",
         lambda s: ADMIN, lambda s: {"refund_mode": "whole", "reason": "scale bench"}),
        ("admin: audit log", "GET", lambda s: "/admin/audit", lambda s: ADMIN, None),
        ("admin: audit log?kind=credentials", "GET", lambda s: "/admin/audit?kind=credentials", lambda s: ADMIN,
         None),
        ("GET store/v1/orders/{id}/notes", "GET", lambda s: f"/api/store/v1/orders/{s.order}/notes",
         lambda s: s.manager, None),
        ("GET audit/v1/entries", "GET", lambda s: "/api/audit/v1/entries", lambda s: s.admin, None),
    ]


EXPORTS = [("attendees", "/admin/attendees/export.csv"), ("orders", "/admin/orders/export.csv"),
           ("events", "/admin/events/export.csv")]


def measure_exports(sites, procs):
    """Each export of EXPORTS whole, once per site, streamed: its time, rows and bytes, and the
    peak resident memory of the site's worker while it streamed (read every 50 ms) against its
    memory before."""
    results = []
    for label, path in EXPORTS:
        for site, proc in zip(sites, procs):
            before = max(worker_rss(proc.pid))
            peak, done = [before], threading.Event()

            def watch():
                while not done.wait(0.05):
                    peak.append(max(worker_rss(proc.pid) or [0]))

            watcher = threading.Thread(target=watch)
            watcher.start()
            started = time.perf_counter()
            res = site.request("GET", path, ADMIN, stream=True)
            size = lines = 0
            for chunk in res.iter_content(1 << 16):
                size += len(chunk)
                lines += chunk.count(b"\n")
            elapsed = time.perf_counter() - started
            done.set()
            watcher.join()
            results.append((label, site.label, lines - 1, size, elapsed, before, max(peak)))
            log(f"  export {label} {site.label}: {lines - 1} rows, {size / 1e6:.0f} MB in {elapsed:.1f} s, "
                f"worker {before:.0f} -> peak {max(peak):.0f} MB")
    return results


def measure(sites, samples, only=None):
    results = []
    for label, method, path, auth, body in routes():
        if only and not any(word in label for word in only):
            continue
        times = {site.label: [] for site in sites}
        for n in range(samples + 1):
            for site in (sites if n % 2 == 0 else sites[::-1]):
                site.write()
                started = time.perf_counter()
                site.request(method, path(site), auth(site) if auth else None, body(site) if body else None)
                elapsed = (time.perf_counter() - started) * 1000
                if n:  # the first round warms what a running site has warm (the route's code, the plans)
                    times[site.label].append(elapsed)
        results.append((label, times))
        small, big = (times[site.label] for site in sites)
        log(f"  {label}: {statistics.median(small):.1f} ms / {statistics.median(big):.1f} ms")
    return results


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def worker_rss(master_pid):
    """Resident memory (MB) of each gunicorn worker of ``master_pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[1]) != master_pid:
                continue
            status = Path(f"/proc/{entry}/status").read_text()
        except (OSError, ValueError, IndexError):
            continue
        rss = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
        found.append(int(rss.split()[1]) / 1024)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", nargs=2, type=int, default=[10_000, 100_000], metavar=("SMALL", "BIG"),
                        help="events of the two sites (multiples of the template's 1,000)")
    parser.add_argument("--samples", type=int, default=30, help="measured requests per route and site")
    parser.add_argument("--only", nargs="+", help="measure only the routes whose label has one of these words")
    parser.add_argument("--reseed", action="store_true", help="seed the template and build the sites anew")
    parser.add_argument("--rebuild", action="store_true", help="build the sites anew from the template")
    parser.add_argument("--build-only", action="store_true", help="build what is missing, measure nothing")
    parser.add_argument("--no-exports", action="store_true", help="do not stream the admin's CSV exports")
    parser.add_argument("--code", metavar="DIR", help="run the site on the code of this checkout (e.g. `git archive "
                        "HEAD | tar -x -C DIR`: the code before a change); the template and the sites are then built "
                        "and migrated by it too")
    args = parser.parse_args()
    if args.code:
        use_code(args.code)
    STATE.mkdir(parents=True, exist_ok=True)
    work = STATE / "run"
    work.mkdir(exist_ok=True)
    state_file = STATE / "seed.json"
    state = json.loads(state_file.read_text()) if state_file.exists() and not args.reseed else {}
    if state.get("seed_version") != SEED_VERSION or not database_exists(TEMPLATE_DB):
        log("seeding the template (CLI, then REST) ...")
        state = seed_template(work, base64.b64encode(os.urandom(24)).decode())
        state_file.write_text(json.dumps(state))
        args.rebuild = True
    names = [f"storeplatform_scale_{n}" for n in args.scale]
    for events, name in zip(args.scale, names):
        if args.rebuild or not database_exists(name):
            log(f"building {name} ({events // N_EVENTS} copies of the template) ...")
            build_site(name, events // N_EVENTS, state, work)
        else:
            ini = work / f"{name}.ini"
            write_ini(ini, app_lines(name, state["secret"]), workers=1)
            cli(ini, "migrate")
            vacuum(name)
    for name in names:
        set_admin_password(work / f"{name}.ini")
    if args.build_only:
        return 0
    labels = [f"{n // 1000}k" for n in args.scale]
    with served(work / f"{names[0]}.ini", free_port()) as (small_base, small_proc), \
            served(work / f"{names[1]}.ini", free_port()) as (big_base, big_proc):
        sites = [Site(labels[0], names[0], small_base, state), Site(labels[1], names[1], big_base, state)]
        rss_before = [worker_rss(small_proc.pid), worker_rss(big_proc.pid)]
        results = measure(sites, args.samples, args.only)
        rss_after = [worker_rss(small_proc.pid), worker_rss(big_proc.pid)]
        exports = [] if args.no_exports else measure_exports(sites, (small_proc, big_proc))
    print(f"\nstoreplatform scale bench: PostgreSQL, gunicorn 1 sync worker per site, one client, each request the "
          f"first after a content write, {args.samples} samples per route and site, {os.cpu_count()} cores\n")
    a, b = labels
    print(f"| route | {a} p50 ms | {a} p95 ms | {b} p50 ms | {b} p95 ms | growth (p50) |")
    print("|---|---|---|---|---|---|")
    for label, times in results:
        small, big = times[a], times[b]
        growth = statistics.median(big) / statistics.median(small)
        print(f"| {label} | {statistics.median(small):.1f} | {percentile(small, 95):.1f} | "
              f"{statistics.median(big):.1f} | {percentile(big, 95):.1f} | {growth:.2f}x |")
    for label, before, after in zip(labels, rss_before, rss_after):
        print(f"\nworker memory {label}: {', '.join(f'{x:.0f}' for x in before)} MB at start, "
              f"{', '.join(f'{x:.0f}' for x in after)} MB after the run")
    if exports:
        print("\n| admin export | site | rows | MB | seconds | rows/s | worker MB before | peak while streaming |")
        print("|---|---|---|---|---|---|---|---|")
        for label, site_label, rows, size, elapsed, before, peak in exports:
            print(f"| {label} | {site_label} | {rows:,} | {size / 1e6:.0f} | {elapsed:.1f} | {rows / elapsed:,.0f} | "
                  f"{before:.0f} | {peak:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
