"""An order's admin page, its history and refunds (#40): the notes newest first with who wrote
them and when (the site's time), private or for the customer; the note form; the refund form
(the whole order, or lines with units and amounts, and a reason) with a confirmation step, its
errors beside the fields, and the refunds listed. Both forms go through REST's schemas and the
shop's functions: the same rules, the same actions."""
from decimal import Decimal

import pytest
from sqlalchemy import insert, select

from storeplatform.api import Product, create_order, hookimpl
from storeplatform.components.shop.models import OrderNote, Refund

from .helpers import assert_page, login, token


class Recorder:
    def __init__(self):
        self.refunds, self.changes = [], []

    @hookimpl
    def storeplatform_order_refunded(self, order, refund):
        self.refunds.append((order.id, refund.amount, [(line.order_item_id, line.quantity) for line in refund.line_items]))

    @hookimpl
    def storeplatform_order_status_changed(self, order, old_status, new_status):
        self.changes.append((old_status, new_status))


@pytest.fixture
def shop(make_site):
    recorder = Recorder()
    site = make_site(plugins=[recorder])
    site.recorder = recorder
    login(site, "boss", role="shop_manager")  # display name "Boss"
    with site.session() as s:
        s.execute(insert(Product), [{"id": 1, "name": "Ticket", "regular_price": Decimal("10"), "meta": {}},
                                    {"id": 2, "name": "Mug", "regular_price": Decimal("5.25"), "meta": {}}])
        order = create_order(s, line_items=[{"product_id": 1, "quantity": 3}, {"product_id": 2, "quantity": 1}],
                             status="processing")
        site.order_id, site.lines = order.id, [line.id for line in order.line_items]
    return site


def page(site):
    return assert_page(site.app.get(f"/admin/orders/{site.order_id}"), 200)


def history(res):
    return [(li.select_one(".note-text").text, li.select_one(".note-author").text, li.select_one(".badge").text)
            for li in res.html.select("#order-notes li[data-note-id]")]


def stored(site):
    with site.session() as s:
        return s.execute(select(Refund.id)).all(), s.execute(select(OrderNote.id)).all()


def test_the_history_is_newest_first_with_who_and_when_in_the_sites_time(shop):
    shop.set_option("site.timezone", "Asia/Kolkata")
    first = page(shop)
    assert history(first) == [("Order status changed from Pending payment to Processing.", "system", "Private")]
    form = first.forms["status-form"]
    form["status"] = "completed"
    form.submit().follow()
    form = page(shop).forms["note-form"]
    form["note"] = "Parcel left with\nthe neighbour."
    form.set("customer_note", True, index=1)  # the checkbox after its hidden "false"
    done = assert_page(form.submit().follow(), 200, "Note added to order")
    assert history(done) == [("Parcel left with\nthe neighbour.", "Boss", "To the customer"),
                             ("Order status changed from Processing to Completed.", "Boss", "Private"),
                             ("Order status changed from Pending payment to Processing.", "system", "Private")]
    assert "(automatic)" not in done.html.select("#order-notes li")[0].text
    assert "(automatic)" in done.html.select("#order-notes li")[1].text
    # The time shown is the site's, as REST's date_created says it.
    rest = shop.app.get(f"/api/store/v1/orders/{shop.order_id}/notes", headers=shop.headers_for("administrator")).json
    shown = done.html.select("#order-notes time")[0].text
    assert shown == rest[0]["date_created"][:16].replace("T", " ") != rest[0]["date_created_gmt"][:16].replace("T", " ")
    assert rest[0]["added_by_user"] is True and rest[0]["customer_note"] is True


@pytest.mark.parametrize("text,error", [("", "must not be empty"), ("   ", "must not be empty"),
                                        ("x" * 5001, "must be at most 5000 characters long")])
def test_a_bad_note_is_refused_beside_its_field(shop, text, error):
    before = stored(shop)
    res = shop.app.post(f"/admin/orders/{shop.order_id}/notes", {"csrf_token": token(page(shop)), "note": text,
                                                                  "customer_note": "false"}, status=400)
    assert_page(res, 400, "The note was not added")
    assert res.html.select_one("#error-note").text == error
    assert res.html.select_one("#field-note").text == text  # what was typed, to correct
    assert stored(shop) == before


def test_a_refund_of_lines_is_reviewed_then_confirmed(shop):
    tickets, mug = shop.lines
    form = page(shop).forms["refund-form"]
    form["refund_mode"] = "lines"
    form[f"quantity-{tickets}"] = "2"
    form[f"quantity-{mug}"] = "1"
    form[f"refund_total-{mug}"] = "5"
    form["reason"] = "Could not come."
    review = assert_page(form.submit(), 200)
    assert review.html.select_one("#refund-review-amount").text == "$25.00"
    assert "2 × Ticket: $20.00" in review.text and "1 × Mug: $5.00" in review.text
    assert stored(shop)[0] == [] and shop.recorder.refunds == []  # nothing given back yet
    done = assert_page(review.forms["refund-confirm-form"].submit().follow(), 200,
                       f"Refunded 25.00 USD of order #{shop.order_id}.")
    assert shop.recorder.refunds == [(shop.order_id, 25, [(tickets, 2), (mug, 1)])]
    assert [td.text for td in done.html.select("#order-refunds td[data-label=Amount]")] == ["$25.00"]
    assert done.html.select_one("#order-refunds td[data-label=Reason]").text == "Could not come."
    assert done.html.select_one("#refund-left").text == "$10.25"
    assert history(done)[0] == ("Refunded 25.00 USD (2 × Ticket, 1 × Mug). Reason: Could not come.", "Boss", "Private")
    assert done.html.select_one("#order-status").text == "processing"
    # REST sees the same refund.
    rest = shop.app.get(f"/api/store/v1/orders/{shop.order_id}/refunds", headers=shop.headers_for("administrator")).json
    assert [(r["amount"], r["reason"]) for r in rest] == [("25.00", "Could not come.")]


def test_the_whole_order_is_refunded_and_becomes_refunded(shop):
    form = page(shop).forms["refund-form"]
    form["refund_mode"] = "whole"
    review = assert_page(form.submit(), 200, "the order becomes refunded")
    assert review.html.select_one("#refund-review-amount").text == "$35.25"
    done = assert_page(review.forms["refund-confirm-form"].submit().follow(), 200, "Refunded 35.25 USD")
    assert done.html.select_one("#order-status").text == "refunded"
    assert done.html.select_one("#refund-closed").text == "Everything has been refunded."
    assert "refund-form" not in done.forms
    assert shop.recorder.changes[-1] == ("processing", "refunded")
    assert shop.recorder.refunds == [(shop.order_id, Decimal("35.25"), [(shop.lines[0], 3), (shop.lines[1], 1)])]


@pytest.mark.parametrize("fields,errors", [
    ({"quantity-T": "4"}, {"quantity-T": "only 3 of this line are left to refund",
                           "refund_total-T": "only 30.00 of this line's total is left to refund"}),
    ({"quantity-T": "-1"}, {"quantity-T": "-1 is less than minimum value 0"}),
    ({"quantity-T": "two"}, {"quantity-T": "'two' is not an integer"}),
    ({"refund_total-M": "5.26"}, {"refund_total-M": "only 5.25 of this line's total is left to refund"}),
    ({"refund_total-M": "1,5"}, {"refund_total-M": "'1,5' is not an amount such as \"12.50\""}),
    ({"amount": "99"}, {"amount": "only 35.25 of this order is left to refund"}),
    ({"amount": "0.00001"}, {"amount": "must have at most 4 decimal places"}),
    ({}, {"amount": "give the amount to give back, or line_items"}),
    ({"reason": "r" * 1001}, {"reason": "Longer than maximum length 1000"}),
    ({"refund_mode": "some"}, {"refund_mode": "choose the whole order or some of its lines"}),
])
def test_a_bad_refund_is_refused_beside_its_fields_and_nothing_is_given_back(shop, fields, errors):
    tickets, mug = shop.lines
    names = {"T": str(tickets), "M": str(mug)}
    fields = {name.replace("-T", "-" + names["T"]).replace("-M", "-" + names["M"]): value
              for name, value in fields.items()}
    errors = {name.replace("-T", "-" + names["T"]).replace("-M", "-" + names["M"]): value
              for name, value in errors.items()}
    before = stored(shop)
    for confirm in ("", "yes"):  # refused at the review and at the confirmation alike
        body = {"csrf_token": token(page(shop)), "refund_mode": "lines", "confirm": confirm, **fields}
        res = shop.app.post(f"/admin/orders/{shop.order_id}/refund", body, status=400)
        assert_page(res, 400, "Nothing was refunded")
        shown = {p["id"][len("error-"):]: p.text for p in res.html.select("#refund-form .field-error")}
        assert shown == errors
        for name, value in fields.items():  # what was typed, to correct
            if name != "refund_mode":
                assert res.html.select_one(f"#field-{name}").get("value", res.html.select_one(f"#field-{name}").text) == value
    assert stored(shop) == before and shop.recorder.refunds == []


def test_an_unpaid_order_cannot_be_refunded(shop):
    with shop.session() as s:
        order = create_order(s, line_items=[{"product_id": 1, "quantity": 1}], status="pending")
    res = assert_page(shop.app.get(f"/admin/orders/{order.id}"), 200)
    assert "refund-form" not in res.forms and res.html.select_one("#refund-closed") is not None
    before = stored(shop)
    refused = shop.app.post(f"/admin/orders/{order.id}/refund", {"csrf_token": token(res), "refund_mode": "whole",
                                                                 "confirm": "yes"}, status=409)
    assert_page(refused, 409)
    assert refused.html.select_one("#refund-problem").text == \
        "Only a paid order (processing or completed) can be refunded."
    assert stored(shop) == before


def test_the_forms_need_the_form_token(shop):
    res = shop.app.post(f"/admin/orders/{shop.order_id}/notes", {"note": "Hi"}, status=403)
    assert_page(res, 403)
    res = shop.app.post(f"/admin/orders/{shop.order_id}/refund", {"refund_mode": "whole", "confirm": "yes"}, status=403)
    assert_page(res, 403)
    assert stored(shop)[0] == []
