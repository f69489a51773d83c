"""Ticket types (#40): a product that is a ticket for an event sells at most its places, only in
its sale window, and says so on the order's line; its ``meta`` keys are checked at the boundary."""
from datetime import datetime, timedelta, timezone

import pytest

API = "/api"


@pytest.fixture
def site(make_site):
    return make_site(**{"storeplatform.plugins": "events"})


def event(site, admin):
    return site.app.post_json(f"{API}/events/v1/events", {"title": "Concert", "status": "publish",
                                                         "start_date": "2031-03-15"}, headers=admin).json["id"]


def ticket(site, admin, event_id, status=201, **meta):
    return site.app.post_json(f"{API}/store/v1/products", {
        "name": "Seat", "regular_price": "20.00", "meta": {"event_id": event_id, **meta}}, headers=admin, status=status)


def order(site, admin, product_id, quantity, status="processing", expect=201):
    return site.app.post_json(f"{API}/store/v1/orders", {
        "status": status, "billing": {"first_name": "Ann", "email": "ann@example.com"},
        "line_items": [{"product_id": product_id, "quantity": quantity}]}, headers=admin, status=expect)


def test_a_ticket_type_sells_its_places_and_no_more(site):
    admin = site.headers_for("administrator")
    seat = ticket(site, admin, event(site, admin), ticket_capacity=5).json["id"]
    order(site, admin, seat, 3)                      # paid: 3 tickets
    order(site, admin, seat, 1, status="pending")    # awaiting payment: holds 1 place
    refused = order(site, admin, seat, 2, expect=400).json
    assert refused["code"] == "rest_invalid_param"
    assert refused["data"]["params"] == {"line_items.0.quantity": "only 1 place(s) of Seat left"}
    order(site, admin, seat, 1)
    assert order(site, admin, seat, 1, expect=400).json["data"]["params"] == {
        "line_items.0.quantity": "Seat is sold out"}


def test_a_cancelled_order_gives_its_places_back(site):
    admin = site.headers_for("administrator")
    seat = ticket(site, admin, event(site, admin), ticket_capacity=2).json["id"]
    first = order(site, admin, seat, 2).json["id"]
    order(site, admin, seat, 1, expect=400)
    site.app.put_json(f"{API}/store/v1/orders/{first}", {"status": "cancelled"}, headers=admin, status=200)
    order(site, admin, seat, 2)


def test_a_ticket_type_is_sold_only_in_its_window(site):
    admin = site.headers_for("administrator")
    event_id = event(site, admin)
    now = datetime.now(timezone.utc)
    later = ticket(site, admin, event_id, ticket_sales_start=(now + timedelta(days=1)).isoformat()).json["id"]
    over = ticket(site, admin, event_id, ticket_sales_end=(now - timedelta(minutes=1)).isoformat()).json["id"]
    open_now = ticket(site, admin, event_id, ticket_sales_start=(now - timedelta(days=1)).isoformat(),
                      ticket_sales_end=(now + timedelta(days=1)).isoformat()).json["id"]
    assert "is on sale from" in order(site, admin, later, 1, expect=400).json["data"]["params"]["line_items.0.product_id"]
    assert "no longer on sale" in order(site, admin, over, 1, expect=400).json["data"]["params"]["line_items.0.product_id"]
    order(site, admin, open_now, 1)


@pytest.mark.parametrize("meta, message", [
    ({"ticket_capacity": -1}, "ticket_capacity must be a whole number"),
    ({"ticket_capacity": "10"}, "ticket_capacity must be a whole number"),
    ({"ticket_capacity": True}, "ticket_capacity must be a whole number"),
    ({"ticket_capacity": 10 ** 30}, "ticket_capacity must be a whole number"),
    ({"ticket_sales_start": "tomorrow"}, "ticket_sales_start must be an ISO 8601"),
    ({"ticket_sales_end": 5}, "ticket_sales_end must be an ISO 8601"),
    ({"ticket_sales_start": "2031-01-02T00:00:00", "ticket_sales_end": "2031-01-01T00:00:00"},
     "ticket_sales_end must be after ticket_sales_start"),
])
def test_bad_ticket_keys_are_refused_and_nothing_is_made(site, meta, message):
    admin = site.headers_for("administrator")
    event_id = event(site, admin)
    body = ticket(site, admin, event_id, status=400, **meta).json
    assert body["code"] == "rest_invalid_param"
    assert body["data"]["params"]["meta"].startswith(message)
    assert site.app.get(f"{API}/store/v1/products", headers=admin).json == []


def test_a_product_that_stops_being_a_ticket_sells_freely(site):
    admin = site.headers_for("administrator")
    seat = ticket(site, admin, event(site, admin), ticket_capacity=1).json["id"]
    order(site, admin, seat, 1)
    order(site, admin, seat, 1, expect=400)
    site.app.put_json(f"{API}/store/v1/products/{seat}", {"meta": {}}, headers=admin, status=200)
    order(site, admin, seat, 5)


def test_the_event_capacity_bounds_all_its_ticket_types_together(site):
    admin = site.headers_for("administrator")
    event_id = site.app.post_json(f"{API}/events/v1/events", {"title": "Small room", "start_date": "2031-03-15",
                                                             "capacity": 3}, headers=admin).json["id"]
    standard = ticket(site, admin, event_id, ticket_capacity=0).json["id"]
    vip = ticket(site, admin, event_id, ticket_capacity=2).json["id"]
    order(site, admin, standard, 2)
    assert order(site, admin, vip, 2, expect=400).json["data"]["params"] == {
        "line_items.0.quantity": "only 1 place(s) left for the event"}
    order(site, admin, vip, 1)
    assert order(site, admin, standard, 1, expect=400).json["data"]["params"] == {
        "line_items.0.quantity": "the event is sold out"}
