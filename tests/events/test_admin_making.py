"""Making what the shop sells from the admin (#40 item 1): an event with a venue and an organizer
made on the spot, its ticket types (places, price, sale window), venues and organizers pages;
each through the same rules as REST (the same error messages beside the fields), nothing
written by a refused form, and what the admin made read back through REST."""
from decimal import Decimal

import pytest

from admin.helpers import assert_page, login, token

API = "/api"


@pytest.fixture
def site(make_site):
    site = make_site(**{"storeplatform.plugins": "events"})
    login(site, "owner", "shop_manager")
    return site


def post(site, path, fields, page=None, status=303):
    page = page or site.app.get(path if not path.endswith(("/trash", "/delete")) else "/admin/")
    return site.app.post(path, {"csrf_token": token(page), **fields}, status=status)


EVENT = {"title": "Spring concert", "content": "<p>Brahms.</p>", "excerpt": "", "start_date": "2031-04-10",
         "start_time": "19:30", "end_date": "2031-04-10", "end_time": "22:00", "timezone": "Europe/Vienna",
         "all_day": "false", "capacity": "300", "event_status": "scheduled", "event_type": "in-person",
         "virtual_url": "", "featured": "true", "categories-sent": "1", "status": "publish"}


def test_an_owner_makes_an_event_with_a_new_venue_and_organizer(site):
    res = post(site, "/admin/events/new", {**EVENT, "venue_id": "new", "new_venue": "Musikverein",
                                           "organizer_id": "new", "new_organizer": "Vienna Phil"},
               page=site.app.get("/admin/events/new"))
    event_id = int(res.location.rsplit("/", 1)[1])
    event = site.app.get(f"{API}/events/v1/events/{event_id}").json
    assert (event["title"], event["start_date"], event["start_time"], event["end_time"]) == \
        ("Spring concert", "2031-04-10", "19:30", "22:00")
    assert (event["capacity"], event["featured"], event["timezone"]) == (300, True, "Europe/Vienna")
    venues = site.app.get(f"{API}/events/v1/venues").json
    organizers = site.app.get(f"{API}/events/v1/organizers").json
    assert [(v["id"], v["name"]) for v in venues] == [(event["venue_id"], "Musikverein")]
    assert [(o["id"], o["name"]) for o in organizers] == [(event["organizer_id"], "Vienna Phil")]
    page = assert_page(site.app.get(f"/admin/events/{event_id}"), 200, "Spring concert")
    assert "No ticket type yet" in page.text


def test_an_event_with_its_end_left_empty_ends_with_its_day(site):
    # The form says "An end left empty is the day's end": an empty time is REST's default, as an
    # empty date is (it was refused as "'' is not a time").
    res = post(site, "/admin/events/new", {**EVENT, "end_date": "", "end_time": ""},
               page=site.app.get("/admin/events/new"))
    event = site.app.get(f"{API}/events/v1/events/{res.location.rsplit('/', 1)[1]}").json
    assert (event["start_date"], event["start_time"], event["end_date"], event["end_time"]) == \
        ("2031-04-10", "19:30", "2031-04-10", "23:59")


def test_a_refused_event_form_says_why_beside_each_field_and_makes_nothing(site):
    page = site.app.get("/admin/events/new")
    res = post(site, "/admin/events/new", {**EVENT, "title": " ", "end_date": "2031-04-01", "capacity": "many",
                                           "venue_id": "new", "new_venue": "Made then undone",
                                           "organizer_id": "999999", "event_status": "maybe"},
               page=page, status=400)
    assert_page(res, 400, "Nothing was saved")
    errors = {m.split('"')[0]: m for m in res.text.split('id="error-')[1:]}
    assert set(errors) >= {"title", "end_date", "capacity", "organizer_id", "event_status"}
    # The same messages as REST's for the same body.
    rest = site.app.post_json(f"{API}/events/v1/events", {"title": "x", "start_date": "2031-04-10",
                                                         "end_date": "2031-04-01"},
                              headers=site.headers_for("administrator"), status=400).json
    assert rest["data"]["params"]["end_date"] in errors["end_date"]
    assert site.app.get(f"{API}/events/v1/venues").json == []  # the venue made on the spot went with it
    assert site.app.get(f"{API}/events/v1/events", headers=site.headers_for("administrator")).json == []


def test_an_event_is_edited_and_trashed(site):
    admin = site.headers_for("administrator")
    event_id = site.app.post_json(f"{API}/events/v1/events", {"title": "Old title", "start_date": "2031-05-01"},
                                  headers=admin).json["id"]
    page = assert_page(site.app.get(f"/admin/events/{event_id}/edit"), 200, "Old title")
    post(site, f"/admin/events/{event_id}/edit", {"title": "New title", "start_time": "20:00", "categories-sent": "1",
                                                  "status": "publish", "featured": "false"}, page=page)
    event = site.app.get(f"{API}/events/v1/events/{event_id}").json
    assert (event["title"], event["start_date"], event["start_time"]) == ("New title", "2031-05-01", "20:00")
    post(site, f"/admin/events/{event_id}/trash", {}, page=page)
    assert site.app.get(f"{API}/events/v1/events/{event_id}", headers=admin).json["status"] == "trash"
    assert_page(site.app.get(f"/admin/events/{event_id}/edit", status=404), 404)


def test_ticket_types_are_added_on_the_event_page_and_sold_through_rest(site):
    admin = site.headers_for("administrator")
    event_id = site.app.post_json(f"{API}/events/v1/events", {"title": "Gala", "start_date": "2031-05-01",
                                                             "status": "publish"}, headers=admin).json["id"]
    page = site.app.get(f"/admin/events/{event_id}")
    post(site, f"/admin/events/{event_id}/tickets", {"name": "Standard", "price": "25.00", "capacity": "2",
                                                     "sales_start": "", "sales_end": ""}, page=page)
    post(site, f"/admin/events/{event_id}/tickets", {"name": "VIP", "price": "90", "capacity": "0",
                                                     "sales_start": "2020-01-01T09:00", "sales_end": "2030-12-31T23:00"},
         page=page)
    page = assert_page(site.app.get(f"/admin/events/{event_id}"), 200, "Standard")
    assert "VIP" in page.text
    products = {p["name"]: p for p in site.app.get(f"{API}/store/v1/products", headers=admin).json}
    assert products["Standard"]["meta"] == {"event_id": event_id, "ticket_capacity": 2, "ticket_sales_start": None,
                                           "ticket_sales_end": None}
    assert products["VIP"]["meta"]["ticket_sales_end"] == "2030-12-31T23:00:00+00:00"  # the site's zone: UTC
    standard = products["Standard"]["id"]
    order = {"status": "processing", "billing": {"first_name": "Ann", "email": "ann@example.com"},
             "line_items": [{"product_id": standard, "quantity": 2}]}
    site.app.post_json(f"{API}/store/v1/orders", order, headers=admin, status=201)
    refused = site.app.post_json(f"{API}/store/v1/orders", {**order, "line_items": [{"product_id": standard,
                                                                                     "quantity": 1}]},
                                 headers=admin, status=400).json
    assert refused["data"]["params"] == {"line_items.0.quantity": "Standard is sold out"}
    tickets = site.app.get(f"{API}/events/v1/attendees?event={event_id}", headers=admin).json
    assert len(tickets) == 2


def test_a_refused_ticket_type_names_its_fields_and_makes_nothing(site):
    admin = site.headers_for("administrator")
    event_id = site.app.post_json(f"{API}/events/v1/events", {"title": "Gala", "start_date": "2031-05-01"},
                                  headers=admin).json["id"]
    res = post(site, f"/admin/events/{event_id}/tickets", {"name": "", "price": "-3", "capacity": "lots",
                                                           "sales_start": "2031-01-02T10:00",
                                                           "sales_end": "2031-01-01T10:00"},
               page=site.app.get(f"/admin/events/{event_id}"), status=400)
    assert_page(res, 400, "The ticket type was not added")
    for field in ("name", "price", "capacity"):
        assert f'id="error-ticket-{field}"' in res.text
    res = post(site, f"/admin/events/{event_id}/tickets", {"name": "Late", "price": "5", "capacity": "1",
                                                           "sales_start": "2031-01-02T10:00",
                                                           "sales_end": "2031-01-01T10:00"},
               page=site.app.get(f"/admin/events/{event_id}"), status=400)
    assert 'id="error-ticket-sales_end"' in res.text and "the end of sales must be after" in res.text
    assert site.app.get(f"{API}/store/v1/products", headers=admin).json == []


def test_a_ticket_type_is_changed_and_removed_only_while_unsold(site):
    admin = site.headers_for("administrator")
    event_id = site.app.post_json(f"{API}/events/v1/events", {"title": "Gala", "start_date": "2031-05-01"},
                                  headers=admin).json["id"]
    page = site.app.get(f"/admin/events/{event_id}")
    post(site, f"/admin/events/{event_id}/tickets", {"name": "Seat", "price": "10", "capacity": "5"}, page=page)
    seat = site.app.get(f"{API}/store/v1/products", headers=admin).json[0]
    edit = assert_page(site.app.get(f"/admin/events/{event_id}/tickets/{seat['id']}"), 200, "Seat")
    post(site, f"/admin/events/{event_id}/tickets/{seat['id']}", {"name": "Seat", "price": "12.50", "capacity": "3",
                                                                  "sales_start": "", "sales_end": ""}, page=edit)
    seat = site.app.get(f"{API}/store/v1/products/{seat['id']}").json
    assert (Decimal(str(seat["regular_price"])), seat["meta"]["ticket_capacity"]) == (Decimal("12.50"), 3)
    site.app.post_json(f"{API}/store/v1/orders", {"status": "pending", "billing": {"email": "a@example.com"},
                                                  "line_items": [{"product_id": seat["id"], "quantity": 1}]},
                       headers=admin, status=201)
    res = post(site, f"/admin/events/{event_id}/tickets/{seat['id']}/delete", {}, page=edit, status=409)
    assert_page(res, 409, "Places of this ticket type are taken")
    site.app.get(f"{API}/store/v1/products/{seat['id']}", status=200)


def test_venues_and_organizers_are_listed_made_edited_and_trashed(site):
    page = assert_page(site.app.get("/admin/venues"), 200, "No venue yet")
    post(site, "/admin/venues/new", {"name": "Hall A", "city": "Graz", "capacity": "120", "email": ""}, page=page)
    res = post(site, "/admin/venues/new", {"name": "Bad", "capacity": "-1", "email": "not-an-address",
                                           "website": "ftp://x"}, page=page, status=400)
    for field in ("capacity", "email", "website"):
        assert f'id="error-{field}"' in res.text
    venues = site.app.get(f"{API}/events/v1/venues").json
    assert [(v["name"], v["city"], v["capacity"]) for v in venues] == [("Hall A", "Graz", 120)]
    venue_id = venues[0]["id"]
    listing = assert_page(site.app.get("/admin/venues"), 200, "Hall A")
    assert "Graz" in listing.text
    edit = site.app.get(f"/admin/venues/{venue_id}")
    post(site, f"/admin/venues/{venue_id}", {"name": "Hall B", "city": "Linz"}, page=edit)
    assert site.app.get(f"{API}/events/v1/venues/{venue_id}").json["city"] == "Linz"
    post(site, f"/admin/venues/{venue_id}/trash", {}, page=edit)
    assert site.app.get(f"{API}/events/v1/venues").json == []
    post(site, "/admin/organizers/new", {"name": "Org", "email": "org@example.com"},
         page=site.app.get("/admin/organizers/new"))
    assert [o["email"] for o in site.app.get(f"{API}/events/v1/organizers").json] == ["org@example.com"]


def test_a_customer_cannot_reach_the_forms(make_site):
    site = make_site(**{"storeplatform.plugins": "events"})
    login(site, "buyer", "customer")
    for path in ("/admin/events/new", "/admin/venues", "/admin/organizers/new"):
        assert_page(site.app.get(path, status=403), 403)
