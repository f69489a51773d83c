"""Store core: products, orders, settings."""
import json
import time
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest

from storeplatform.api import Product
from storeplatform.testing import assert_error, count_queries

P = "/api/store/v1/products"
O = "/api/store/v1/orders"


@pytest.fixture
def shop(make_site):
    site = make_site(**{"storeplatform.plugins": "thirdparty"})
    site.h = site.headers_for("shop_manager")
    return site


def product(site, **body):
    body.setdefault("name", "Thing")
    return site.app.post_json(P, body, headers=site.h, status=201).json


def test_meta_keeps_integers_beyond_64_bits_exactly(shop):
    """Free-form meta holds any JSON number; the answer writes its digits (found by the
    property-based run: the answer was a 500)."""
    meta = {"big": 612919864012304900197372133376, "list": [-(10**25), 2**64, 1.5, {"n": 2**63}]}
    created = shop.app.post(P, json.dumps({"name": "Wide", "meta": meta}),
                            headers={**shop.h, "Content-Type": "application/json"}, status=201)
    assert b'"big":612919864012304900197372133376' in created.body
    assert json.loads(created.body)["meta"] == meta
    read = shop.app.get(f"{P}/{created.json['id']}", headers=shop.h)
    assert json.loads(read.body)["meta"] == meta


def test_product_crud_and_partial_update(shop):
    p = product(shop, name="Chair", sku="CH-1", regular_price="49.90", meta={"color": "red"})
    assert p["regular_price"] == 49.9 and p["price"] == 49.9 and p["meta"] == {"color": "red"}
    assert p["price_formatted"] == "$49.90"
    updated = shop.app.put_json(f"{P}/{p['id']}", {"sale_price": "39.90"}, headers=shop.h).json
    assert updated["name"] == "Chair" and updated["sku"] == "CH-1" and updated["price"] == 39.9
    assert updated["on_sale"] is True
    deleted = shop.app.delete(f"{P}/{p['id']}", headers=shop.h).json
    assert deleted["deleted"] is True and deleted["previous"]["name"] == "Chair"
    assert_error(shop.app.get(f"{P}/{p['id']}", status=404), 404, "rest_product_invalid_id")


def test_sale_window(shop):
    p = product(shop, regular_price="10", sale_price="8", sale_from="2099-01-01T00:00:00Z")
    assert p["price"] == 10 and p["on_sale"] is False
    p = product(shop, regular_price="10", sale_price="8", sale_to="2000-01-01T00:00:00+00:00")
    assert p["price"] == 10
    p = product(shop, regular_price="10", sale_price="8", sale_from="2000-01-01T00:00:00")
    assert p["price"] == 8


def test_a_kept_product_list_opens_and_closes_sales_on_time(shop):
    """A list page is kept per process; a sale window that opens or closes while it is kept
    shows at once, without any write."""
    start = datetime.now(timezone.utc) + timedelta(seconds=3)
    end = start + timedelta(seconds=2)
    p = product(shop, regular_price="10", sale_price="8", sale_from=start.isoformat(), sale_to=end.isoformat())
    first = shop.app.get(P).json
    assert [(x["id"], x["price"], x["on_sale"]) for x in first] == [(p["id"], 10, False)]
    assert shop.app.get(P).json == first  # kept
    assert datetime.now(timezone.utc) < start, "the machine was too slow for this test's sale window"
    time.sleep(max(0.0, (start - datetime.now(timezone.utc)).total_seconds()) + 0.05)
    assert [(x["price"], x["on_sale"]) for x in shop.app.get(P).json] == [(8, True)]
    assert datetime.now(timezone.utc) < end, "the machine was too slow for this test's sale window"
    time.sleep(max(0.0, (end - datetime.now(timezone.utc)).total_seconds()) + 0.05)
    assert [(x["price"], x["on_sale"]) for x in shop.app.get(P).json] == [(10, False)]


def test_a_kept_product_list_follows_changes_made_anywhere(make_site):
    one, other = make_site(), make_site()
    admin = one.headers_for("administrator")
    made = one.app.post_json(P, {"name": "Lamp", "regular_price": "20"}, headers=admin, status=201).json
    assert [(x["name"], x["price_formatted"]) for x in one.app.get(P).json] == [("Lamp", "$20.00")]
    with count_queries(one.engine) as n:
        one.app.get(P)
    assert n() == 1  # the site's state: the page is kept
    with other.session() as s:  # another process
        s.get(Product, made["id"]).name = "Desk lamp"
    assert [x["name"] for x in one.app.get(P).json] == ["Desk lamp"]
    other.set_option("store.currency_symbol", "EUR ")
    other.set_option("store.currency_position", "right")
    assert one.app.get(P).json[0]["price_formatted"] == "20.00EUR "
    assert one.app.get(P, headers=admin).headers["X-Total"] == "1"
    # One product is kept the same way.
    assert one.app.get(f"{P}/{made['id']}").json["name"] == "Desk lamp"
    with count_queries(one.engine) as n:
        one.app.get(f"{P}/{made['id']}")
    assert n() == 1
    with other.session() as s:
        s.get(Product, made["id"]).status = "draft"
    assert_error(one.app.get(f"{P}/{made['id']}", status=404), 404, "rest_product_invalid_id")
    assert one.app.get(f"{P}/{made['id']}", headers=admin).json["status"] == "draft"


def test_a_kept_product_goes_on_sale_on_time(shop):
    start = datetime.now(timezone.utc) + timedelta(seconds=2)
    p = product(shop, regular_price="10", sale_price="8", sale_from=start.isoformat())
    assert shop.app.get(f"{P}/{p['id']}").json["on_sale"] is False
    assert datetime.now(timezone.utc) < start, "the machine was too slow for this test's sale window"
    time.sleep(max(0.0, (start - datetime.now(timezone.utc)).total_seconds()) + 0.05)
    assert [shop.app.get(f"{P}/{p['id']}").json[k] for k in ("price", "on_sale")] == [8, True]


def test_drafts_are_hidden_from_the_public(shop):
    p = product(shop, status="draft")
    assert_error(shop.app.get(f"{P}/{p['id']}", status=404), 404, "rest_product_invalid_id")
    assert shop.app.get(P).json == []
    assert shop.app.get(f"{P}/{p['id']}", headers=shop.h).json["status"] == "draft"
    assert [x["id"] for x in shop.app.get(P, headers=shop.h).json] == [p["id"]]


def test_product_writes_need_manage_shop(shop):
    assert_error(shop.app.post_json(P, {"name": "X"}, status=401), 401, "rest_not_logged_in")
    assert_error(shop.app.post_json(P, {"name": "X"}, headers=shop.headers_for("editor"), status=403), 403,
                 "rest_forbidden")


def test_variations(shop):
    parent = product(shop, name="Shirt", type="variable")
    var = product(shop, name="Shirt L", type="variation", parent_id=parent["id"], regular_price="20")
    assert var["parent_id"] == parent["id"]
    simple = product(shop, name="Simple")
    body = assert_error(shop.app.post_json(P, {"name": "V", "type": "variation", "parent_id": simple["id"]},
                                           headers=shop.h, status=400), 400, "rest_invalid_param")
    assert "parent_id" in body["data"]["params"]
    assert [x["id"] for x in shop.app.get(f"{P}?parent={parent['id']}").json] == [var["id"]]


def test_product_rules_across_fields_and_rows_are_reported_with_every_other_bad_field(shop):
    simple = product(shop, name="Simple", sku="S-1")
    variable = product(shop, name="Shirt", type="variable")
    body = {"name": "", "type": "variation", "parent_id": simple["id"], "sku": "S-1", "regular_price": "-1"}
    res = shop.app.post_json(P, body, headers=shop.h, status=400)
    params = assert_error(res, 400, "rest_invalid_param")["data"]["params"]
    assert set(params) == {"name", "parent_id", "sku", "regular_price"}
    # A partial update: the stored type counts, and the rule is named on the field that was sent.
    res = shop.app.put_json(f"{P}/{simple['id']}", {"parent_id": variable["id"], "sale_price": "x"}, headers=shop.h,
                            status=400)
    params = assert_error(res, 400, "rest_invalid_param")["data"]["params"]
    assert set(params) == {"parent_id", "sale_price"} and params["parent_id"] == "only a variation has a parent"
    res = shop.app.put_json(f"{P}/{simple['id']}", {"type": "variation", "status": "gone"}, headers=shop.h, status=400)
    assert set(res.json["data"]["params"]) == {"type", "status"}
    made = shop.app.put_json(f"{P}/{simple['id']}", {"type": "variation", "parent_id": variable["id"], "sku": "S-1"},
                             headers=shop.h, status=200).json
    assert made["type"] == "variation" and made["sku"] == "S-1"
    assert [p["id"] for p in shop.app.get(P, headers=shop.h).json] == [variable["id"], simple["id"]]


def test_duplicate_sku_is_refused(shop):
    product(shop, sku="A-1")
    body = assert_error(shop.app.post_json(P, {"name": "B", "sku": "A-1"}, headers=shop.h, status=400), 400,
                        "rest_invalid_param")
    assert list(body["data"]["params"]) == ["sku"]


def test_negative_and_non_numeric_prices_are_refused(shop):
    body = assert_error(shop.app.post_json(P, {"name": "B", "regular_price": "-1", "sale_price": "Infinity"},
                                           headers=shop.h, status=400), 400, "rest_invalid_param")
    assert set(body["data"]["params"]) == {"regular_price", "sale_price"}


def test_order_totals_are_decimal_and_status_change_fires_once(shop):
    a = product(shop, regular_price="0.10")
    b = product(shop, regular_price="0.20", sale_price="0.15")
    order = shop.app.post_json(O, {
        "line_items": [{"product_id": a["id"], "quantity": 3}, {"product_id": b["id"], "quantity": 1}],
        "billing": {"first_name": "Ωμέγα", "last_name": "Дмитрий", "email": "o@example.com"},
    }, headers=shop.h, status=201)
    assert order.headers["Location"].endswith(f"{O}/{order.json['id']}")
    o = order.json
    assert o["status"] == "pending" and o["total"] == 0.45 and o["currency"] == "USD"
    assert [li["total"] for li in o["line_items"]] == [0.3, 0.15]
    assert o["billing"]["first_name"] == "Ωμέγα" and o["billing"]["company"] == ""
    assert o["order_key"].startswith("order_") and len(o["order_key"]) > 20
    with shop.session() as s:
        from storeplatform.components.shop.models import Order

        assert s.get(Order, o["id"]).total == Decimal("0.4500")
    shop.app.put_json(f"{O}/{o['id']}", {"status": "processing"}, headers=shop.h)
    shop.app.put_json(f"{O}/{o['id']}", {"status": "processing"}, headers=shop.h)
    shop.app.put_json(f"{O}/{o['id']}", {"status": "completed"}, headers=shop.h)
    res = shop.app.get("/api/store/v1/settings/thirdparty", headers=shop.headers_for("administrator"))
    assert res.json[0]["value"] == f"{o['id']}:pending->processing {o['id']}:processing->completed"


def test_order_created_with_status_fires_change(shop):
    a = product(shop, regular_price="1")
    o = shop.app.post_json(O, {"status": "completed", "line_items": [{"product_id": a["id"]}]},
                           headers=shop.h).json
    res = shop.app.get("/api/store/v1/settings/thirdparty", headers=shop.headers_for("administrator"))
    assert res.json[0]["value"] == f"{o['id']}:pending->completed"


def test_order_validation(shop):
    a = product(shop, regular_price="1")
    cases = [
        ({"line_items": []}, {"line_items"}),
        ({"line_items": [{"product_id": 999999}]}, {"line_items.0.product_id"}),
        ({"line_items": [{"product_id": a["id"], "quantity": 0}]}, {"line_items.0.quantity"}),
        ({"status": "shipped", "line_items": [{"product_id": a["id"]}]}, {"status"}),
        ({"currency": "euro", "line_items": [{"product_id": a["id"]}]}, {"currency"}),
    ]
    for body, params in cases:
        res = shop.app.post_json(O, body, headers=shop.h, status=400)
        assert set(assert_error(res, 400, "rest_invalid_param")["data"]["params"]) == params, body
    assert shop.app.get(O, headers=shop.h).json == []


def test_orders_list_filter_and_delete(shop):
    a = product(shop, regular_price="1")
    ids = [shop.app.post_json(O, {"status": s, "line_items": [{"product_id": a["id"]}]}, headers=shop.h).json["id"]
           for s in ("pending", "completed", "completed")]
    assert [o["id"] for o in shop.app.get(f"{O}?status=completed", headers=shop.h).json] == ids[:0:-1]
    assert shop.app.delete(f"{O}/{ids[0]}", headers=shop.h).json["deleted"] is True
    assert_error(shop.app.get(f"{O}/{ids[0]}", headers=shop.h, status=404), 404, "rest_order_invalid_id")


def test_kept_orders_follow_changes_made_anywhere(make_site):
    one, other = make_site(), make_site()
    manager = one.h = one.headers_for("shop_manager")
    lamp = product(one, regular_price="20")
    made = one.app.post_json(O, {"status": "processing", "line_items": [{"product_id": lamp["id"], "quantity": 2}]},
                             headers=manager, status=201).json
    assert [(o["id"], o["total"]) for o in one.app.get(O, headers=manager).json] == [(made["id"], 40)]
    assert one.app.get(f"{O}/{made['id']}", headers=manager).json == made
    for path in (O, f"{O}/{made['id']}"):
        with count_queries(one.engine) as n:
            one.app.get(path, headers=manager)
        assert n() == 1, path  # the site's state: the page and the order are kept
    with other.session() as s:  # another process
        from storeplatform.components.shop.models import Order

        s.get(Order, made["id"]).status = "completed"
    assert one.app.get(f"{O}?status=processing", headers=manager).json == []
    assert [o["status"] for o in one.app.get(O, headers=manager).json] == ["completed"]
    assert one.app.get(f"{O}/{made['id']}", headers=manager).json["status"] == "completed"
    second = other.app.post_json(O, {"line_items": [{"product_id": lamp["id"]}]},
                                 headers=manager, status=201).json
    listed = one.app.get(O, headers=manager)
    assert [o["id"] for o in listed.json] == [second["id"], made["id"]] and listed.headers["X-Total"] == "2"
    other.app.delete(f"{O}/{second['id']}", headers=manager)
    assert_error(one.app.get(f"{O}/{second['id']}", headers=manager, status=404), 404, "rest_order_invalid_id")
    assert one.app.get(O, headers=manager).headers["X-Total"] == "1"
    assert_error(one.app.get(O, status=401), 401, "rest_not_logged_in")


def test_settings_by_section(shop):
    admin = shop.headers_for("administrator")
    sections = shop.app.get("/api/store/v1/settings", headers=admin).json["sections"]
    assert {"general", "store", "thirdparty"} <= set(sections)
    tz = next(o for o in sections["general"] if o["id"] == "site.timezone")
    assert tz["value"] == "UTC" and tz["type"] == "timezone"
    res = shop.app.put_json("/api/store/v1/settings/general", {"site.timezone": "Europe/Paris"}, headers=admin)
    assert next(o for o in res.json if o["id"] == "site.timezone")["value"] == "Europe/Paris"
    assert_error(shop.app.get("/api/store/v1/settings", headers=shop.h, status=403), 403, "rest_forbidden")
    assert_error(shop.app.get("/api/store/v1/settings/nope", headers=admin, status=404), 404,
                 "rest_settings_invalid_section")


def test_settings_put_is_all_or_nothing(shop):
    admin = shop.headers_for("administrator")
    res = shop.app.put_json("/api/store/v1/settings/store", {"store.currency": "EUR", "store.decimals": "ten"},
                            headers=admin, status=400)
    assert list(assert_error(res, 400, "rest_invalid_param")["data"]["params"]) == ["store.decimals"]
    values = {o["id"]: o["value"] for o in shop.app.get("/api/store/v1/settings/store", headers=admin).json}
    assert values["store.currency"] == "USD"
    res = shop.app.put_json("/api/store/v1/settings/store", {"site.title": "x"}, headers=admin, status=400)
    assert list(assert_error(res, 400, "rest_invalid_param")["data"]["params"]) == ["site.title"]
    # A key of another section and a bad value come back together.
    res = shop.app.put_json("/api/store/v1/settings/store", {"site.title": "x", "store.decimals": "ten",
                                                              "store.currency": "EUR"}, headers=admin, status=400)
    assert set(assert_error(res, 400, "rest_invalid_param")["data"]["params"]) == {"site.title", "store.decimals"}
    assert {o["id"]: o["value"] for o in shop.app.get("/api/store/v1/settings/store", headers=admin).json} == values


def test_currency_options_format_prices(shop):
    admin = shop.headers_for("administrator")
    shop.app.put_json("/api/store/v1/settings/store", {
        "store.currency": "EUR", "store.currency_position": "right_space", "store.thousand_separator": ".",
        "store.decimal_separator": ","}, headers=admin)
    p = product(shop, regular_price="1234567.895")
    assert p["price_formatted"] == "1.234.567,90 €"


def test_users_me_needs_authentication(site):
    assert_error(site.app.get("/api/store/v1/users/me", status=401), 401, "rest_not_logged_in")
    me = site.app.get("/api/store/v1/users/me", headers=site.headers_for("subscriber")).json
    assert me["role"] == "subscriber" and me["capabilities"] == ["read"]


def test_order_created_action_fires_once_in_the_creating_transaction(make_site):
    site = make_site(**{"storeplatform.plugins": "thirdparty_tasks"})
    h = site.headers_for("shop_manager")
    a = site.app.post_json(P, {"name": "A", "regular_price": "2"}, headers=h).json
    o = site.app.post_json(O, {"status": "processing", "line_items": [{"product_id": a["id"]}]}, headers=h).json
    site.app.put_json(f"{O}/{o['id']}", {"status": "completed"}, headers=h)
    site.app.post_json(O, {"line_items": [{"product_id": 999999}]}, headers=h, status=400)
    from sp_thirdparty.tasks import recorded

    with site.session() as s:
        assert recorded(s) == [f"order_created:{o['id']}:processing"]


def test_an_option_set_for_the_first_time_by_two_transactions_at_once(shop):
    """The second waits for the first and updates the row: no read-then-insert race (409)."""
    import threading

    from sqlalchemy.exc import SQLAlchemyError

    from storeplatform.api import set_option, site_options
    from storeplatform.api.advanced import site_transaction

    registry = shop.registry
    second = {}
    with site_transaction(registry) as first:
        set_option(first, "store.currency", "EUR")  # inserted, not committed yet

        def other():
            try:
                with site_transaction(registry) as session:
                    set_option(session, "store.currency", "GBP")
                second["done"] = True
            except SQLAlchemyError as exc:  # reported below, with its type
                second["error"] = repr(exc)

        thread = threading.Thread(target=other)
        thread.start()
        thread.join(0.5)  # it waits for the first transaction's row
    thread.join(30)
    assert second == {"done": True}
    with site_transaction(registry) as session:
        assert site_options(session)["store.currency"] == "GBP"


@pytest.mark.parametrize("stored, shown", [("32.4000", "32.40"), ("12.3450", "12.345"), ("0.0050", "0.005"), ("0", "0.00"),
                                           ("5", "5.00"), ("-3.1000", "-3.10"), ("1E+2", "100.00"), (None, None)])
def test_an_amount_is_shown_with_the_digits_stored(stored, shown):
    from decimal import Decimal

    from storeplatform.components.shop.money import amount_text

    assert amount_text(None if stored is None else Decimal(stored)) == shown
