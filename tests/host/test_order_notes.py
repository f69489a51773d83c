"""store/v1 order notes (#40): an order's history written as things happen (status changes, with
who and when) and what people write, in WooCommerce's shape: list, create, read, delete; the
orders' capability; one error body for every bad input."""
from datetime import datetime, timedelta

import pytest
from sqlalchemy import insert, select

from storeplatform.api import OrderItem, Product, add_order_note, create_order
from storeplatform.api.advanced import set_order_status
from storeplatform.testing import assert_error

O = "/api/store/v1/orders"
NOTE_FIELDS = {"id", "author", "date_created", "date_created_gmt", "note", "customer_note", "added_by_user", "_links"}


@pytest.fixture
def shop(make_site):
    site = make_site()
    site.h = site.headers_for("shop_manager")  # user "shop_manager", display name "Shop_Manager"
    with site.session() as s:
        s.execute(insert(Product), [{"id": 1, "name": "Mug", "regular_price": "12.5", "meta": {}}])
    return site


def order(site, status="pending"):
    return site.app.post_json(O, {"line_items": [{"product_id": 1, "quantity": 2}], "status": status},
                              headers=site.h, status=201).json["id"]


def notes(site, order_id, **params):
    return site.app.get(f"{O}/{order_id}/notes", params=params, headers=site.h).json


def test_every_status_change_is_a_note_with_who_and_when(shop):
    order_id = order(shop, status="processing")  # made paid: a change from pending
    shop.app.put_json(f"{O}/{order_id}", {"status": "completed"}, headers=shop.headers_for("administrator"))
    shop.app.put_json(f"{O}/{order_id}", {"status": "completed"}, headers=shop.h)  # no change, no note
    with shop.session() as s:  # outside any request (a task, the CLI): the system
        from storeplatform.api import Order

        set_order_status(s, s.get(Order, order_id), "on-hold")
    listed = notes(shop, order_id)
    assert [(n["note"], n["author"], n["added_by_user"], n["customer_note"]) for n in listed] == [
        ("Order status changed from Completed to On hold.", "system", False, False),
        ("Order status changed from Processing to Completed.", "Administrator", False, False),
        ("Order status changed from Pending payment to Processing.", "Shop_Manager", False, False)]
    assert all(set(n) == NOTE_FIELDS for n in listed)
    # An order made pending has changed nothing yet.
    assert notes(shop, order(shop)) == []


def test_dates_are_the_sites_and_utc(shop):
    shop.set_option("site.timezone", "Asia/Kolkata")  # UTC+05:30, no summer time
    order_id = order(shop, status="processing")
    (note,) = notes(shop, order_id)
    local = datetime.fromisoformat(note["date_created"])
    gmt = datetime.fromisoformat(note["date_created_gmt"])
    assert local - gmt == timedelta(hours=5, minutes=30)
    assert len(note["date_created"]) == 19 and "+" not in note["date_created"]  # as WooCommerce writes them


def test_create_read_list_and_delete_a_note(shop):
    order_id = order(shop)
    made = shop.app.post_json(f"{O}/{order_id}/notes", {"note": "  Called the customer.  ", "added_by_user": True},
                              headers=shop.h, status=201)
    note = made.json
    assert made.headers["Location"] == f"http://localhost{O}/{order_id}/notes/{note['id']}"
    assert (note["note"], note["author"], note["customer_note"], note["added_by_user"]) == \
        ("Called the customer.", "Shop_Manager", False, True)
    assert note["_links"]["up"] == [{"href": f"http://localhost{O}/{order_id}"}]
    # WooCommerce's added_by_user false (its default): the system's note.
    system = shop.app.post_json(f"{O}/{order_id}/notes", {"note": "Shipped.", "customer_note": True},
                                headers=shop.h, status=201).json
    assert (system["author"], system["customer_note"], system["added_by_user"]) == ("system", True, False)
    assert shop.app.get(f"{O}/{order_id}/notes/{note['id']}", headers=shop.h).json == note
    assert [n["id"] for n in notes(shop, order_id)] == [system["id"], note["id"]]  # newest first
    assert [n["id"] for n in notes(shop, order_id, type="customer")] == [system["id"]]
    assert [n["id"] for n in notes(shop, order_id, type="internal")] == [note["id"]]
    page = shop.app.get(f"{O}/{order_id}/notes", params={"per_page": 1, "page": 2}, headers=shop.h)
    assert page.headers["X-Total"] == "2" and [n["id"] for n in page.json] == [note["id"]]
    deleted = shop.app.delete(f"{O}/{order_id}/notes/{note['id']}", headers=shop.h).json
    assert deleted == {"deleted": True, "previous": note}
    assert_error(shop.app.get(f"{O}/{order_id}/notes/{note['id']}", headers=shop.h, status=404), 404,
                 "rest_order_note_invalid_id")
    assert_error(shop.app.delete(f"{O}/{order_id}/notes/{note['id']}", headers=shop.h, status=404), 404,
                 "rest_order_note_invalid_id")


def test_a_note_belongs_to_its_order(shop):
    first, second = order(shop), order(shop)
    note = shop.app.post_json(f"{O}/{first}/notes", {"note": "Mine."}, headers=shop.h, status=201).json
    for method in ("get", "delete"):
        res = getattr(shop.app, method)(f"{O}/{second}/notes/{note['id']}", headers=shop.h, status=404)
        assert_error(res, 404, "rest_order_note_invalid_id")
    assert notes(shop, second) == [] and len(notes(shop, first)) == 1


@pytest.mark.parametrize("body,field", [
    ({"note": ""}, "note"), ({"note": " \n\t "}, "note"), ({"note": "x" * 5001}, "note"), ({}, "note"),
    ({"note": 12}, "note"), ({"note": ["a"]}, "note"), ({"note": "ok", "customer_note": "maybe"}, "customer_note"),
    ({"note": "ok", "added_by_user": 2}, "added_by_user")])
def test_bad_notes_are_refused_and_nothing_is_written(shop, body, field):
    order_id = order(shop)
    res = shop.app.post_json(f"{O}/{order_id}/notes", body, headers=shop.h, status=400)
    assert field in assert_error(res, 400, "rest_invalid_param")["data"]["params"]
    assert notes(shop, order_id) == []


def test_the_longest_note_is_kept_whole(shop):
    order_id = order(shop)
    text = "é" * 5000
    assert shop.app.post_json(f"{O}/{order_id}/notes", {"note": text}, headers=shop.h, status=201).json["note"] == text


def test_a_missing_order_is_the_orders_404(shop):
    for path in (f"{O}/999/notes", f"{O}/999/notes/1", f"{O}/{'9' * 30}/notes"):
        assert_error(shop.app.get(path, headers=shop.h, status=404), 404, "rest_order_invalid_id")
    res = shop.app.post_json(f"{O}/999/notes", {"note": "Lost."}, headers=shop.h, status=404)
    assert_error(res, 404, "rest_order_invalid_id")
    assert_error(shop.app.get(f"{O}/1/notes", params={"type": "all"}, headers=shop.h, status=400), 400,
                 "rest_invalid_param", params={"type": '"all" is not one of any, customer, internal'})


def test_notes_need_the_orders_capability(shop):
    order_id = order(shop)
    assert_error(shop.app.get(f"{O}/{order_id}/notes", status=401), 401, "rest_not_logged_in")
    for role in ("customer", "editor"):
        res = shop.app.post_json(f"{O}/{order_id}/notes", {"note": "Hi"}, headers=shop.headers_for(role), status=403)
        assert_error(res, 403, "rest_forbidden")
        assert_error(shop.app.get(f"{O}/{order_id}/notes", headers=shop.headers_for(role), status=403), 403,
                     "rest_forbidden")
    assert shop.app.get(f"{O}/{order_id}/notes", headers=shop.headers_for("administrator")).json == []


def test_plugins_add_notes_through_the_api_by_order_or_id(shop):
    order_id = order(shop)
    with shop.session() as s:
        from storeplatform.api import Order

        add_order_note(s, s.get(Order, order_id), "By the order.")
        add_order_note(s, order_id, "By its id, for the customer.", customer_note=True)
        with pytest.raises(Exception) as refused:
            add_order_note(s, order_id, "   ")
        assert refused.value.params == {"note": "must not be empty"}
    assert [(n["note"], n["author"], n["customer_note"]) for n in notes(shop, order_id)] == [
        ("By its id, for the customer.", "system", True), ("By the order.", "system", False)]


def test_notes_go_with_their_order(shop):
    order_id = order(shop, status="processing")
    shop.app.delete(f"{O}/{order_id}", headers=shop.h)
    from storeplatform.components.shop.models import OrderNote

    with shop.session() as s:
        assert s.execute(select(OrderNote)).all() == []
        assert s.execute(select(OrderItem)).all() == []


def test_the_routes_are_in_the_openapi_document(shop):
    paths = shop.app.get("/api/openapi.json", headers=shop.h).json["paths"]
    assert set(paths["/store/v1/orders/{id}/notes"]) == {"get", "post"}
    assert set(paths["/store/v1/orders/{id}/notes/{note_id}"]) == {"get", "delete"}
    body = paths["/store/v1/orders/{id}/notes"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body["properties"]["note"] == {"type": "string", "minLength": 1, "maxLength": 5000,
                                          "description": "The note's text."}
    assert body["required"] == ["note"]
