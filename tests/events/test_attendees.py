"""Attendees: issued when an order with ticket products is paid, cancelled with the order;
list, get, lookup, update; the QR code image."""
import re

import pytest
import segno

from storeplatform.testing import assert_error

ATTENDEE_FIELDS = {"id", "event_id", "event_name", "order_id", "order_number", "user_id", "first_name", "last_name",
                   "email", "phone", "ticket_code", "status", "checked_in_at", "checked_out_at", "custom_fields",
                   "date_created", "date_modified", "qr_code_url", "_links"}


def test_one_attendee_per_ticket_unit_with_billing_names(evt):
    event = evt.event("Gala")
    other = evt.event("Other")
    plain = evt.app.post_json("/api/store/v1/products", {"name": "Mug", "regular_price": "5"},
                              headers=evt.admin).json["id"]
    order_id = evt.order([(evt.product(event["id"]), 3), (plain, 2), (evt.product(other["id"]), 1)],
                         billing={"first_name": "Zoë", "last_name": "Łukasz", "email": "zoe@example.com",
                                  "phone": "+48 12"})
    attendees = evt.attendees(order_id=order_id)
    assert len(attendees) == 4
    assert sorted(a["event_id"] for a in attendees) == sorted([event["id"]] * 3 + [other["id"]])
    a = attendees[0]
    assert set(a) == ATTENDEE_FIELDS
    assert (a["first_name"], a["last_name"], a["email"], a["phone"]) == ("Zoë", "Łukasz", "zoe@example.com", "+48 12")
    assert a["status"] == "active" and a["checked_in_at"] is None and a["checked_out_at"] is None
    assert a["order_id"] == order_id and a["order_number"] == str(order_id) and a["custom_fields"] == {}
    assert a["event_name"] in ("Gala", "Other")
    codes = [x["ticket_code"] for x in attendees]
    assert len(set(codes)) == 4 and all(re.fullmatch(r"[A-Z2-9]{16}", c) for c in codes)
    assert a["qr_code_url"] == f"http://localhost/api/events/v1/tickets/{a['ticket_code']}/qr"


def test_unpaid_orders_issue_no_tickets_and_paying_once_issues_them_once(evt):
    event = evt.event()
    order_id = evt.order([(evt.product(event["id"]), 2)], status="pending")
    assert evt.attendees(order_id=order_id) == []
    evt.set_order_status(order_id, "on-hold")
    assert evt.attendees(order_id=order_id) == []
    evt.set_order_status(order_id, "processing")
    first = evt.attendees(order_id=order_id)
    assert len(first) == 2
    evt.set_order_status(order_id, "completed")
    assert evt.attendees(order_id=order_id) == first


@pytest.mark.parametrize("status", ["cancelled", "refunded"])
def test_cancelled_or_refunded_order_cancels_its_attendees(evt, status):
    event = evt.event()
    attendees = evt.tickets(event["id"], 2)
    evt.post("/checkin", {"ticket_code": attendees[0]["ticket_code"]}, status=200)
    evt.set_order_status(attendees[0]["order_id"], status)
    assert {a["status"] for a in evt.attendees(order_id=attendees[0]["order_id"])} == {"cancelled"}
    res = evt.post("/checkin", {"ticket_code": attendees[1]["ticket_code"]}, status=400)
    assert_error(res, 400, "evt_rest_cancelled_ticket")
    # Paid again: the same tickets come back.
    evt.set_order_status(attendees[0]["order_id"], "processing")
    again = evt.attendees(order_id=attendees[0]["order_id"])
    assert {a["status"] for a in again} == {"active"}
    assert sorted(a["ticket_code"] for a in again) == sorted(a["ticket_code"] for a in attendees)


def test_a_ticket_cancelled_on_purpose_stays_cancelled_through_order_changes(evt):
    event = evt.event()
    kept, cancelled = evt.tickets(event["id"], 2)
    order_id = kept["order_id"]
    evt.put(f"/attendees/{cancelled['id']}", {"status": "cancelled"}, headers=evt.admin, status=200)
    for status in ("completed", "refunded", "processing", "completed"):
        evt.set_order_status(order_id, status)
    by_id = {a["id"]: a["status"] for a in evt.attendees(order_id=order_id)}
    assert by_id == {kept["id"]: "active", cancelled["id"]: "cancelled"}


def test_deleting_an_order_cancels_and_detaches_its_tickets(evt):
    event = evt.event()
    tickets = evt.tickets(event["id"], 2)
    evt.app.delete(f"/api/store/v1/orders/{tickets[0]['order_id']}", headers=evt.admin, status=200)
    left = evt.attendees(event=event["id"])
    assert {(a["status"], a["order_id"]) for a in left} == {("cancelled", 0)}
    # A new order never inherits them (ids are not reused).
    fresh = evt.tickets(event["id"], 1)
    assert fresh[0]["order_id"] != tickets[0]["order_id"] and len(evt.attendees(order_id=fresh[0]["order_id"])) == 1
    res = evt.post("/checkin", {"ticket_code": tickets[0]["ticket_code"]}, status=400)
    assert_error(res, 400, "evt_rest_cancelled_ticket")


def test_deleting_an_event_for_good_cancels_its_tickets(evt):
    event = evt.event()
    tickets = evt.tickets(event["id"], 2)
    evt.delete(f"/events/{event['id']}?force=true", status=200)
    assert {a["status"] for a in evt.attendees(event=event["id"])} == {"cancelled"}
    other = evt.event(title="Next")
    assert other["id"] != event["id"] and evt.attendees(event=other["id"]) == []


def test_products_naming_no_event_issue_nothing(evt):
    venue = evt.venue()
    bad = [evt.app.post_json("/api/store/v1/products", {"name": n, "regular_price": "1", "meta": {"event_id": v}},
                             headers=evt.admin).json["id"] for n, v in (("a", venue["id"]), ("b", 999), ("c", "x"),
                                                                         ("d", True), ("e", "\u00b2"), ("f", 2**40),
                                                                         ("g", "9" * 30), ("h", 10**30))]
    order_id = evt.order([(p, 1) for p in bad])
    assert evt.attendees(order_id=order_id) == []
    event = evt.event()
    text_id = evt.app.post_json("/api/store/v1/products", {"name": "t", "regular_price": "1",
                                                           "meta": {"event_id": str(event["id"])}},
                                headers=evt.admin).json["id"]
    assert len(evt.attendees(order_id=evt.order([(text_id, 1)]))) == 1


def test_get_lookup_and_update(evt):
    event = evt.event("Gala")
    a = evt.tickets(event["id"])[0]
    assert evt.get(f"/attendees/{a['id']}", headers=evt.admin).json == a
    assert evt.get(f"/attendees/code/{a['ticket_code']}", headers=evt.admin).json == a
    assert_error(evt.get("/attendees/999", headers=evt.admin, status=404), 404, "evt_rest_attendee_invalid_id")
    assert_error(evt.get("/attendees/code/NOSUCHCODE", headers=evt.admin, status=404), 404,
                 "evt_rest_attendee_invalid_code")
    assert_error(evt.put("/attendees/999", {"first_name": "x"}, status=404), 404, "evt_rest_attendee_invalid_id")
    res = evt.put(f"/attendees/{a['id']}", {"first_name": "Ann", "last_name": "N.", "email": "ann@example.com",
                                            "phone": "123"}, status=200).json
    assert (res["first_name"], res["last_name"], res["email"], res["phone"]) == ("Ann", "N.", "ann@example.com", "123")
    assert res["ticket_code"] == a["ticket_code"] and res["status"] == "active"
    for status in ("checked_in", "checked_out", "cancelled", "active"):
        assert evt.put(f"/attendees/{a['id']}", {"status": status}, status=200).json["status"] == status
    final = evt.get(f"/attendees/{a['id']}", headers=evt.admin).json
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}", final["checked_in_at"])
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}", final["checked_out_at"])


@pytest.mark.parametrize("body, param", [({"status": "used"}, "status"), ({"email": "nope"}, "email"),
                                         ({"first_name": 3}, "first_name"), ({"last_name": "x" * 201}, "last_name")])
def test_update_validation(evt, body, param):
    a = evt.tickets(evt.event()["id"])[0]
    res = evt.put(f"/attendees/{a['id']}", body, status=400)
    assert param in assert_error(res, 400, "rest_invalid_param")["data"]["params"]
    assert evt.get(f"/attendees/{a['id']}", headers=evt.admin).json == a


def test_attendee_routes_need_manage_shop(evt):
    a = evt.tickets(evt.event()["id"])[0]
    for path in ("/attendees", f"/attendees/{a['id']}", f"/attendees/code/{a['ticket_code']}"):
        assert_error(evt.get(path, status=401), 401, "evt_rest_forbidden")
        for role in ("editor", "author", "customer"):
            assert_error(evt.get(path, headers=evt.site.headers_for(role), status=403), 403, "evt_rest_forbidden")
        evt.get(path, headers=evt.site.headers_for("shop_manager"), status=200)
    assert_error(evt.put(f"/attendees/{a['id']}", {"status": "cancelled"}, headers=evt.site.headers_for("editor"),
                         status=403), 403, "evt_rest_forbidden")
    assert_error(evt.put(f"/attendees/{a['id']}", {"status": "cancelled"}, headers={}, status=401), 401,
                 "evt_rest_forbidden")


@pytest.fixture
def crowd(evt):
    e1, e2 = evt.event("One"), evt.event("Two")
    a = evt.tickets(e1["id"], 2, billing={"first_name": "Anna", "last_name": "Alpha", "email": "anna@example.com"})
    b = evt.tickets(e1["id"], 1, billing={"first_name": "Bert", "last_name": "Beta", "email": "bert@example.org"})
    c = evt.tickets(e2["id"], 1, billing={"first_name": "Cleo", "last_name": "Gomez", "email": "cleo@example.com"})
    evt.post("/checkin", {"ticket_code": b[0]["ticket_code"]}, status=200)
    return {"evt": evt, "e1": e1, "e2": e2, "a": a, "b": b, "c": c}


def test_attendee_list_parameters(crowd):
    evt = crowd["evt"]
    everyone = evt.get("/attendees", headers=evt.admin)
    assert everyone.headers["X-Total"] == "4" and len(everyone.json) == 4
    assert [x["id"] for x in everyone.json] == sorted((x["id"] for x in everyone.json), reverse=True)

    def names(**params):
        return [f"{x['first_name']}" for x in evt.attendees(**params)]

    assert sorted(names(event=crowd["e1"]["id"])) == ["Anna", "Anna", "Bert"]
    assert names(order_id=crowd["c"][0]["order_id"]) == ["Cleo"]
    assert names(status="checked_in") == ["Bert"]
    assert names(status="cancelled") == []
    assert names(search="gomez") == ["Cleo"]
    assert names(search="example.org") == ["Bert"]
    # Search terms hold a letter ticket codes never use (O), so a random code cannot match.
    assert names(search="leo") == ["Cleo"]
    assert names(search=crowd["c"][0]["ticket_code"].lower()) == ["Cleo"]
    assert names(orderby="first_name", order="ASC") == ["Anna", "Anna", "Bert", "Cleo"]
    assert names(orderby="last_name", order="DESC") == ["Cleo", "Bert", "Anna", "Anna"]
    assert names(orderby="email", order="asc")[-1] == "Cleo"
    assert names(orderby="status", order="ASC")[-1] == "Bert"
    assert names(event=999) == []
    page = evt.get("/attendees", params={"per_page": 3, "page": 2}, headers=evt.admin)
    assert len(page.json) == 1 and page.headers["X-TotalPages"] == "2" and 'rel="prev"' in page.headers["Link"]


ATTENDEE_SEARCHES = ["anna", "ANNA", "a lee", "anna lee", "lee ann", "ann@", "@x.org", "100%", "%", "_", "a_b", "\\",
                     "c:\\temp", "århus", "ÅRHUS", "ÉTÉ", "москва", "o", "zz", "none of it"]


def test_attendee_search_matches_each_text_not_across_two(evt):
    """search = a case-insensitive substring of the first name, last name, e-mail or ticket code
    (wildcards taken literally); never of two of them joined, which the index's text is."""
    e = evt.event("One")
    people = [("Anna", "Lee", "anna@x.org"), ("Ole", "Århus", "c:\\temp@x.org"), ("Été", "100% a_b", "e@y.net"),
              ("Маша", "Москва", "m@y.net"), ("Lee", "Ann", "l@y.net")]
    for first, last, email in people:
        evt.tickets(e["id"], 1, billing={"first_name": first, "last_name": last, "email": email})
    everyone = evt.attendees()
    for term in ATTENDEE_SEARCHES:
        want = sorted(a["id"] for a in everyone if any(term.lower() in a[field].lower() for field in
                                                          ("first_name", "last_name", "email", "ticket_code")))
        res = evt.get("/attendees", params={"search": term, "per_page": 100}, headers=evt.admin)
        assert sorted(a["id"] for a in res.json) == want and res.headers["X-Total"] == str(len(want)), term
    assert [a["first_name"] for a in evt.attendees(search="anna lee")] == []


def test_attendee_search_can_be_served_by_the_trigram_index_on_postgresql(evt):
    """The search's candidates are read from the index of the four texts (here scans are
    forbidden, to see that it can; the scale bench shows the planner takes it)."""
    from storeplatform_events.attendee_list import text_holders

    with evt.site.engine.connect() as c:
        if c.dialect.name != "postgresql":
            pytest.skip("SQLite has no trigram index: a search scans the search texts (evt_attendee_search)")
        c.exec_driver_sql("SET enable_seqscan = off")
        compiled = text_holders("quo_kka%").compile(
            dialect=c.dialect, compile_kwargs={"literal_binds": True})
        plan = "\n".join(row[0] for row in c.exec_driver_sql(f"EXPLAIN {compiled}"))
    assert "ix_evt_attendee_search_words" in plan, plan


def test_the_search_text_follows_the_four_texts_and_a_check_in_leaves_it_unwritten(evt):
    """evt_attendee_search is the database's (evt0016's triggers): made with the ticket, made
    again when a name, the e-mail or the code is written, deleted with the attendee; a check-in
    and a check-out write none of the four and leave it as it was (on PostgreSQL the row's
    version is the same: no write reached it, nor its trigram index)."""
    from storeplatform_events.models import Attendee

    e = evt.event("One")
    evt.tickets(e["id"], 2, billing={"first_name": "Anna", "last_name": "Lee", "email": "anna@x.org"})
    first, second = sorted(evt.attendees(), key=lambda a: a["id"])

    def words():
        with evt.site.engine.connect() as c:
            postgresql = c.dialect.name == "postgresql"
            version = ", xmin::text" if postgresql else ", ''"
            return {row[0]: tuple(row[1:]) for row in c.exec_driver_sql(
                f"SELECT attendee_id, words{version} FROM evt_attendee_search")}

    assert {k: v[0] for k, v in words().items()} == {
        a["id"]: f"anna lee anna@x.org {a['ticket_code'].lower()}" for a in (first, second)}
    before = words()
    evt.post("/checkin", {"ticket_code": first["ticket_code"]}, status=200)
    evt.post("/checkin/checkout", {"ticket_code": first["ticket_code"]}, status=200)
    evt.put(f"/attendees/{second['id']}", {"phone": "+48 1"}, headers=evt.admin, status=200)
    assert words() == before
    evt.put(f"/attendees/{second['id']}", {"first_name": "Ünal", "email": "U@Y.NET"}, headers=evt.admin, status=200)
    assert words()[second["id"]][0] == f"ünal lee u@y.net {second['ticket_code'].lower()}"
    assert words()[first["id"]] == before[first["id"]]
    assert [a["id"] for a in evt.attendees(search="ÜNAL")] == [second["id"]]
    assert [a["id"] for a in evt.attendees(search="anna")] == [first["id"]]
    with evt.site.session() as s:  # what a site's own code (or an order's deletion, one day) does
        s.query(Attendee).filter_by(id=first["id"]).delete()
    assert set(words()) == {second["id"]}
    assert evt.attendees(search="anna") == []


@pytest.mark.parametrize("param, value", [("orderby", "ticket_code"), ("order", "random"), ("event", "x"),
                                          ("order_id", "0"), ("status", "used"), ("per_page", "101"),
                                          ("page", "0")])
def test_attendee_list_rejects_bad_parameters(evt, param, value):
    res = evt.get("/attendees", params={param: value}, headers=evt.admin, status=400)
    assert param in assert_error(res, 400, "rest_invalid_param")["data"]["params"]


def png_modules(data, scale=6, border=4):
    """The dark/light modules of a 1-bit greyscale PNG QR code (what segno writes), read back
    from the pixels: True for dark."""
    import struct
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, color = header[:4]
    assert (depth, color) == (1, 0) and width == height
    raw = zlib.decompress(idat)
    stride = (width + 7) // 8
    rows, previous = [], bytes(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):  # PNG filters, one byte per pixel group
            left = line[i - 1] if i else 0
            up, corner = previous[i], previous[i - 1] if i else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        previous = bytes(line)
        rows.append([not (line[x // 8] >> (7 - x % 8)) & 1 for x in range(width)])
    size = width // scale - 2 * border
    return [[rows[(border + r) * scale + scale // 2][(border + c) * scale + scale // 2] for c in range(size)]
            for r in range(size)]


def test_qr_code_is_a_png_of_the_ticket_code(evt):
    a = evt.tickets(evt.event()["id"])[0]
    res = evt.app.get(a["qr_code_url"].replace("http://localhost", ""), status=200)
    assert res.content_type == "image/png"
    assert "no-store" in res.headers["Cache-Control"]
    expected = [[bool(v) for v in row] for row in segno.make(a["ticket_code"], error="m", micro=False).matrix]
    assert png_modules(res.body) == expected
    other = [[bool(v) for v in row] for row in segno.make("SOMETHINGELSE123", error="m", micro=False).matrix]
    assert png_modules(res.body) != other
    assert_error(evt.get("/tickets/NOSUCHCODE/qr", status=404), 404, "evt_rest_attendee_invalid_code")
