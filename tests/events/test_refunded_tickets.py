"""A refund of an order's line cancels as many of that line's tickets as units were given back
(#40, ``storeplatform_order_refunded``): those never checked in first, then those checked out,
then those in the venue, the newest first; for good (paying the order again brings back only
what the order's own cancellation took); announced as an order's cancellation is (nothing)."""
from storeplatform.api import hookimpl
from storeplatform.testing import assert_error

from .conftest import Evt

O = "/api/store/v1/orders"


class Topics:
    def __init__(self):
        self.announced = []

    @hookimpl
    def evt_topic_announced(self, topic, object_id):
        self.announced.append((topic, object_id))


def refund(evt, order_id, lines, status=201):
    return evt.app.post_json(f"{O}/{order_id}/refunds", {"line_items": lines, "reason": "Cannot come."},
                             headers=evt.admin, status=status).json


def statuses(evt, order_id):
    """{ticket id: status} of the order's tickets, oldest first."""
    return {a["id"]: a["status"] for a in evt.attendees(order_id=order_id, orderby="created_at", order="ASC")}


def test_a_refunded_lines_tickets_are_cancelled_unused_and_newest_first(make_site):
    topics = Topics()
    evt = Evt(make_site(plugins=[topics], **{"storeplatform.plugins": "events"}))
    gala, fair = evt.event("Gala"), evt.event("Fair")
    order_id = evt.order([(evt.product(gala["id"]), 3), (evt.product(fair["id"]), 2)])
    gala_line, fair_line = [line["id"] for line in evt.app.get(f"{O}/{order_id}", headers=evt.admin).json["line_items"]]
    tickets = evt.attendees(order_id=order_id, orderby="created_at", order="ASC")
    g0, g1, g2 = [t for t in tickets if t["event_id"] == gala["id"]]
    f0, f1 = [t for t in tickets if t["event_id"] == fair["id"]]
    evt.post("/checkin", {"ticket_code": g0["ticket_code"]}, status=200)  # in the venue
    for ticket in (f0, f1):
        evt.post("/checkin", {"ticket_code": ticket["ticket_code"]}, status=200)
    evt.post("/checkin/checkout", {"ticket_code": f0["ticket_code"]}, status=200)  # came and left
    topics.announced.clear()

    refund(evt, order_id, [{"id": gala_line, "quantity": 2}])
    assert statuses(evt, order_id) == {g0["id"]: "checked_in", g1["id"]: "cancelled", g2["id"]: "cancelled",
                                       f0["id"]: "checked_out", f1["id"]: "checked_in"}
    refund(evt, order_id, [{"id": fair_line, "quantity": 1}])  # checked out before checked in
    assert statuses(evt, order_id)[f0["id"]] == "cancelled" and statuses(evt, order_id)[f1["id"]] == "checked_in"
    # Money alone cancels nothing.
    refund(evt, order_id, [{"id": gala_line, "refund_total": "1"}])
    assert statuses(evt, order_id)[g0["id"]] == "checked_in"
    assert_error(evt.post("/checkin", {"ticket_code": g1["ticket_code"]}, status=400), 400, "evt_rest_cancelled_ticket")
    # As an order's cancellation: no attendee topic is announced (the spec fires attendee.cancelled never).
    assert topics.announced == []

    # Paid again later: what the refunds cancelled stays cancelled.
    evt.set_order_status(order_id, "completed")
    assert statuses(evt, order_id) == {g0["id"]: "checked_in", g1["id"]: "cancelled", g2["id"]: "cancelled",
                                       f0["id"]: "cancelled", f1["id"]: "checked_in"}


def test_the_whole_order_refunded_cancels_every_ticket_and_paying_again_brings_none_back(evt):
    event = evt.event()
    tickets = evt.tickets(event["id"], 2)
    order_id = tickets[0]["order_id"]
    (line,) = [line["id"] for line in evt.app.get(f"{O}/{order_id}", headers=evt.admin).json["line_items"]]
    refund(evt, order_id, [{"id": line, "quantity": 2}])
    assert evt.app.get(f"{O}/{order_id}", headers=evt.admin).json["status"] == "refunded"
    assert set(statuses(evt, order_id).values()) == {"cancelled"}
    evt.set_order_status(order_id, "processing")  # a refund is not undone by a status
    assert set(statuses(evt, order_id).values()) == {"cancelled"}


def test_a_refund_of_the_whole_amount_alone_cancels_through_the_status(evt):
    """No units named: the order's move to refunded cancels its tickets, as before (and being
    the order's cancellation, paying again brings them back)."""
    event = evt.event()
    tickets = evt.tickets(event["id"], 2)
    order_id = tickets[0]["order_id"]
    evt.app.post_json(f"{O}/{order_id}/refunds", {"amount": "20"}, headers=evt.admin, status=201)
    assert set(statuses(evt, order_id).values()) == {"cancelled"}
    evt.set_order_status(order_id, "processing")
    assert set(statuses(evt, order_id).values()) == {"active"}


def test_a_refused_refund_cancels_nothing(evt):
    event = evt.event()
    tickets = evt.tickets(event["id"], 2)
    order_id = tickets[0]["order_id"]
    (line,) = [line["id"] for line in evt.app.get(f"{O}/{order_id}", headers=evt.admin).json["line_items"]]
    res = refund(evt, order_id, [{"id": line, "quantity": 3}], status=400)
    assert res["data"]["params"]["line_items.0.quantity"] == "only 2 of this line are left to refund"
    assert set(statuses(evt, order_id).values()) == {"active"}
