"""Fixtures of the events tests: a site with the events plugin and helpers that arrange data
through the public routes (store orders through store/v1)."""
import pytest

from storeplatform.api import Term

API = "/api/events/v1"


class Evt:
    def __init__(self, site):
        self.site = site
        self.app = site.app
        self.admin = site.headers_for("administrator")

    def url(self, path):
        return API + path

    def get(self, path, **kw):
        return self.app.get(self.url(path), **kw)

    def post(self, path, body=None, **kw):
        kw.setdefault("headers", self.admin)
        return self.app.post_json(self.url(path), body or {}, **kw)

    def put(self, path, body=None, **kw):
        kw.setdefault("headers", self.admin)
        return self.app.put_json(self.url(path), body or {}, **kw)

    def delete(self, path, **kw):
        kw.setdefault("headers", self.admin)
        return self.app.delete(self.url(path), **kw)

    def event(self, title="Concert", **body):
        return self.post("/events", {"title": title, **body}, status=201).json

    def venue(self, name="Hall", **body):
        return self.post("/venues", {"name": name, **body}, status=201).json

    def organizer(self, name="Society", **body):
        return self.post("/organizers", {"name": name, **body}, status=201).json

    def category(self, name, color="", slug=None):
        with self.site.session() as s:
            term = Term(taxonomy="evt_category", name=name, slug=slug or name.lower(), color=color,
                        description=f"{name} events")
            s.add(term)
            s.flush()
            return term.id

    def product(self, event_id, price="10.00"):
        return self.app.post_json("/api/store/v1/products", {
            "name": f"Ticket {event_id}", "regular_price": price, "meta": {"event_id": event_id}},
            headers=self.admin, status=201).json["id"]

    def order(self, lines, status="processing", billing=None):
        """``lines``: [(product_id, quantity)]; returns the order id."""
        billing = billing or {"first_name": "Anna", "last_name": "Nowak", "email": "anna@example.com",
                              "phone": "+43 1 234"}
        return self.app.post_json("/api/store/v1/orders", {
            "status": status, "billing": billing,
            "line_items": [{"product_id": p, "quantity": q} for p, q in lines]},
            headers=self.admin, status=201).json["id"]

    def set_order_status(self, order_id, status):
        self.app.put_json(f"/api/store/v1/orders/{order_id}", {"status": status}, headers=self.admin, status=200)

    def attendees(self, **params):
        params.setdefault("per_page", 100)
        return self.get("/attendees", params=params, headers=self.admin).json

    def tickets(self, event_id, quantity=1, **order_kw):
        """Sell ``quantity`` tickets of the event in one paid order; returns its attendees."""
        order_id = self.order([(self.product(event_id), quantity)], **order_kw)
        return self.attendees(order_id=order_id, orderby="created_at", order="ASC")


@pytest.fixture
def evt(make_site):
    return Evt(make_site(**{"storeplatform.plugins": "events"}))


@pytest.fixture
def evt_log(tmp_path, monkeypatch):
    """The file where the third-party test plugin records every evt_* action call."""
    path = tmp_path / "evt-actions.log"
    path.write_text("")
    monkeypatch.setenv("SP_THIRDPARTY_EVT_LOG", str(path))

    def lines():
        return [line for line in path.read_text().splitlines() if line]

    lines.path = path
    return lines


@pytest.fixture
def evt3(make_site, evt_log):
    """Events with the third-party test plugin (filter, speakers route, action log)."""
    return Evt(make_site(**{"storeplatform.plugins": "events thirdparty"}))


ALTERNATE = {"storeplatform.plugins": "events", "events.api_variant": "alternate"}


@pytest.fixture
def alt(make_site):
    """A site serving the alternate variant of events/v1 (the Evt helpers create events with the
    variant's fields: ``evt.event("T", venue=id)``)."""
    return Evt(make_site(**ALTERNATE))
