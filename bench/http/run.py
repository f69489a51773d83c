"""The HTTP speed bench on the production topology: PostgreSQL, Huey on Redis, gunicorn.

    .venv/bin/python bench/http/run.py [--duration 5] [--rounds 2] [--only events checkin ...]

Seeds a site through the CLI and the public REST API (10,000 published events, 500 venues, 100
organizers, 20 categories; tickets; a demo-like area calculator; 20-line orders with their PDFs),
serves it with the ``[server:main]`` gunicorn section of config/production.ini (2 sync workers),
serves beside it a bare Pyramid app (bare.py) that answers each route with the very bytes and
headers the site answered, on the same gunicorn settings, and drives both with wrk
(``-t2 -c16``), alternating ours and bare. Every answer must be 2xx with the sampled body size
(the revalidation row's: 304 with no body). Prints the table of issue #12 with the ratios and
whether each goal is met; the webhook worker row comes from webhooks.py.

The ``revalidate`` row (issue #39 item 4) is the events row's GET sent again with the ETag our
site answered it with (If-None-Match), which both sides answer 304 with no body: ours from the
generations every request reads and the tag the cache kept, without the view; the bare app from
a route that matches the header. Once conditional requests exist, the cheapest answer there is.

The seeded database (``storeplatform_bench`` on the local PostgreSQL) is kept between runs and
topped up with fresh tickets; ``--reseed`` starts it anew.

``--compare-metrics``: instead of the bare app, the other side is the same site with
``storeplatform.metrics = false`` (config/production.ini turns them on), alternated the same way,
in the same run: the cost of the metrics on each route, as the rate and as the CPU time the
workers spent per request (from /proc: less moved by scheduling than the rate), and the resident
memory of each side's workers after each route (it must stay flat under load).
``--same-both-sides`` turns them off on both sides: an A/A run, the method's own spread.
"""
import argparse
import base64
import configparser
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BIN = Path(sys.executable).parent
TOOL = str(BIN / "storeplatform")
PSERVE = str(BIN / "pserve")
PG = "postgresql://postgres@127.0.0.1:5432"
REDIS = "redis://127.0.0.1:6379/0"
DB_NAME = "storeplatform_bench"
STATE = ROOT / "var" / "bench-http"
SEED_VERSION = 1

N_EVENTS, N_VENUES, N_ORGANIZERS, N_CATEGORIES = 10_000, 500, 100, 20
INVOICE_LINES = 20
TICKETS_PER_ORDER = 10_000

# name, goal, kind ("rps": ours/bare requests per second; "time": ours/bare time per request): issue
# #39's goals (check-in: 0.85 of its floor, bench/http/floors.py; pdf as documents/{id}).
GOALS = {
    "events": (0.50, "rps"), "revalidate": (0.60, "rps"), "checkin": (0.17, "rps"), "calculate": (0.48, "rps"),
    "document": (0.45, "rps"), "pdf": (0.45, "rps"), "regenerate": (1.25, "time"), "webhooks": (0.70, "rps"),
}
# And on every route: ours' p99 within this many times its p50 (#39), the worst round's.
TAIL = 3.0


def log(message):
    print(message, file=sys.stderr, flush=True)


# --- the site -------------------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_ini(path, app_lines, workers, threads=0):
    """An ini with production.ini's [server:main] and logging sections and the given app
    (``threads``: gunicorn's gthread workers with that many threads each instead of sync ones)."""
    production = configparser.RawConfigParser()
    production.read(ROOT / "config" / "production.ini")
    out = configparser.RawConfigParser()
    out["app:main"] = app_lines
    for section in production.sections():
        if section != "app:main":
            out[section] = dict(production[section])
    out["server:main"]["workers"] = str(workers)
    if threads:
        out["server:main"]["worker_class"] = "gthread"
        out["server:main"]["threads"] = str(threads)
    with open(path, "w") as f:
        out.write(f)


def site_app_lines(secret):
    production = configparser.RawConfigParser()
    production.read(ROOT / "config" / "production.ini")
    app = dict(production["app:main"])
    app.update({"sqlalchemy.url": f"{PG}/{DB_NAME}", "huey.url": REDIS, "huey.name": DB_NAME,
                "storeplatform.secret": secret})
    return app


# The environment's overrides of an ini (storeplatform.core.settings.ENV_OVERRIDES): a shell
# that exported the test suite's STOREPLATFORM_DATABASE_URL would otherwise seed and bench its
# database instead of storeplatform_bench, silently.
OVERRIDES = ("STOREPLATFORM_DATABASE_URL", "STOREPLATFORM_HUEY_URL", "STOREPLATFORM_SECRET",
             "STOREPLATFORM_TRANSACTION_POOLING")


def bench_environ(**extra):
    """This process's environment without the overrides of the bench's ini, plus ``extra``."""
    return {**{k: v for k, v in os.environ.items() if k not in OVERRIDES}, **extra}


def cli(ini, *args):
    proc = subprocess.run([TOOL, "-c", str(ini), *args], check=False, capture_output=True, text=True, timeout=600,
                          env=bench_environ())
    if proc.returncode:
        raise SystemExit(f"storeplatform {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout.strip()


@contextlib.contextmanager
def served(ini, port, env=None):
    """``pserve ini`` on ``port`` until the block ends; waits until it answers. ``env``: the
    server's environment (by default this one without the ini's overrides, with the bare app's
    folder on PYTHONPATH)."""
    logfile = open(Path(ini).with_suffix(".log"), "w")
    env = bench_environ(PYTHONPATH=str(HERE)) if env is None else env
    proc = subprocess.Popen([PSERVE, str(ini), f"http_port={port}"], stdout=logfile, stderr=subprocess.STDOUT,
                            start_new_session=True, env=env)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"{ini} did not start:\n{Path(logfile.name).read_text()[-2000:]}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"{ini} did not listen on {port}")
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}", proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
        logfile.close()


def database_exists():
    import sqlalchemy as sa

    engine = sa.create_engine(f"{PG}/postgres", isolation_level="AUTOCOMMIT")
    with engine.connect() as c:
        found = c.execute(sa.text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": DB_NAME}).first()
    engine.dispose()
    return found is not None


def analyze():
    """What autovacuum does on a live site after a bulk load: planner statistics and the
    visibility map (index-only scans)."""
    import sqlalchemy as sa

    engine = sa.create_engine(f"{PG}/{DB_NAME}", isolation_level="AUTOCOMMIT")
    with engine.connect() as c:
        c.execute(sa.text("VACUUM ANALYZE"))
    engine.dispose()


def recreate_database():
    import sqlalchemy as sa

    engine = sa.create_engine(f"{PG}/postgres", isolation_level="AUTOCOMMIT")
    with engine.connect() as c:
        c.execute(sa.text(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)'))
        c.execute(sa.text(f'CREATE DATABASE "{DB_NAME}"'))
    engine.dispose()


# --- seeding through the CLI and REST -------------------------------------------------------------

class Client:
    def __init__(self, base, auth=None):
        self.base = base + "/api"
        self.http = requests.Session()
        self.http.auth = auth

    def call(self, method, path, body=None, expect=(200, 201), **params):
        res = self.http.request(method, self.base + path, json=body, params=params or None, timeout=300)
        if res.status_code not in expect:
            raise SystemExit(f"{method} {path}: {res.status_code} {res.text[:300]}")
        return res


def parallel(fn, items, threads=8):
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(fn, items))


def seed_cli(ini):
    cli(ini, "migrate")
    cli(ini, "user", "create", "admin", "--role", "administrator", "--email", "admin@example.com")
    cli(ini, "user", "create", "manager", "--role", "shop_manager", "--email", "manager@example.com")
    state = {"admin": cli(ini, "user", "app-password", "admin", "--name", "bench"),
             "manager": cli(ini, "user", "app-password", "manager", "--name", "bench")}
    cli(ini, "option", "set", "invoicing.rest_api_enabled", "true")
    parallel(lambda n: cli(ini, "events", "category", "create", f"Category {n}", "--color", f"#{n * 9:06x}"),
             range(1, N_CATEGORIES + 1), threads=4)
    return state


def seed_rest(base, state):
    admin = Client(base, ("admin", state["admin"]))
    started = time.monotonic()
    categories = [c["id"] for c in admin.call("GET", "/events/v1/calendar/categories").json()["categories"]]
    venues = parallel(lambda n: admin.call("POST", "/events/v1/venues", {
        "name": f"Venue {n}", "address": f"{n} Ring Street", "city": f"City {n % 50}", "country": "AT",
        "postal": "1010", "capacity": 500}).json()["id"], range(N_VENUES))
    organizers = parallel(lambda n: admin.call("POST", "/events/v1/organizers", {
        "name": f"Organizer {n}", "email": f"o{n}@example.com"}).json()["id"], range(N_ORGANIZERS))
    today = time.strftime("%Y-%m-%d")
    import datetime as dt

    first = dt.date.fromisoformat(today) - dt.timedelta(days=30)

    def event(n):
        day = (first + dt.timedelta(days=n % 400)).isoformat()
        return admin.call("POST", "/events/v1/events", {
            "title": f"Event {n}", "content": f"<p>Event {n}: an evening to remember.</p>", "excerpt": "An evening.",
            "status": "publish", "start_date": day, "start_time": f"{10 + n % 10:02d}:00", "end_date": day,
            "end_time": "23:00", "venue_id": venues[n % len(venues)], "organizer_id": organizers[n % len(organizers)],
            "categories": [categories[n % len(categories)]], "capacity": 100, "featured": n % 10 == 0,
        }).json()["id"]
    events = parallel(event, range(N_EVENTS))
    log(f"  {len(venues)} venues, {len(organizers)} organizers, {len(events)} events in "
        f"{time.monotonic() - started:.0f} s")

    ticket = admin.call("POST", "/store/v1/products", {"name": "Door ticket", "regular_price": "25.00",
                                                      "meta": {"event_id": events[0]}}).json()["id"]
    area = admin.call("POST", "/store/v1/products", {"name": "Oak flooring", "regular_price": "5.99"}).json()["id"]
    admin.call("POST", f"/pricecalc/v1/products/{area}/calculator", {
        "calculator_type": "area",
        "settings": {"pricing_unit": "sq ft", "pricing_label": "Price per sq ft", "overage": "10",
                     "minimum_price": "50", "fields": {"length": {"max": "200"}, "width": {"max": "200"}}},
        "pricing_rules": [{"range_start": "0", "range_end": "100", "price": "5.99"},
                          {"range_start": "100", "range_end": "500", "price": "5.49", "sale_price": "4.99"},
                          {"range_start": "500", "range_end": None, "price": "4.79"}]})
    lines = parallel(lambda n: admin.call("POST", "/store/v1/products", {
        "name": f"Bench article {n} with a longer descriptive name", "sku": f"BENCH-{n}",
        "regular_price": f"{3 + n}.{n:02d}"}).json()["id"], range(INVOICE_LINES))
    order = admin.call("POST", "/store/v1/orders", {
        "status": "processing", "billing": billing(1),
        "line_items": [{"product_id": p, "quantity": 1 + n % 3} for n, p in enumerate(lines)]}).json()["id"]
    admin.call("POST", f"/invoicing/v1/documents/{order}/regenerate", {})
    state.update(events=events[:3], ticket_product=ticket, area_product=area, invoice_order=order,
                 ticket_orders=[], seed_version=SEED_VERSION)


def billing(n):
    return {"first_name": "Anna", "last_name": f"Nowak {n}", "address_1": "Ring Street 1", "city": "Vienna",
            "postcode": "1010", "country": "AT", "email": f"anna{n}@example.com"}


def top_up_tickets(base, state, wanted):
    """Fresh (active) ticket codes, at least ``wanted``: orders of the ticket product make them."""
    admin = Client(base, ("admin", state["admin"]))
    codes_file = STATE / "codes.txt"
    codes = codes_file.read_text().split() if codes_file.exists() else []
    if len(codes) < wanted:
        # The door's event sells without a limit: its capacity (100, as every seeded event's) would
        # refuse orders of 10,000 tickets.
        admin.call("PUT", f"/events/v1/events/{state['events'][0]}", {"capacity": 0})
    while len(codes) < wanted:
        order = admin.call("POST", "/store/v1/orders", {
            "status": "processing", "billing": billing(2),
            "line_items": [{"product_id": state["ticket_product"], "quantity": TICKETS_PER_ORDER}]}).json()["id"]
        state["ticket_orders"].append(order)
        pages = range(1, TICKETS_PER_ORDER // 100 + 1)
        fetched = parallel(lambda page: [a["ticket_code"] for a in admin.call(
            "GET", "/events/v1/attendees", order_id=order, per_page=100, page=page, status="active").json()], pages)
        codes += [c for page in fetched for c in page]
        log(f"  {len(codes)} fresh tickets")
    codes_file.write_text("\n".join(codes) + "\n")
    return codes


def use_tickets(used):
    codes_file = STATE / "codes.txt"
    codes = codes_file.read_text().split()
    codes_file.write_text("\n".join(codes[used:]) + ("\n" if codes[used:] else ""))


# --- the routes -----------------------------------------------------------------------------------

class Route:
    """``revalidate``: sent with If-None-Match naming the ETag of the route's answer (found when
    it is sampled), every answer a 304."""

    def __init__(self, name, label, method, path, auth=None, body=None, template=None, size_slack=0,
                 render=False, revalidate=False):
        self.name, self.label, self.method, self.path = name, label, method, path
        self.auth, self.body, self.template = auth, body, template
        self.size_slack, self.render, self.revalidate = size_slack, render, revalidate
        self.answer = None
        self.etag = None

    @property
    def statuses(self):
        """The lowest and highest status every answer must have."""
        return (304, 304) if self.revalidate else (200, 299)

    def headers(self):
        headers = {}
        if self.revalidate:
            # One site URL on every side (it is part of the tag): --compare-metrics serves our
            # site twice, on two ports.
            headers["Host"] = "127.0.0.1"
        if self.etag:
            headers["If-None-Match"] = self.etag
        if self.auth:
            token = base64.b64encode(f"{self.auth[0]}:{self.auth[1]}".encode()).decode()
            headers["Authorization"] = f"Basic {token}"
        if self.body is not None or self.template is not None:
            headers["Content-Type"] = "application/json"
        return headers


def routes(state):
    manager = ("manager", state["manager"])
    order = state["invoice_order"]
    return [
        Route("events", "GET events/v1/events?per_page=100&_embed=1", "GET",
              "/api/events/v1/events?per_page=100&_embed=1"),
        Route("revalidate", "GET events/v1/events?per_page=100&_embed=1 again with its ETag (304)", "GET",
              "/api/events/v1/events?per_page=100&_embed=1", revalidate=True),
        Route("checkin", "POST events/v1/checkin (fresh ticket each time)", "POST", "/api/events/v1/checkin",
              auth=manager, template='{"ticket_code":"%s"}', size_slack=8),
        Route("calculate", "POST pricecalc/v1/calculate (area, tiers)", "POST", "/api/pricecalc/v1/calculate",
              body=json.dumps({"product_id": state["area_product"],
                               "measurements": {"length": 12.5, "width": 10}})),
        Route("document", "GET invoicing/v1/documents/{id} (20 lines)", "GET",
              f"/api/invoicing/v1/documents/{order}", auth=manager),
        Route("pdf", "GET invoicing/v1/documents/{id}/pdf (20 lines)", "GET",
              f"/api/invoicing/v1/documents/{order}/pdf", auth=manager),
        Route("regenerate", "POST invoicing/v1/documents/{id}/regenerate (20 lines)", "POST",
              f"/api/invoicing/v1/documents/{order}/regenerate", auth=manager, body="{}", size_slack=4,
              render=True),
    ]


SKIPPED_HEADERS = {"date", "server", "content-length", "connection", "transfer-encoding"}


def sample(base, route, codes):
    """Our answer to one request of the route: what the bare app will answer."""
    body = route.template % codes.pop(0) if route.template else route.body
    if route.revalidate:
        first = requests.request(route.method, base + route.path, data=body, headers=route.headers(), timeout=60)
        route.etag = first.headers.get("ETag")
        if first.status_code != 200 or not route.etag:
            raise SystemExit(f"{route.label}: {first.status_code} with no ETag to revalidate")
    res = requests.request(route.method, base + route.path, data=body, headers=route.headers(), timeout=60)
    low, high = route.statuses
    if not low <= res.status_code <= high:
        raise SystemExit(f"{route.label}: {res.status_code} {res.text[:300]}")
    route.answer = {"status": res.status_code, "body": base64.b64encode(res.content).decode(),
                    "headers": [(k, v) for k, v in res.raw.headers.items() if k.lower() not in SKIPPED_HEADERS],
                    "size": len(res.content)}


def document_to_render(base, state):
    """What the regenerate route renders, read through REST: the order, the metadata, the
    site's options (the bare view builds the same platypus story from them)."""
    import datetime as dt

    from storeplatform.api import CURRENCY_SYMBOLS

    admin = Client(base, ("admin", state["admin"]))
    order = admin.call("GET", f"/store/v1/orders/{state['invoice_order']}").json()
    meta = admin.call("GET", f"/invoicing/v1/documents/{state['invoice_order']}").json()
    sections = admin.call("GET", "/store/v1/settings").json()["sections"]
    o = {item["id"]: item["value"] for items in sections.values() for item in items}
    fmt = {"currency": o["store.currency"],
           "symbol": o["store.currency_symbol"] or CURRENCY_SYMBOLS.get(o["store.currency"], o["store.currency"]),
           "position": o["store.currency_position"], "thousand_separator": o["store.thousand_separator"],
           "decimal_separator": o["store.decimal_separator"], "decimals": o["store.decimals"]}
    now = dt.datetime.now(dt.UTC).isoformat()
    return {"order": {"number": order["number"], "billing": order["billing"], "total": order["total"],
                      "line_items": [{"name": li["name"], "quantity": li["quantity"], "unit_price": li["price"],
                                      "total": li["total"]} for li in order["line_items"]]},
            "type": meta["document_type"], "display_number": meta["display_number"], "generated": now, "created": now,
            "options": {"store.name": o["store.name"], "store.address": o["store.address"]}, "format": fmt}


def lua_string(text):
    return json.dumps(text)  # a JSON string literal is a valid Lua string literal for this ASCII text


def wrk_script(route, codes_file, threads, path):
    size = route.answer["size"]
    text = (HERE / "wrk.lua.in").read_text()
    headers = "\n".join(f"wrk.headers[{lua_string(k)}] = {lua_string(v)}" for k, v in route.headers().items())
    for key, value in {"@METHOD@": lua_string(route.method), "@PATH@": lua_string(route.path),
                       "@BODY@": lua_string(route.body) if route.body is not None else "nil", "@HEADERS@": headers,
                       "@CODES_FILE@": lua_string(str(codes_file) if route.template else ""),
                       "@TEMPLATE@": lua_string(route.template or ""), "@THREADS@": str(threads),
                       "@MIN_SIZE@": str(size - route.size_slack), "@MAX_SIZE@": str(size + route.size_slack)}.items():
        text = text.replace(key, value)
    low, high = route.statuses
    if (low, high) != (200, 299):
        status_check = "status < 200 or status > 299"
        if status_check not in text:
            raise SystemExit(f"wrk.lua.in no longer checks statuses with {status_check!r}")
        text = text.replace(status_check, f"status < {low} or status > {high}")
    path.write_text(text)
    return path


def wrk(base, script, duration, threads, connections):
    proc = subprocess.run(["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency", "-s",
                           str(script), base], check=False, capture_output=True, text=True, timeout=duration + 120)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        raise SystemExit(f"wrk: {proc.stdout}\n{proc.stderr}")
    n, micros, wrong, errors, p50, p99, used = line.split()[1:]
    return {"requests": int(n), "seconds": int(micros) / 1e6, "wrong": int(wrong), "errors": int(errors),
            "p50": float(p50), "p99": float(p99), "used": int(used)}


def measure(route, ours, bare, args, work, both_sites=False, masters=None):
    """``both_sites``: the other side is our site too (``--compare-metrics``): its check-ins use
    fresh tickets as well. ``masters``: {side: gunicorn master pid}, to count the CPU time its
    workers spent on each run (``cpu_us``: per request)."""
    codes_file = work / "codes.txt"
    totals = {"ours": [], "bare": []}
    for round_ in range(args.rounds):
        sides = [("ours", ours), ("bare", bare)] if round_ % 2 == 0 else [("bare", bare), ("ours", ours)]
        for side, base in sides:
            if route.template:
                shutil.copy(STATE / "codes.txt", codes_file)
            script = wrk_script(route, codes_file, args.threads, work / f"{route.name}.lua")
            cpu_before = workers_cpu_seconds(masters[side]) if masters else 0.0
            result = wrk(base, script, args.duration, args.threads, args.connections)
            result["cpu"] = workers_cpu_seconds(masters[side]) - cpu_before if masters else 0.0
            if (side == "ours" or both_sites) and route.template:
                use_tickets(result["used"] * args.threads)
            if result["wrong"] or result["requests"] == 0:
                raise SystemExit(f"{route.label} ({side}): {result['wrong']} of {result['requests']} answers were "
                                 f"not {'304' if route.revalidate else '2xx'} with the sampled body size")
            totals[side].append(result)
    out = {}
    for side, results in totals.items():
        n = sum(r["requests"] for r in results)
        seconds = sum(r["seconds"] for r in results)
        out[side] = {"rps": n / seconds, "p50": sorted(r["p50"] for r in results)[len(results) // 2],
                     "tail": max(r["p99"] / r["p50"] for r in results if r["p50"]),
                     "cpu_us": sum(r["cpu"] for r in results) / n * 1e6,
                     # Each round's CPU per request, for the spread between rounds.
                     "cpu_rounds": [r["cpu"] / r["requests"] * 1e6 for r in results]}
    return out


def worker_pids(master_pid):
    """The process ids of the gunicorn master's workers (from /proc), [] once it is gone."""
    try:
        return Path(f"/proc/{master_pid}/task/{master_pid}/children").read_text().split()
    except OSError:
        return []


def workers_cpu_seconds(master_pid):
    """CPU time (user + system) the gunicorn master's worker processes have used so far."""
    total = 0
    for pid in worker_pids(master_pid):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / os.sysconf("SC_CLK_TCK")


def workers_rss_mb(master_pid):
    """Resident memory of the gunicorn master's worker processes, in MB (from /proc)."""
    total = 0
    for pid in worker_pids(master_pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


def compare_metrics(args, work, state, secret, web):
    """Metrics on (ours.ini: production.ini's app section) against off, alternated route by
    route in one run; prints the table of docs/performance.md's metrics section."""
    off_lines = {**site_app_lines(secret), "storeplatform.metrics": "false"}
    off_ini = work / "metrics-off.ini"
    write_ini(off_ini, off_lines, args.workers, args.gthreads)
    on_ini = work / "ours.ini"
    if args.same_both_sides:  # an A/A run: what the method reads between two identical sides
        on_ini = work / "metrics-off-too.ini"
        write_ini(on_ini, off_lines, args.workers, args.gthreads)
    rows = []
    with contextlib.ExitStack() as stack:
        # The server started first has read a few percent faster in A/A runs: --off-first swaps.
        first, second = (off_ini, on_ini) if args.off_first else (on_ini, off_ini)
        started = {first: stack.enter_context(served(first, free_port())),
                   second: stack.enter_context(served(second, free_port()))}
        (on, on_proc), (off, off_proc) = started[on_ini], started[off_ini]
        codes = top_up_tickets(on, state, 40_000 if "checkin" in web else 0)
        (STATE / "seed.json").write_text(json.dumps(state))
        analyze()
        measured = [r for r in routes(state) if r.name in web]
        for route in measured:
            sample(on, route, codes)
        use_tickets(sum(1 for r in measured if r.template))
        memory = {"on": [workers_rss_mb(on_proc.pid)], "off": [workers_rss_mb(off_proc.pid)]}
        # Both sides check in fresh tickets: enough for every run of both at 2,500 a second.
        wanted = 2 * args.rounds * args.duration * 2_500
        for route in measured:
            if route.template:
                top_up_tickets(on, state, wanted)
                (STATE / "seed.json").write_text(json.dumps(state))
            result = measure(route, on, off, args, work, both_sites=True,
                             masters={"ours": on_proc.pid, "bare": off_proc.pid})
            memory["on"].append(workers_rss_mb(on_proc.pid))
            memory["off"].append(workers_rss_mb(off_proc.pid))
            rows.append((route, result, memory["on"][-1], memory["off"][-1]))
            log(f"  {route.label}: metrics on {result['ours']['rps']:.0f}/s, off {result['bare']['rps']:.0f}/s")
    workers = f"{args.workers} gthread workers x {args.gthreads} threads" if args.gthreads else \
        f"{args.workers} sync workers"
    print(f"\nstoreplatform metrics cost: PostgreSQL + Redis, gunicorn {workers}, wrk -t{args.threads} "
          f"-c{args.connections}, {args.rounds} x {args.duration} s per side, alternated, {os.cpu_count()} cores\n")
    print("| route | metrics on req/s | off req/s | on p50 ms | off p50 ms | cost (rate) | workers' CPU us/request "
          "on / off | cost (CPU) | workers' RSS on / off MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for route, result, rss_on, rss_off in rows:
        o, b = result["ours"], result["bare"]
        print(f"| {route.label} | {o['rps']:.0f} | {b['rps']:.0f} | {o['p50']:.1f} | {b['p50']:.1f} | "
              f"{(1 - o['rps'] / b['rps']) * 100:+.1f} % | {o['cpu_us']:.0f} / {b['cpu_us']:.0f} | "
              f"{(o['cpu_us'] / b['cpu_us'] - 1) * 100:+.1f} % | {rss_on:.0f} / {rss_off:.0f} |")
    print("\nworkers' CPU us/request of each round (on | off):")
    for route, result, _, _ in rows:
        print(f"  {route.label}: {' '.join(f'{x:.0f}' for x in result['ours']['cpu_rounds'])} | "
              f"{' '.join(f'{x:.0f}' for x in result['bare']['cpu_rounds'])}")
    print(f"\nworkers' RSS (MB) after start-up and after each route, metrics on: "
          f"{' -> '.join(f'{m:.0f}' for m in memory['on'])}; off: {' -> '.join(f'{m:.0f}' for m in memory['off'])}")
    return 0


def profile(route, base, pid, args, work):
    """One more load of ours with py-spy sampling every worker of the gunicorn master ``pid``."""
    from stacks import summarize

    args.profile.mkdir(parents=True, exist_ok=True)
    raw = args.profile / f"{route.name}.raw"
    if route.template:
        shutil.copy(STATE / "codes.txt", work / "codes.txt")
    script = wrk_script(route, work / "codes.txt", args.threads, work / f"{route.name}.lua")
    py_spy = shutil.which("py-spy", path=str(BIN))
    idle = [] if args.on_cpu else ["--idle"]
    spy = subprocess.Popen([py_spy, "record", "--subprocesses", *idle, "-r", "200", "-f", "raw", "-o", str(raw),
                            "-d", str(args.duration + 2), "--pid", str(pid)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    time.sleep(1)
    result = wrk(base, script, args.duration, args.threads, args.connections)
    if route.template:
        use_tickets(result["used"] * args.threads)
    spy.wait(timeout=120)
    (args.profile / f"{route.name}.txt").write_text(summarize(raw, 40) + "\n")
    log(f"  profile: {args.profile / route.name}.txt ({result['requests'] / result['seconds']:.0f} req/s under py-spy)")


def ratio_of(name, ours, bare):
    goal, kind = GOALS[name]
    if kind == "time":
        value = bare / ours  # time per request ours / bare
        return value, value <= goal, f"time ratio {value:.2f}", f"<= {goal:.2f}"
    value = ours / bare
    return value, value >= goal, f"{value:.2f}", f">= {goal:.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=5, help="seconds of each wrk run (default 5)")
    parser.add_argument("--rounds", type=int, default=2, help="ours/bare pairs per route (default 2)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers of both apps (default 2)")
    parser.add_argument("--gthreads", type=int, default=0, metavar="N",
                        help="both apps on gunicorn's gthread workers with N threads each (an experiment: the "
                             "issue's table is measured on sync workers)")
    parser.add_argument("--only", nargs="+", choices=list(GOALS), help="measure only these rows")
    parser.add_argument("--reseed", action="store_true", help="drop the bench database and seed it anew")
    parser.add_argument("--deliveries", type=int, default=2000, help="queued deliveries of the webhook row")
    parser.add_argument("--compare-metrics", action="store_true",
                        help="measure the site with its metrics on against the same site with them off (instead of "
                             "the bare app), alternated in one run, with the workers' memory after each route")
    parser.add_argument("--off-first", action="store_true",
                        help="with --compare-metrics: start the side with the metrics off first")
    parser.add_argument("--same-both-sides", action="store_true",
                        help="with --compare-metrics: metrics off on both sides (an A/A run: the method's own spread)")
    parser.add_argument("--on-cpu", action="store_true",
                        help="with --profile: sample only the threads py-spy finds running (a thread blocked on the "
                             "database is left out)")
    parser.add_argument("--profile", type=Path, metavar="DIR",
                        help="after measuring each route, load ours once more under py-spy (--idle: waits on the "
                             "database count) and write DIR/<route>.raw and its summary DIR/<route>.txt")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        log("installing wrk (Debian package)")
        subprocess.run(["apt-get", "install", "-y", "-q", "wrk"], check=True, capture_output=True)
    if args.profile and shutil.which("py-spy", path=str(BIN)) is None:
        log("installing py-spy (PyPI, into this environment)")
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "py-spy"], check=True, capture_output=True)

    STATE.mkdir(parents=True, exist_ok=True)
    state_file = STATE / "seed.json"
    state = json.loads(state_file.read_text()) if state_file.exists() and not args.reseed else {}
    if state.get("seed_version") != SEED_VERSION or not database_exists():
        state = {}
    work = STATE / "run"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    secret = state.get("secret") or base64.b64encode(os.urandom(24)).decode()
    ours_ini = work / "ours.ini"
    write_ini(ours_ini, site_app_lines(secret), args.workers, args.gthreads)
    wanted = [n for n in GOALS if not args.only or n in args.only]
    rows = []
    web = [n for n in wanted if n != "webhooks"]
    if web:
        if not state:
            log("seeding a new site (CLI, then REST) ...")
            recreate_database()
            (STATE / "codes.txt").unlink(missing_ok=True)
            state = {"secret": secret, **seed_cli(ours_ini)}
        else:
            cli(ours_ini, "migrate")
        if args.compare_metrics:
            if "seed_version" not in state:
                with served(ours_ini, free_port()) as (ours, _):
                    seed_rest(ours, state)
                    state_file.write_text(json.dumps(state))
            return compare_metrics(args, work, state, secret, web)
        with served(ours_ini, free_port()) as (ours, ours_proc):
            if "seed_version" not in state:
                seed_rest(ours, state)
                state_file.write_text(json.dumps(state))
            codes = top_up_tickets(ours, state, 40_000 if "checkin" in web else 0)
            state_file.write_text(json.dumps(state))
            analyze()
            measured = [r for r in routes(state) if r.name in web]
            recorded = {"routes": []}
            for route in measured:
                sample(ours, route, codes)
                entry = {"method": route.method, "path": route.path.split("?")[0], "answer": route.answer,
                         "if_none_match": route.revalidate}
                if route.render:
                    entry["render"] = document_to_render(ours, state)
                recorded["routes"].append(entry)
            use_tickets(sum(1 for r in measured if r.template))
            (work / "answers.json").write_text(json.dumps(recorded))
            write_ini(work / "bare.ini", {"use": "call:bare:make_app", "answers": str(work / "answers.json")},
                      args.workers, args.gthreads)
            with served(work / "bare.ini", free_port()) as (bare, _):
                for route in measured:
                    if route.template:
                        top_up_tickets(ours, state, 40_000)
                        state_file.write_text(json.dumps(state))
                    result = measure(route, ours, bare, args, work)
                    rows.append((route.name, route.label, result))
                    log(f"  {route.label}: ours {result['ours']['rps']:.0f}/s, bare {result['bare']['rps']:.0f}/s")
                    if args.profile:
                        profile(route, ours, ours_proc.pid, args, work)
    if "webhooks" in wanted:
        sys.path.insert(0, str(HERE))
        import webhooks

        ours_rate, bare_rate = webhooks.measure(deliveries=args.deliveries)
        rows.append(("webhooks", f"webhook deliveries/s, one worker --workers 4 ({args.deliveries} queued)",
                     {"ours": {"rps": ours_rate, "p50": None}, "bare": {"rps": bare_rate, "p50": None}}))

    workers = f"{args.workers} gthread workers x {args.gthreads} threads" if args.gthreads else \
        f"{args.workers} sync workers"
    print(f"\nstoreplatform HTTP bench: PostgreSQL + Redis, gunicorn {workers}, "
          f"wrk -t{args.threads} -c{args.connections}, {args.rounds} x {args.duration} s per side, "
          f"{os.cpu_count()} cores\n")
    print(f"| route | ours req/s | bare req/s | ours p50 ms | ratio | goal | ours p99/p50 (<= {TAIL:g}) | met |")
    print("|---|---|---|---|---|---|---|---|")
    met_all = True
    for name, label, result in rows:
        o, b = result["ours"], result["bare"]
        _, met, shown, goal = ratio_of(name, o["rps"], b["rps"])
        tail = o.get("tail")
        met = met and (tail is None or tail <= TAIL)
        met_all &= met
        p50 = f"{o['p50']:.1f}" if o["p50"] is not None else "-"
        tail = f"{tail:.1f}" if tail is not None else "-"
        print(f"| {label} | {o['rps']:.0f} | {b['rps']:.0f} | {p50} | {shown} | {goal} | {tail} | "
              f"{'yes' if met else 'NO'} |")
    print(f"\n{'every goal met' if met_all else 'NOT every goal met'}")
    return 0 if met_all else 1


if __name__ == "__main__":
    sys.exit(main())
