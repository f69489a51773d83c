"""store/v1 order refunds (#40): whole or per line, with an amount and a reason, in WooCommerce's
shape; money as exact decimal text; every bad input refused with the error body and nothing
written; ``storeplatform_order_refunded`` in the same transaction; an order refunded in full
moves to ``refunded`` through the usual status change."""
import json
import threading
from decimal import Decimal

import pytest
from sqlalchemy import insert, select

from storeplatform.api import Order, Product, User, hookimpl
from storeplatform.components.shop.models import OrderNote, Refund, RefundLine
from storeplatform.components.shop.refunds import refund_order
from storeplatform.core.errors import InvalidParams, RestError
from storeplatform.testing import assert_error

O = "/api/store/v1/orders"
REFUND_FIELDS = {"id", "date_created", "date_created_gmt", "amount", "reason", "refunded_by", "line_items", "_links"}


class Recorder:
    def __init__(self):
        self.refunds, self.changes = [], []

    @hookimpl
    def storeplatform_order_refunded(self, order, refund):
        self.refunds.append((order.id, refund.id, refund.amount,
                             [(line.order_item_id, line.quantity, line.refund_total) for line in refund.line_items]))

    @hookimpl
    def storeplatform_order_status_changed(self, order, old_status, new_status):
        self.changes.append((order.id, old_status, new_status))


class Failing:
    @hookimpl
    def storeplatform_order_refunded(self, order, refund):
        raise RuntimeError("the payment gateway is down")


@pytest.fixture
def shop(make_site):
    recorder = Recorder()
    site = make_site(plugins=[recorder])
    site.recorder = recorder
    site.h = site.headers_for("shop_manager")
    with site.session() as s:
        s.execute(insert(Product), [{"id": 1, "name": "Ticket", "regular_price": "10", "meta": {}},
                                    {"id": 2, "name": "Mug", "regular_price": "5.25", "meta": {}}])
    return site


def order(site, status="processing", lines=((1, 3), (2, 1))):
    made = site.app.post_json(O, {"line_items": [{"product_id": p, "quantity": q} for p, q in lines], "status": status},
                              headers=site.h, status=201).json
    return made["id"], [line["id"] for line in made["line_items"]]


def post(site, order_id, body, status=201):
    return site.app.post(f"{O}/{order_id}/refunds", json.dumps(body),
                         headers={**site.h, "Content-Type": "application/json"}, status=status)


def stored(site):
    """Every refund row, line and note, and the orders' statuses: what a refused refund must leave."""
    with site.session() as s:
        return (s.execute(select(Refund.id, Refund.amount)).all(), s.execute(select(RefundLine.id)).all(),
                s.execute(select(OrderNote.id, OrderNote.note)).all(), s.execute(select(Order.id, Order.status)).all())


def test_a_refund_of_a_line_gives_back_its_units_price(shop):
    order_id, (tickets, mug) = order(shop)
    made = post(shop, order_id, {"line_items": [{"id": tickets, "quantity": 1}], "reason": "Cannot come."})
    refund = made.json
    assert made.headers["Location"] == f"http://localhost{O}/{order_id}/refunds/{refund['id']}"
    assert set(refund) == REFUND_FIELDS
    assert (refund["amount"], refund["reason"]) == ("10.00", "Cannot come.")
    assert refund["line_items"] == [{"id": refund["line_items"][0]["id"], "item_id": tickets, "name": "Ticket",
                                     "product_id": 1, "quantity": 1, "refund_total": "10.00"}]
    with shop.session() as s:
        manager = s.execute(select(User.id).where(User.login == "shop_manager")).scalar_one()
    assert refund["refunded_by"] == manager
    assert shop.app.get(f"{O}/{order_id}/refunds/{refund['id']}", headers=shop.h).json == refund
    assert shop.app.get(f"{O}/{order_id}/refunds", headers=shop.h).json == [refund]
    # Part of the order: it stays paid, and its history says what was given back, by whom.
    assert shop.app.get(f"{O}/{order_id}", headers=shop.h).json["status"] == "processing"
    history = shop.app.get(f"{O}/{order_id}/notes", headers=shop.h).json
    assert (history[0]["note"], history[0]["author"]) == ("Refunded 10.00 USD (1 × Ticket). Reason: Cannot come.",
                                                          "Shop_Manager")
    assert shop.recorder.refunds == [(order_id, refund["id"], 10, [(tickets, 1, 10)])]
    assert shop.recorder.changes == [(order_id, "pending", "processing")]


def test_refunds_until_the_whole_order_is_refunded(shop):
    order_id, (tickets, mug) = order(shop)  # 3 x 10 + 5.25 = 35.25
    first = post(shop, order_id, {"amount": "2.5", "reason": "Late."}).json  # money on the order alone
    assert (first["amount"], first["line_items"]) == ("2.50", [])
    second = post(shop, order_id, {"line_items": [{"id": tickets, "quantity": 2, "refund_total": "15"},
                                                  {"id": mug, "quantity": 1}]}).json
    assert second["amount"] == "20.25"
    assert shop.app.get(f"{O}/{order_id}", headers=shop.h).json["status"] == "processing"
    # 12.50 are left: an amount sent as a JSON number is read with the digits written.
    res = shop.app.post(f"{O}/{order_id}/refunds", '{"amount": 12.50, "line_items": [{"id": %d, "quantity": 1}]}'
                        % tickets, headers={**shop.h, "Content-Type": "application/json"}, status=201)
    assert res.json["amount"] == "12.50" and res.json["line_items"][0]["refund_total"] == "10.00"
    assert shop.app.get(f"{O}/{order_id}", headers=shop.h).json["status"] == "refunded"
    assert shop.recorder.changes[-1] == (order_id, "processing", "refunded")
    assert [r["id"] for r in shop.app.get(f"{O}/{order_id}/refunds", headers=shop.h).json] == \
        [res.json["id"], second["id"], first["id"]]
    history = [n["note"] for n in shop.app.get(f"{O}/{order_id}/notes", headers=shop.h).json]
    assert history[:2] == ["Order status changed from Processing to Refunded.", "Refunded 12.50 USD (1 × Ticket)."]
    # Nothing is left: the order is refunded, and no longer paid.
    assert_error(post(shop, order_id, {"amount": "0.01"}, status=409), 409, "rest_order_not_refundable")


@pytest.mark.parametrize("body,params", [
    ({"amount": "0"}, {"amount": "must be more than 0"}),
    ({"amount": "35.26"}, {"amount": "only 35.25 of this order is left to refund"}),
    ({}, {"amount": "give the amount to give back, or line_items"}),
    ({"amount": "1.23456"}, {"amount": "must have at most 4 decimal places"}),
    ({"amount": "9" * 30}, {"amount": "must be between 0 and 99999999999999.9999"}),
    ({"amount": 10 ** 40}, {"amount": "must be between 0 and 99999999999999.9999"}),
    ({"amount": "1e3"}, {"amount": "'1e3' is not an amount such as \"12.50\""}),
    ({"amount": "-5"}, {"amount": "'-5' is not an amount such as \"12.50\""}),
    ({"amount": "NaN"}, {"amount": "'NaN' is not an amount such as \"12.50\""}),
    ({"amount": True}, {"amount": "'True' is not an amount such as \"12.50\""}),
    ({"amount": {"v": 1}}, {"amount": "\"{'v': 1}\" is not an amount such as \"12.50\""}),
    ({"amount": "5", "reason": 3}, {"reason": "3 is not a string"}),
    ({"amount": "5", "reason": "r" * 1001}, {"reason": "Longer than maximum length 1000"}),
    ({"line_items": {"id": 1}}, {"line_items": '"{\'id\': 1}" is not iterable'}),
])
def test_bad_amounts_and_types_are_refused(shop, body, params):
    order_id, _ = order(shop)
    before = stored(shop)
    res = post(shop, order_id, body, status=400)
    assert assert_error(res, 400, "rest_invalid_param")["data"]["params"] == params
    assert stored(shop) == before


def test_bad_lines_are_named_and_nothing_is_half_written(shop):
    order_id, (tickets, mug) = order(shop)
    _, (other, _) = order(shop)
    post(shop, order_id, {"line_items": [{"id": tickets, "quantity": 2}]})
    before = stored(shop)
    cases = [
        ([{"id": tickets, "quantity": 1}, {"id": other, "quantity": 1}], {"line_items.1.id": f"{other} is not a line of this order"}),
        # Two tickets at their price: more units and more money than are left of the line.
        ([{"id": tickets, "quantity": 2}], {"line_items.0.quantity": "only 1 of this line is left to refund",
                                            "line_items.0.refund_total": "only 10.00 of this line's total is left to refund"}),
        ([{"id": mug, "quantity": 2, "refund_total": "5"}], {"line_items.0.quantity": "only 1 of this line is left to refund"}),
        ([{"id": mug, "refund_total": "5.26"}], {"line_items.0.refund_total": "only 5.25 of this line's total is left to refund"}),
        ([{"id": mug}], {"line_items.0.quantity": "give a quantity or a refund_total to give back of this line"}),
        ([{"id": mug, "quantity": 1}, {"id": mug, "refund_total": "0.01"}],
         {"line_items.1.id": f"line {mug} is named twice: give each line once"}),
        ([{"id": mug, "quantity": -1}], {"line_items.0.quantity": "-1 is less than minimum value 0"}),
        ([{"id": mug, "quantity": 1.5}], {"line_items.0.quantity": "Decimal('1.5') is not an integer"}),
        ([{"id": "x"}], {"line_items.0.id": "'x' is not an integer"}),
        ([{"quantity": 1}], {"line_items.0.id": "Required"}),
        ([{"id": 2 ** 63}], {"line_items.0.id": f"{2 ** 63!r} is out of range"}),
    ]
    for lines, params in cases:
        res = post(shop, order_id, {"line_items": lines}, status=400)
        assert assert_error(res, 400, "rest_invalid_param")["data"]["params"] == params, lines
    res = post(shop, order_id, {"amount": "10", "line_items": [{"id": mug, "quantity": 1, "refund_total": "5.25"},
                                                               {"id": tickets, "refund_total": "5"}]}, status=400)
    assert res.json["data"]["params"] == {"amount": "must be at least the lines' refund_total together (10.25)"}
    assert stored(shop) == before
    assert len(shop.recorder.refunds) == 1


@pytest.mark.parametrize("status", ["pending", "on-hold", "cancelled", "failed", "refunded"])
def test_only_a_paid_order_can_be_refunded(shop, status):
    order_id, (tickets, _) = order(shop, status=status)
    before = stored(shop)
    assert_error(post(shop, order_id, {"amount": "1"}, status=409), 409, "rest_order_not_refundable")
    assert stored(shop) == before


def test_missing_orders_and_refunds_are_404(shop):
    order_id, (tickets, _) = order(shop)
    other_id, _ = order(shop)
    refund = post(shop, order_id, {"amount": "1"}).json
    for path, code in [(f"{O}/999/refunds", "rest_order_invalid_id"), (f"{O}/999/refunds/{refund['id']}", "rest_order_invalid_id"),
                       (f"{O}/{order_id}/refunds/999", "rest_order_refund_invalid_id"),
                       (f"{O}/{other_id}/refunds/{refund['id']}", "rest_order_refund_invalid_id"),
                       (f"{O}/{'9' * 30}/refunds", "rest_order_invalid_id")]:
        assert_error(shop.app.get(path, headers=shop.h, status=404), 404, code)
    assert_error(post(shop, 999, {"amount": "1"}, status=404), 404, "rest_order_invalid_id")
    # A line of an order that does not exist is no line of it (beside every other bad field).
    res = post(shop, 999, {"line_items": [{"id": tickets, "quantity": 1}]}, status=400)
    assert res.json["data"]["params"] == {"line_items.0.id": f"{tickets} is not a line of this order"}


def test_a_refund_cannot_be_deleted(shop):
    order_id, _ = order(shop)
    refund = post(shop, order_id, {"amount": "1"}).json
    res = shop.app.delete(f"{O}/{order_id}/refunds/{refund['id']}", headers=shop.h, status=405)
    assert_error(res, 405, "rest_method_not_allowed")
    assert len(shop.app.get(f"{O}/{order_id}/refunds", headers=shop.h).json) == 1


def test_refunds_need_the_orders_capability(shop):
    order_id, _ = order(shop)
    assert_error(shop.app.get(f"{O}/{order_id}/refunds", status=401), 401, "rest_not_logged_in")
    assert_error(shop.app.post_json(f"{O}/{order_id}/refunds", {"amount": "1"}, status=401), 401, "rest_not_logged_in")
    res = shop.app.post_json(f"{O}/{order_id}/refunds", {"amount": "1"}, headers=shop.headers_for("customer"),
                             status=403)
    assert_error(res, 403, "rest_forbidden")
    assert shop.app.get(f"{O}/{order_id}/refunds", headers=shop.h).json == []


def test_money_travels_exactly_to_the_last_digit(shop):
    with shop.session() as s:
        s.execute(insert(Product), [{"id": 3, "name": "Dear", "regular_price": "999999999999.9999", "meta": {}}])
    order_id, (line,) = order(shop, lines=((3, 99),))  # 98999999999999.9901, beyond a price's limit
    part = post(shop, order_id, {"line_items": [{"id": line, "quantity": 1, "refund_total": "0.0001"}]}).json
    assert part["amount"] == "0.0001" and part["line_items"][0]["refund_total"] == "0.0001"
    rest = post(shop, order_id, {"amount": "98999999999999.99"}).json
    assert rest["amount"] == "98999999999999.99"
    assert shop.app.get(f"{O}/{order_id}", headers=shop.h).json["status"] == "refunded"


def test_a_failing_action_leaves_nothing_written(make_site):
    site = make_site(plugins=[Failing()])
    site.h = site.headers_for("shop_manager")
    with site.session() as s:
        s.execute(insert(Product), [{"id": 1, "name": "Ticket", "regular_price": "10", "meta": {}}])
    order_id, _ = order(site, lines=((1, 1),))
    before = stored(site)
    assert_error(post(site, order_id, {"amount": "10"}, status=500), 500, "rest_internal_error")
    assert stored(site) == before


def test_two_refunds_at_once_never_give_back_more_than_was_paid(shop):
    """The order's row is locked by the first: the second sees its refund once it is committed."""
    order_id, _ = order(shop)
    first_holds, results = threading.Event(), {}
    release = threading.Event()

    def refund(name, hold):
        try:
            with shop.session() as s:
                made = refund_order(s, s.get(Order, order_id), amount=shop_amount)
                if hold:
                    first_holds.set()
                    release.wait(10)
                results[name] = made.amount
        except (InvalidParams, RestError) as exc:
            results[name] = type(exc).__name__

    shop_amount = Decimal("35.25")  # all of it
    first = threading.Thread(target=refund, args=("first", True))
    first.start()
    assert first_holds.wait(10)
    second = threading.Thread(target=refund, args=("second", False))
    second.start()
    second.join(0.5)
    assert second.is_alive()  # waiting for the first's transaction
    release.set()
    first.join(10)
    second.join(10)
    assert results == {"first": shop_amount, "second": "RestError"}  # the order was refunded by then
    with shop.session() as s:
        assert s.execute(select(Refund.amount)).scalars().all() == [shop_amount]


def test_the_routes_are_in_the_openapi_document(shop):
    paths = shop.app.get("/api/openapi.json", headers=shop.h).json["paths"]
    assert set(paths["/store/v1/orders/{id}/refunds"]) == {"get", "post"}
    assert set(paths["/store/v1/orders/{id}/refunds/{refund_id}"]) == {"get"}
    body = paths["/store/v1/orders/{id}/refunds"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body["properties"]["amount"]["type"] == ["number", "string"]
    assert body["properties"]["line_items"]["items"]["properties"]["id"]["x-references"]["to"] == "order_items"
