"""Accounts (#28) and the events plugin: deleting a user who bought tickets keeps the tickets
(their order stays as a guest order) and leaves them naming no user
(``storeplatform_user_deleted``)."""


def test_a_deleted_customers_tickets_stay_and_name_nobody(evt):
    app, admin = evt.app, evt.admin
    buyer = app.post_json("/api/store/v1/users", {"login": "buyer"}, headers=admin, status=201).json["id"]
    other = app.post_json("/api/store/v1/users", {"login": "other"}, headers=admin, status=201).json["id"]
    event = evt.event()
    product = evt.product(event["id"])
    mine, theirs = (app.post_json("/api/store/v1/orders", {
        "status": "processing", "customer_id": customer, "billing": {"first_name": "Anna"},
        "line_items": [{"product_id": product, "quantity": 1}]}, headers=admin, status=201).json["id"]
        for customer in (buyer, other))
    assert [a["user_id"] for a in evt.attendees(order_id=mine)] == [buyer]
    res = app.delete(f"/api/store/v1/users/{buyer}", headers=admin).json
    assert res["orders"] == 1
    tickets = evt.attendees(order_id=mine)
    assert [(a["user_id"], a["status"], a["first_name"]) for a in tickets] == [(0, "active", "Anna")]
    assert [a["user_id"] for a in evt.attendees(order_id=theirs)] == [other]
    assert app.get(f"/api/store/v1/orders/{mine}", headers=admin).json["customer_id"] == 0
