"""The cost budget of the hot paths (issue #39): the work one warm request does on each hot route,
counted, not timed, and held to the figures checked in at bench/budget.json.

Three measures per route and backend, each the same on every machine and every run:

- ``statements``: SQL statements the request sent (every one a listener of the engine's
  ``before_cursor_execute`` sees: the ORM's, Core's, ``DriverStatement``'s and the site-state
  check's), BEGIN and the like included;
- ``transactions``: commits and rollbacks of the engine's connections;
- ``calls``: Python function calls made while the WSGI application ran (``sys.setprofile``'s
  ``call`` events in the request's thread: functions, methods and generator resumptions; C
  functions not counted, nor the stdlib ``random`` module's, whose number is chance's),
  garbage collection held off meanwhile.

The request measured is the third of its kind on a warm site (caches, compiled statements and
imports settled by the first two). A figure above its budget fails with the route, the measure and
the new figure; a figure below it fails too, asking for the lower figure, so that the budget
stays the floor the next change is held to. Changing a budget is an edit of its line in
bench/budget.json, or ``STOREPLATFORM_WRITE_BUDGET=1`` on this test writes this backend's figures;
``STOREPLATFORM_BUDGET_TRACE=DIR`` writes the functions each route's measured call made, one per
line, to diff before and after a change (docs/performance.md, "The cost budget").
"""
import gc
import json
import os
import random
import sys
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import event, text
from webtest import TestApp

from storeplatform.testing import admin_login

BUDGET = Path(__file__).resolve().parents[2] / "bench" / "budget.json"
MEASURES = ("statements", "transactions", "calls")
PASSWORD = "budget-password-1"
# random's rejection sampling (``secrets.choice`` drawing a token's characters) calls
# getrandbits as often as chance has it: its frames are left out of the count.
RANDOM = random.__file__


class Counted:
    """What one WSGI call did; with ``trace``, the function of each call in order."""

    def __init__(self, trace=False):
        self.statements = self.transactions = self.calls = 0
        self.trace = [] if trace else None

    def figures(self):
        return {name: getattr(self, name) for name in MEASURES}


class Measured:
    """A WSGI app that counts the work of each call while ``counting`` is set."""

    def __init__(self, wsgi, engine):
        self.wsgi, self.counting = wsgi, None
        event.listen(engine, "before_cursor_execute", self._statement)
        for name in ("commit", "rollback"):
            event.listen(engine, name, self._transaction)

    def _statement(self, *args):
        if self.counting is not None:
            self.counting.statements += 1

    def _transaction(self, *args):
        if self.counting is not None:
            self.counting.transactions += 1

    def __call__(self, environ, start_response):
        counted = self.counting
        if counted is None:
            return self.wsgi(environ, start_response)

        trace = counted.trace

        def profile(frame, kind, arg):
            if kind == "call" and frame.f_code.co_filename != RANDOM:
                counted.calls += 1
                if trace is not None:
                    trace.append(f"{frame.f_code.co_filename}:{frame.f_code.co_firstlineno} {frame.f_code.co_name}")

        gc.collect()
        gc.disable()
        sys.setprofile(profile)
        try:
            return list(self.wsgi(environ, start_response))  # the body too: a streamed one is work
        finally:
            sys.setprofile(None)
            gc.enable()

    @contextmanager
    def count(self, trace=False):
        self.counting = Counted(trace)
        try:
            yield self.counting
        finally:
            self.counting = None


def measure(measured, request, times=3, trace_to=None):
    """The figures of the last of ``times`` calls of ``request()`` (each a WebTest call); with
    ``trace_to`` (a path), the functions that call made, one per line, are written there."""
    for _ in range(times - 1):
        request()
    with measured.count(trace=trace_to is not None) as counted:
        request()
    if trace_to is not None:
        Path(trace_to).write_text("\n".join(counted.trace) + "\n")
    return counted.figures()


def prepared(site):
    """A site with what each hot route works on, as bench/http seeds it (smaller): returns
    ``(app, measured, routes)``, routes by name as calls to make."""
    measured = Measured(site.wsgi, site.engine)
    app = TestApp(measured, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    site.set_option("invoicing.rest_api_enabled", True)
    admin = site.headers_for("administrator")
    site.create_user("manager", "shop_manager", password=PASSWORD)
    manager = site.headers_for("manager")
    api = "/api"
    venue = app.post_json(f"{api}/events/v1/venues", {"name": "Hall", "city": "Vienna"}, headers=admin).json["id"]
    events = [app.post_json(f"{api}/events/v1/events", {
        "title": f"Event {n}", "status": "publish", "start_date": "2031-03-15", "start_time": "19:30",
        "venue_id": venue, "capacity": 100}, headers=admin).json["id"] for n in range(12)]
    ticket = app.post_json(f"{api}/store/v1/products", {"name": "Door ticket", "regular_price": "25.00",
                                                          "meta": {"event_id": events[0]}}, headers=admin).json["id"]
    area = app.post_json(f"{api}/store/v1/products", {"name": "Oak flooring", "regular_price": "5.99"},
                         headers=admin).json["id"]
    app.post_json(f"{api}/pricecalc/v1/products/{area}/calculator", {
        "calculator_type": "area",
        "settings": {"pricing_unit": "sq ft", "pricing_label": "Price per sq ft", "overage": "10",
                     "minimum_price": "50", "fields": {"length": {"max": "200"}, "width": {"max": "200"}}},
        "pricing_rules": [{"range_start": "0", "range_end": "100", "price": "5.99"},
                          {"range_start": "100", "range_end": "500", "price": "5.49", "sale_price": "4.99"},
                          {"range_start": "500", "range_end": None, "price": "4.79"}]}, headers=admin)
    lines = [app.post_json(f"{api}/store/v1/products", {"name": f"Article {n}", "sku": f"ART-{n}",
                                                          "regular_price": f"{3 + n}.50"}, headers=admin).json["id"]
             for n in range(20)]
    order = app.post_json(f"{api}/store/v1/orders", {
        "status": "processing", "billing": {"first_name": "Anna", "last_name": "Nowak", "email": "anna@example.com"},
        "line_items": [{"product_id": p, "quantity": 1 + n % 3} for n, p in enumerate(lines)]}, headers=admin).json["id"]
    app.post_json(f"{api}/invoicing/v1/documents/{order}/regenerate", {}, headers=manager)
    tickets = app.post_json(f"{api}/store/v1/orders", {
        "status": "processing", "billing": {"first_name": "Door", "email": "door@example.com"},
        "line_items": [{"product_id": ticket, "quantity": 10}]}, headers=admin).json["id"]
    codes = iter(a["ticket_code"] for a in app.get(f"{api}/events/v1/attendees?order_id={tickets}&per_page=100",
                                                   headers=admin).json)
    admin_login(_SiteApp(site, app), "manager", password=PASSWORD)
    events_list = f"{api}/events/v1/events?per_page=100&_embed=1"
    tags = []

    def revalidate():
        """The events list again with its ETag (#39 item 4): a 304."""
        if not tags:
            tags.append(app.get(events_list, status=200).headers["ETag"])
        return app.get(events_list, headers={"If-None-Match": tags[0]}, status=304)

    routes = {
        "calculate": lambda: app.post_json(f"{api}/pricecalc/v1/calculate", {
            "product_id": area, "measurements": {"length": 12.5, "width": 10}}, status=200),
        "checkin": lambda: app.post_json(f"{api}/events/v1/checkin", {"ticket_code": next(codes)}, headers=manager,
                                         status=200),
        "document": lambda: app.get(f"{api}/invoicing/v1/documents/{order}", headers=manager, status=200),
        "pdf": lambda: app.get(f"{api}/invoicing/v1/documents/{order}/pdf", headers=manager, status=200),
        "events": lambda: app.get(events_list, status=200),
        "revalidate": revalidate,
        "event": lambda: app.get(f"{api}/events/v1/events/{events[0]}", status=200),
        "products": lambda: app.get(f"{api}/store/v1/products", status=200),
        "login": lambda: app.post_json(f"{api}/store/v1/auth/login", {"login": "manager", "password": PASSWORD},
                                       status=200),
        "dashboard": lambda: app.get("/admin/", status=200),
    }
    return app, measured, routes


class _SiteApp:
    """The site as ``admin_login`` uses it, with the measured app (its cookies are the app's)."""

    def __init__(self, site, app):
        self.app, self._site = app, site

    def __getattr__(self, name):
        return getattr(self._site, name)


def read_budget():
    return json.loads(BUDGET.read_text())


def write_budget(budget):
    """One line per route and backend, so that changing a figure is a one-line edit."""
    lines = ["{"]
    routes = [name for name in budget if not name.startswith("_")]
    lines.append(f'  "_about": {json.dumps(budget.get("_about", ""))},')
    for i, route in enumerate(routes):
        backends = budget[route]
        lines.append(f'  "{route}": {{')
        for j, (backend, figures) in enumerate(sorted(backends.items())):
            comma = "," if j < len(backends) - 1 else ""
            lines.append(f'    "{backend}": {json.dumps(figures)}{comma}')
        lines.append("  }" + ("," if i < len(routes) - 1 else ""))
    lines.append("}")
    BUDGET.write_text("\n".join(lines) + "\n")


def differences(budget, backend, measured):
    """Each figure that is not its budget: ``route: measure N, budget M (...)``."""
    found = []
    for route, figures in measured.items():
        kept = budget.get(route, {}).get(backend)
        if kept is None:
            found.append(f"{route} ({backend}): no budget; measured {figures}")
            continue
        for name in MEASURES:
            if figures[name] > kept[name]:
                found.append(f"{route} ({backend}): {name} {figures[name]}, budget {kept[name]}: more work than "
                             f"the budget (find what was added, or raise the budget in bench/budget.json)")
            elif figures[name] < kept[name]:
                found.append(f"{route} ({backend}): {name} {figures[name]}, budget {kept[name]}: less work: "
                             f"lower the budget to {figures[name]} in bench/budget.json")
    return found


def test_every_hot_route_does_the_work_of_its_budget(make_site):
    site = make_site(**{"storeplatform.plugins": "invoicing pricecalc events"})
    _, measured, routes = prepared(site)
    backend = site.engine.dialect.name
    traces = os.environ.get("STOREPLATFORM_BUDGET_TRACE")  # a folder: each route's calls, to diff
    if traces:
        Path(traces).mkdir(parents=True, exist_ok=True)
    figures = {route: measure(measured, call, trace_to=Path(traces) / f"{route}.{backend}.txt" if traces else None)
               for route, call in routes.items()}
    budget = read_budget()
    if os.environ.get("STOREPLATFORM_WRITE_BUDGET"):
        for route, values in figures.items():
            budget.setdefault(route, {})[backend] = values
        write_budget(budget)
    assert differences(budget, backend, figures) == []


def test_a_planted_statement_or_function_fails_the_budget(make_site):
    """A tween that runs one more statement, or calls one more function, per request shows as
    exactly that in the figures, and the comparison names the route, the measure and the figure."""
    site = make_site(**{"storeplatform.plugins": "pricecalc"})
    site.config.add_tween(f"{__name__}:planted_tween_factory", under="storeplatform.core.logs.request_log_tween_factory")
    site.config.commit()
    measured = Measured(site.config.make_wsgi_app(), site.engine)
    app = TestApp(measured, extra_environ={"REMOTE_ADDR": "127.0.0.1"})

    def products(plant=""):
        return lambda: app.get("/api/store/v1/products", headers={"X-Plant": plant}, status=200)

    base = measure(measured, products())
    with_function = measure(measured, products("function"))
    # Last: a statement written as text is one the cache cannot vouch for (it computes afresh).
    with_statement = measure(measured, products("statement"))
    assert with_statement["statements"] > base["statements"]
    assert with_function["calls"] == base["calls"] + 1
    assert with_function["statements"] == base["statements"]
    backend = site.engine.dialect.name
    budget = {"products": {backend: base}}
    assert differences(budget, backend, {"products": with_function}) == [
        f"products ({backend}): calls {base['calls'] + 1}, budget {base['calls']}: more work than the budget (find "
        f"what was added, or raise the budget in bench/budget.json)"]
    assert differences(budget, backend, {"products": with_statement})[0].startswith(
        f"products ({backend}): statements {with_statement['statements']}, budget {base['statements']}: more work")


def planted_tween_factory(handler, registry):
    def tween(request):
        plant = request.headers.get("X-Plant")
        if plant == "statement":
            request.db.execute(text("SELECT 1"))
        elif plant == "function":
            _one_more_function()
        return handler(request)
    return tween


def _one_more_function():
    return None

