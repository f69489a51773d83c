"""A manual order made in the admin (#40 item 1): for a customer or a guest, lines named by id or
SKU, billing and status; checked as REST checks an order (the same messages, on the form's own
fields), the plugins' rules of a line included (a ticket's places); nothing made when refused."""
from decimal import Decimal

import pytest

from .helpers import assert_page, login, token

API = "/api/store/v1"


@pytest.fixture
def site(make_site):
    site = make_site(**{"storeplatform.plugins": "events"})
    login(site, "owner", "shop_manager")
    return site


def product(site, **body):
    return site.app.post_json(f"{API}/products", {"regular_price": "10.00", **body},
                              headers=site.headers_for("administrator")).json["id"]


def submit(site, fields, status=303):
    page = site.app.get("/admin/orders/new")
    return site.app.post("/admin/orders/new", {"csrf_token": token(page), "status": "pending", **fields}, status=status)


def orders(site):
    return site.app.get(f"{API}/orders", headers=site.headers_for("administrator")).json


def test_a_guest_order_with_lines_by_id_and_sku(site):
    mug = product(site, name="Mug", sku="MUG-1")
    bag = product(site, name="Bag", regular_price="4.50")
    res = submit(site, {"product-0": "MUG-1", "quantity-0": "2", "product-1": str(bag), "quantity-1": "",
                        "billing-first_name": "Zoë", "billing-last_name": "Łukasz", "billing-email": "zoe@example.com",
                        "status": "processing"})
    order_id = int(res.location.rsplit("/", 1)[1])
    order = site.app.get(f"{API}/orders/{order_id}", headers=site.headers_for("administrator")).json
    assert (order["status"], order["customer_id"], Decimal(str(order["total"]))) == ("processing", 0, Decimal("24.50"))
    assert [(line["product_id"], line["quantity"]) for line in order["line_items"]] == [(mug, 2), (bag, 1)]
    assert (order["billing"]["first_name"], order["billing"]["email"]) == ("Zoë", "zoe@example.com")
    assert_page(site.app.get(f"/admin/orders/{order_id}"), 200, "Łukasz")


def test_an_order_for_a_customer_takes_the_accounts_email(site):
    product(site, name="Mug", sku="MUG-1")
    site.create_user("mira", "customer", email="mira@example.com")
    res = submit(site, {"customer": "MIRA@example.com", "product-0": "MUG-1"})
    order = site.app.get(f"{API}/orders/{res.location.rsplit('/', 1)[1]}", headers=site.headers_for("administrator")).json
    assert order["billing"]["email"] == "mira@example.com"
    assert order["customer_id"] > 0


def test_a_refused_order_names_each_field_and_makes_nothing(site):
    product(site, name="Mug", sku="MUG-1")
    res = submit(site, {"customer": "nobody", "product-0": "NOPE", "product-1": "MUG-1", "quantity-1": "0",
                        "product-2": "MUG-1", "quantity-2": "x", "billing-email": "e" * 300, "status": "paid"},
                 status=400)
    assert_page(res, 400, "The order was not made")
    for field in ("customer", "product-0", "quantity-1", "quantity-2", "billing-email", "status"):
        assert f'id="error-{field}"' in res.text, field
    assert "no product with id or SKU" in res.text
    assert orders(site) == []
    assert 'id="error-lines"' in submit(site, {}, status=400).text


def test_a_ticket_line_beyond_the_places_left_is_refused_on_its_row(site):
    admin = site.headers_for("administrator")
    event_id = site.app.post_json("/api/events/v1/events", {"title": "Gala", "start_date": "2031-05-01"},
                                  headers=admin).json["id"]
    product(site, name="Seat", sku="SEAT", meta={"event_id": event_id, "ticket_capacity": 2})
    res = submit(site, {"product-0": "SEAT", "quantity-0": "3", "billing-email": "a@example.com"}, status=400)
    assert 'id="error-quantity-0"' in res.text and "only 2 place(s) of Seat left" in res.text
    assert orders(site) == []
    submit(site, {"product-0": "SEAT", "quantity-0": "2", "billing-email": "a@example.com", "status": "completed"})
    tickets = site.app.get(f"/api/events/v1/attendees?event={event_id}", headers=admin).json
    assert len(tickets) == 2
