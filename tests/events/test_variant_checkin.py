"""The alternate variant's check-in answers (``event``, ISO 8601 ``checked_in_at``, refusals as
``{"success": false, "message"}`` with the standard variant's status), its attendee filters and
its one calendar route."""
from datetime import datetime

import pytest

from storeplatform.api import hookimpl
from storeplatform.testing import assert_error

from .conftest import ALTERNATE, Evt


@pytest.fixture
def door(alt):
    event = alt.event("Gala")
    other = alt.event("Other")
    tickets = alt.tickets(event["id"], 3, billing={"first_name": "Anna", "last_name": "Nowak",
                                                   "email": "anna@example.com"})
    return {"evt": alt, "event": event, "other": other, "tickets": tickets}


def iso(text):
    parsed = datetime.fromisoformat(text)
    assert parsed.tzinfo is not None and "T" in text, text
    return parsed


def test_checkin_answer(door):
    alt, ticket, event = door["evt"], door["tickets"][0], door["event"]
    res = alt.post("/checkin", {"ticket_code": ticket["ticket_code"], "event_id": event["id"]}, status=200).json
    assert set(res) == {"success", "already_in", "message", "attendee", "event", "checked_in_at"}
    assert res["success"] is True and res["already_in"] is False and res["message"]
    assert res["event"] == {"id": event["id"], "name": "Gala"}
    assert res["attendee"] == {"id": ticket["id"], "name": "Anna Nowak", "email": "anna@example.com",
                               "ticket_code": ticket["ticket_code"], "status": "checked_in",
                               "event_id": event["id"], "event_name": "Gala"}
    checked_in = iso(res["checked_in_at"])
    stored = alt.get(f"/attendees/{ticket['id']}", headers=alt.admin).json
    assert stored["status"] == "checked_in"
    # The attendee object keeps the standard format; both name the same second.
    assert stored["checked_in_at"] == checked_in.strftime("%Y-%m-%d %H:%M:%S")
    again = alt.post("/checkin", {"ticket_code": ticket["ticket_code"]}, status=200).json
    assert again["success"] is True and again["already_in"] is True and again["checked_in_at"] == res["checked_in_at"]


def test_checkin_times_are_in_the_site_time_zone(door):
    alt = door["evt"]
    alt.site.set_option("site.timezone", "Asia/Kolkata")
    res = alt.post("/checkin", {"ticket_code": door["tickets"][0]["ticket_code"]}, status=200).json
    assert res["checked_in_at"].endswith("+05:30")


@pytest.mark.parametrize("case,status", [("unknown", 404), ("wrong_event", 400), ("cancelled", 400)])
def test_refusals_are_success_false_with_the_standard_status(door, case, status):
    alt, ticket = door["evt"], door["tickets"][0]
    body = {"ticket_code": ticket["ticket_code"]}
    if case == "unknown":
        body["ticket_code"] = "NOSUCHCODE"
    elif case == "wrong_event":
        body["event_id"] = door["other"]["id"]
    else:
        alt.put(f"/attendees/{ticket['id']}", {"status": "cancelled"}, status=200)
    res = alt.post("/checkin", body, status=status).json
    assert set(res) == {"success", "message"} and res["success"] is False and res["message"]
    assert alt.get(f"/attendees/{ticket['id']}", headers=alt.admin).json["checked_in_at"] is None


def test_checkout(door):
    alt, ticket = door["evt"], door["tickets"][0]
    res = alt.post("/checkin/checkout", {"ticket_code": ticket["ticket_code"]}, status=400).json
    assert res == {"success": False, "message": "This attendee is not checked in."}
    assert alt.post("/checkin/checkout", {"ticket_code": "NOSUCHCODE"}, status=404).json["success"] is False
    alt.post("/checkin", {"ticket_code": ticket["ticket_code"]}, status=200)
    res = alt.post("/checkin/checkout", {"ticket_code": ticket["ticket_code"]}, status=200).json
    assert res["success"] is True and res["event"] == {"id": door["event"]["id"], "name": "Gala"}
    assert res["attendee"]["status"] == "checked_out"
    assert iso(res["checked_out_at"]) >= iso(res["checked_in_at"])


def test_a_code_in_small_letters_is_the_same_ticket(door):
    alt, ticket = door["evt"], door["tickets"][0]
    code = ticket["ticket_code"]
    res = alt.post("/checkin", {"ticket_code": f" {code.lower()} "}, status=200).json
    assert res["success"] is True and res["already_in"] is False and res["attendee"]["ticket_code"] == code
    assert res["event"] == {"id": door["event"]["id"], "name": "Gala"}
    out = alt.post("/checkin/checkout", {"ticket_code": code.lower()}, status=200).json
    assert out["success"] is True and out["attendee"]["status"] == "checked_out"
    res = alt.post("/checkin", {"ticket_code": f"{code[:8]} {code[8:]}".lower()}, status=404).json
    assert res == {"success": False, "message": "Invalid ticket code."}


def test_validation_and_permissions_keep_the_error_body(door):
    alt = door["evt"]
    for path in ("/checkin", "/checkin/checkout", "/checkin/validate"):
        body = assert_error(alt.post(path, {}, status=400), 400, "rest_invalid_param")
        assert "ticket_code" in body["data"]["params"]
        assert_error(alt.post(path, {"ticket_code": "x"}, headers={}, status=401), 401, "rest_forbidden")
        assert_error(alt.post(path, {"ticket_code": "x"}, headers=alt.site.headers_for("editor"), status=403), 403,
                     "rest_forbidden")


def test_validate_stats_and_recent_with_generic_codes(door):
    alt, ticket, event = door["evt"], door["tickets"][0], door["event"]
    assert alt.post("/checkin/validate", {"ticket_code": ticket["ticket_code"]}, status=200).json["valid"] is True
    assert alt.post("/checkin/validate", {"ticket_code": "NOSUCH"}, status=200).json["valid"] is False
    alt.post("/checkin", {"ticket_code": ticket["ticket_code"]}, status=200)
    stats = alt.get(f"/checkin/stats/{event['id']}", headers=alt.admin).json
    assert (stats["total"], stats["checked_in"], stats["pending"]) == (3, 1, 2)
    recent = alt.get(f"/checkin/recent/{event['id']}", headers=alt.admin).json
    assert [c["id"] for c in recent["checkins"]] == [ticket["id"]]
    for path in ("/checkin/stats/999999", "/checkin/recent/999999", f"/checkin/stats/{ticket['id'] + 999999}"):
        assert_error(alt.get(path, headers=alt.admin, status=404), 404, "rest_not_found")
    assert_error(alt.get(f"/checkin/recent/{event['id']}?limit=0", headers=alt.admin, status=400), 400,
                 "rest_invalid_param")


class Veto:
    @hookimpl
    def evt_attendee_checked_in(self, attendee_id, attendee):
        raise RuntimeError("veto")


def test_a_failed_checkin_is_success_false_500_and_leaves_the_ticket(make_site):
    alt = Evt(make_site(plugins=[Veto()], **ALTERNATE))
    ticket = alt.tickets(alt.event()["id"])[0]
    res = alt.post("/checkin", {"ticket_code": ticket["ticket_code"]}, status=500).json
    assert res["success"] is False and set(res) == {"success", "message"}
    stored = alt.get(f"/attendees/{ticket['id']}", headers=alt.admin).json
    assert stored["status"] == "active" and stored["checked_in_at"] is None


# --- attendees ------------------------------------------------------------------------------------

def test_attendee_filters(alt):
    gala, other = alt.event("Gala"), alt.event("Other")
    anna = alt.tickets(gala["id"], 2, billing={"first_name": "Anna", "last_name": "Nowak", "email": "anna@example.com"})
    bert = alt.tickets(other["id"], 1, billing={"first_name": "Bert", "last_name": "Berg", "email": "b@corp.example"})
    alt.post("/checkin", {"ticket_code": anna[0]["ticket_code"]}, status=200)

    def ids(**params):
        return sorted(a["id"] for a in alt.get("/attendees", params=params, headers=alt.admin).json)

    assert ids(event_id=gala["id"]) == sorted(a["id"] for a in anna)
    assert ids(event_id=other["id"]) == [bert[0]["id"]]
    assert ids(status="checked_in") == [anna[0]["id"]]
    assert ids(event_id=gala["id"], status="active") == [anna[1]["id"]]
    assert ids(search="nowak") == sorted(a["id"] for a in anna)
    assert ids(search="Anna Nowak") == sorted(a["id"] for a in anna)
    assert ids(search="CORP.example") == [bert[0]["id"]]
    assert ids(search=anna[0]["ticket_code"]) == []  # name or email only
    res = alt.get("/attendees", params={"per_page": 1}, headers=alt.admin)
    assert res.headers["X-Total"] == "3" and res.headers["X-TotalPages"] == "3"
    for params in ({"event_id": "x"}, {"event_id": "0"}, {"status": "gone"}, {"per_page": "101"}):
        assert_error(alt.get("/attendees", params=params, headers=alt.admin, status=400), 400, "rest_invalid_param")
    assert_error(alt.get("/attendees", status=401), 401, "rest_forbidden")
    assert_error(alt.get("/attendees", headers=alt.site.headers_for("editor"), status=403), 403, "rest_forbidden")


def test_attendee_routes_answer_rest_not_found(alt):
    assert_error(alt.get("/attendees/999999", headers=alt.admin, status=404), 404, "rest_not_found")
    assert_error(alt.put("/attendees/999999", {"first_name": "x"}, status=404), 404, "rest_not_found")
    assert_error(alt.get("/attendees/code/NOSUCH", headers=alt.admin, status=404), 404, "rest_not_found")
    assert_error(alt.get("/tickets/NOSUCH/qr", status=404), 404, "rest_not_found")
    ticket = alt.tickets(alt.event()["id"])[0]
    assert alt.get(f"/attendees/code/{ticket['ticket_code']}", headers=alt.admin).json["id"] == ticket["id"]
    assert alt.put(f"/attendees/{ticket['id']}", {"first_name": "Zed"}, status=200).json["first_name"] == "Zed"
    assert alt.get(f"/tickets/{ticket['ticket_code']}/qr", status=200).content_type == "image/png"


# --- calendar -------------------------------------------------------------------------------------

def test_calendar(alt):
    music = alt.category("Music")
    first = alt.event("First", start_date="2031-03-02", start_time="19:30", categories=[music])
    alt.event("Second", start_date="2031-03-31")
    alt.event("April", start_date="2031-04-01")
    draft = alt.event("Trashed", start_date="2031-03-05")
    alt.delete(f"/events/{draft['id']}", status=200)
    res = alt.get("/calendar", params={"year": 2031, "month": 3}).json
    assert set(res) == {"year", "month", "events"} and (res["year"], res["month"]) == (2031, 3)
    assert res["events"][0] == {"id": first["id"], "title": "First", "date": "2031-03-02", "time": "19:30",
                                "link": "http://localhost/events/first/"}
    assert [e["title"] for e in res["events"]] == ["First", "Second"]
    assert [e["title"] for e in alt.get("/calendar", params={"year": 2031, "month": 3, "category": music}).json[
        "events"]] == ["First"]
    assert alt.get("/calendar", params={"year": 2031, "month": 3, "category": 999999}).json["events"] == []
    today = datetime.now()
    current = alt.get("/calendar").json
    assert abs((current["year"] * 12 + current["month"]) - (today.year * 12 + today.month)) <= 1
    for params in ({"month": 13}, {"month": 0}, {"year": "x"}, {"category": "music"}, {"year": 10000}):
        assert_error(alt.get("/calendar", params=params, status=400), 400, "rest_invalid_param")


@pytest.mark.parametrize("path", ["/calendar/month", "/calendar/range", "/calendar/upcoming",
                                  "/calendar/categories"])
def test_the_four_standard_calendar_routes_are_not_served(alt, path):
    assert_error(alt.get(path, status=404), 404, "rest_no_route")
