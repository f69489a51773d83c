"""Refunds and the order's history with the invoicing plugin (#40): an order refunded in full
gets its credit note through the status change; a partial refund makes no document; every
document the plugin makes or regenerates is a line of the order's notes, by whoever acted."""
from datetime import datetime

from storeplatform.api import Order
from storeplatform.api.advanced import set_order_status

from .conftest import API

O = "/api/store/v1/orders"


def notes(shop, order_id):
    return [(n["note"], n["author"]) for n in
            shop.app.get(f"{O}/{order_id}/notes", headers=shop.headers_for("shop_manager")).json]


def refund(shop, order_id, body):
    return shop.app.post_json(f"{O}/{order_id}/refunds", body, headers=shop.headers_for("shop_manager"),
                              status=201).json


def test_a_refund_in_full_makes_the_credit_note_and_a_partial_one_none(shop):
    year = datetime.now().year
    order = shop.order("completed")  # 39.90 + 3 x 7.25 = 61.65: its invoice
    lamp, cable = (line["id"] for line in order["line_items"])
    assert [d[1:4] for d in shop.documents()] == [("invoice", 1, f"INV-{year}-00001")]
    refund(shop, order["id"], {"line_items": [{"id": cable, "quantity": 1}], "reason": "Broken."})
    assert [d[1] for d in shop.documents()] == ["invoice"]  # still the invoice, served as before
    assert shop.meta(order["id"]).json["document_type"] == "invoice"
    refund(shop, order["id"], {"line_items": [{"id": lamp, "quantity": 1}, {"id": cable, "quantity": 2}]})
    assert [d[1:4] for d in shop.documents()] == [("invoice", 1, f"INV-{year}-00001"),
                                                  ("credit-note", 1, f"CN-{year}-00001")]
    body = shop.meta(order["id"]).json
    assert (body["document_type"], body["display_number"]) == ("credit-note", f"CN-{year}-00001")
    assert notes(shop, order["id"]) == [
        (f"Credit note CN-{year}-00001 created.", "Shop_Manager"),
        ("Order status changed from Completed to Refunded.", "Shop_Manager"),
        ("Refunded 54.40 USD (1 × Desk lamp, 2 × Кабель USB-C).", "Shop_Manager"),
        ("Refunded 7.25 USD (1 × Кабель USB-C). Reason: Broken.", "Shop_Manager"),
        (f"Invoice INV-{year}-00001 created.", "Administrator"),
        ("Order status changed from Pending payment to Completed.", "Administrator")]


def test_a_regenerated_document_is_a_note_and_so_is_each_new_one(shop):
    year = datetime.now().year
    order = shop.order("pending")  # no document yet
    shop.regen(order["id"])  # made now: "created" only
    shop.regen(order["id"])
    shop.regen(order["id"], {"force_type": "packing-slip"})
    assert notes(shop, order["id"]) == [
        (f"Packing slip PS-{year}-00001 created.", "Shop_Manager"),
        (f"Invoice INV-{year}-00001 regenerated.", "Shop_Manager"),
        (f"Invoice INV-{year}-00001 created.", "Shop_Manager")]


def test_documents_made_outside_a_request_are_the_systems(shop):
    year = datetime.now().year
    order = shop.order("pending")
    with shop.session() as s:
        set_order_status(s, s.get(Order, order["id"]), "processing")
    assert notes(shop, order["id"]) == [(f"Invoice INV-{year}-00001 created.", "system"),
                                        ("Order status changed from Pending payment to Processing.", "system")]
    # Rendering the PDF in the worker finishes the same document: no second line.
    assert shop.app.get(f"{API}/documents/{order['id']}", headers=shop.headers_for("shop_manager")).status_int == 200
    assert len(notes(shop, order["id"])) == 2
