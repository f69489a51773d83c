"""The alternate variant (events.api_variant = alternate): events with its fields and list
parameters, venues with postal_code, organizers, and the generic error codes."""
import pytest

from storeplatform.api import hookimpl
from storeplatform.testing import assert_error

from .conftest import ALTERNATE, Evt

EVENT_KEYS = {"id", "title", "slug", "description", "excerpt", "status", "type", "start_date", "start_time",
              "end_date", "end_time", "timezone", "all_day", "venue", "organizer", "capacity", "registered",
              "virtual_url", "featured", "featured_image", "categories", "link", "date_created", "date_modified",
              "_links"}


def test_event_object_of_the_variant(alt):
    venue = alt.venue("Hall")
    organizer = alt.organizer("Society")
    res = alt.post("/events", {"title": "Gig", "description": "<p>Loud</p>", "status": "postponed",
                               "type": "hybrid", "venue": venue["id"], "organizer": organizer["id"],
                               "start_date": "2031-05-01", "start_time": "20:00", "capacity": 50}, status=201)
    event = res.json
    assert res.headers["Location"] == f"http://localhost/api/events/v1/events/{event['id']}"
    assert set(event) == EVENT_KEYS
    assert event["description"] == "<p>Loud</p>" and event["status"] == "postponed" and event["type"] == "hybrid"
    assert event["venue"] == {"id": venue["id"], "name": "Hall"}
    assert event["organizer"] == {"id": organizer["id"], "name": "Society"}
    assert event["registered"] == 0 and event["link"] == "http://localhost/events/gig/"
    assert (event["end_date"], event["end_time"]) == ("2031-05-01", "23:59")
    assert alt.get(f"/events/{event['id']}").json == event
    # Defaults: scheduled, in-person, no venue or organizer.
    plain = alt.event("Plain")
    assert (plain["status"], plain["type"], plain["venue"], plain["organizer"]) == ("scheduled", "in-person", None,
                                                                                   None)


def test_event_update_changes_only_the_sent_fields(alt):
    venue = alt.venue("Hall")
    event = alt.event("Gig", venue=venue["id"], type="virtual")
    updated = alt.put(f"/events/{event['id']}", {"status": "sold-out", "description": "New"}, status=200).json
    assert (updated["status"], updated["description"], updated["type"]) == ("sold-out", "New", "virtual")
    assert updated["venue"] == {"id": venue["id"], "name": "Hall"}
    cleared = alt.put(f"/events/{event['id']}", {"venue": None}, status=200).json
    assert cleared["venue"] is None


def test_registered_counts_attendees_not_cancelled(alt):
    event = alt.event("Gig")
    tickets = alt.tickets(event["id"], 3)
    alt.put(f"/attendees/{tickets[0]['id']}", {"status": "cancelled"}, status=200)
    alt.post("/checkin", {"ticket_code": tickets[1]["ticket_code"]}, status=200)
    assert alt.get(f"/events/{event['id']}").json["registered"] == 2
    assert alt.get("/events").json[0]["registered"] == 2


def test_venue_and_organizer_names_are_published_ones_only(alt):
    venue = alt.venue("Hall")
    event = alt.event("Gig", venue=venue["id"])
    alt.delete(f"/venues/{venue['id']}", status=200)
    assert alt.get(f"/events/{event['id']}").json["venue"] is None
    assert alt.get("/events").json[0]["venue"] is None


@pytest.mark.parametrize("body,param", [
    ({"title": "x", "venue": 999999}, "venue"),
    ({"title": "x", "organizer": 999999}, "organizer"),
    ({"title": "x", "status": "publish"}, "status"),
    ({"title": "x", "type": "online"}, "type"),
    ({"title": "x", "start_date": "2030-01-02", "end_date": "2030-01-01"}, "end_date"),
    ({"title": "x", "categories": [999999]}, "categories"),
    ({"title": ""}, "title"),
    ({}, "title"),
])
def test_bad_event_bodies_name_the_variants_field(alt, body, param):
    body = assert_error(alt.post("/events", body, status=400), 400, "rest_invalid_param")
    assert param in body["data"]["params"]
    assert alt.get("/events").headers["X-Total"] == "0"


def test_every_bad_field_at_once(alt):
    body = assert_error(alt.post("/events", {"title": "x", "venue": 999999, "type": "x", "organizer": "y"},
                                 status=400), 400, "rest_invalid_param")
    assert set(body["data"]["params"]) == {"venue", "type", "organizer"}


def test_list_parameters(alt):
    music = alt.category("Music")
    alt.event("Early", start_date="2030-01-10", type="virtual", categories=[music])
    alt.event("Middle", start_date="2030-02-10", status="cancelled", description="with a Choir")
    alt.event("Late", start_date="2030-03-10", type="virtual")
    alt.post("/events", {"title": "Draftless"}, headers=alt.site.headers_for("contributor"), status=403)

    def titles(**params):
        return [e["title"] for e in alt.get("/events", params=params).json]

    assert titles() == ["Early", "Middle", "Late"]  # start order
    assert titles(type="virtual") == ["Early", "Late"]
    assert titles(after="2030-02-10") == ["Middle", "Late"]
    assert titles(before="2030-02-10") == ["Early", "Middle"]
    assert titles(after="2030-01-11", before="2030-03-09") == ["Middle"]
    assert titles(category=music) == ["Early"]
    assert titles(category=999999) == []
    assert titles(status="cancelled") == ["Middle"]
    assert titles(search="choir") == ["Middle"]
    res = alt.get("/events", params={"per_page": 2, "page": 2})
    assert [e["title"] for e in res.json] == ["Late"]
    assert res.headers["X-Total"] == "3" and res.headers["X-TotalPages"] == "2" and 'rel="prev"' in res.headers["Link"]


@pytest.mark.parametrize("params,param", [
    ({"category": "music"}, "category"), ({"category": "0"}, "category"), ({"type": "online"}, "type"),
    ({"after": "2030-13-01"}, "after"), ({"before": "soon"}, "before"), ({"status": "draft"}, "status"),
    ({"per_page": "101"}, "per_page"), ({"page": "0"}, "page"),
])
def test_bad_list_parameters(alt, params, param):
    body = assert_error(alt.get("/events", params=params, status=400), 400, "rest_invalid_param")
    assert param in body["data"]["params"]


def test_only_published_events_are_listed_and_unpublished_need_read_post(alt):
    event = alt.event("Gig")
    alt.delete(f"/events/{event['id']}", status=200)
    assert alt.get("/events").json == []
    assert_error(alt.get(f"/events/{event['id']}", status=401), 401, "rest_forbidden")
    assert_error(alt.get(f"/events/{event['id']}", headers=alt.site.headers_for("subscriber"), status=403), 403,
                 "rest_forbidden")
    assert alt.get(f"/events/{event['id']}", headers=alt.admin).json["id"] == event["id"]


@pytest.mark.parametrize("collection", ["events", "venues", "organizers"])
def test_generic_codes_for_every_kind(alt, collection):
    body = {"title": "x"} if collection == "events" else {"name": "x"}
    assert_error(alt.post(f"/{collection}", body, headers={}, status=401), 401, "rest_cannot_create")
    assert_error(alt.post(f"/{collection}", body, headers=alt.site.headers_for("subscriber"), status=403), 403,
                 "rest_cannot_create")
    for method in (alt.get, alt.put, alt.delete):
        assert_error(method(f"/{collection}/999999", status=404), 404, "rest_not_found")
    assert_error(alt.get(f"/{collection}/99999999999", status=404), 404, "rest_not_found")
    item = alt.post(f"/{collection}", body, status=201).json
    author = alt.site.headers_for("author")
    assert_error(alt.put(f"/{collection}/{item['id']}", body, headers={}, status=401), 401, "rest_forbidden")
    assert_error(alt.put(f"/{collection}/{item['id']}", body, headers=author, status=403), 403, "rest_forbidden")
    assert_error(alt.delete(f"/{collection}/{item['id']}", headers=author, status=403), 403, "rest_forbidden")
    assert_error(alt.put(f"/{collection}/{item['id']}", {"name": 5, "title": 5}, status=400), 400,
                 "rest_invalid_param")


def test_publishing_needs_publish_posts_refused_as_cannot_create(alt):
    # A contributor may not publish, and the variant's events have no post status to ask for a draft.
    assert_error(alt.post("/events", {"title": "x"}, headers=alt.site.headers_for("contributor"), status=403), 403,
                 "rest_cannot_create")
    assert alt.post("/events", {"title": "x"}, headers=alt.site.headers_for("author"), status=201)


def test_delete_trashes_and_force_deletes(alt):
    event = alt.event("Gig")
    res = alt.delete(f"/events/{event['id']}", status=200).json
    assert res["deleted"] is True and res["previous"]["title"] == "Gig" and set(res["previous"]) == EVENT_KEYS
    res = alt.delete(f"/events/{event['id']}?force=true", status=200).json
    assert res["deleted"] is True
    assert_error(alt.get(f"/events/{event['id']}", headers=alt.admin, status=404), 404, "rest_not_found")
    assert_error(alt.delete(f"/events/{event['id']}?force=maybe", status=400), 400, "rest_invalid_param")


class Veto:
    @hookimpl
    def evt_rest_event_deleted(self, post_id, force):
        raise RuntimeError("veto")


def test_failed_delete_is_rest_cannot_delete_and_deletes_nothing(make_site):
    alt = Evt(make_site(plugins=[Veto()], **ALTERNATE))
    event = alt.event("Keep")
    for query in ("", "?force=true"):
        assert_error(alt.delete(f"/events/{event['id']}{query}", status=500), 500, "rest_cannot_delete")
        assert alt.get(f"/events/{event['id']}").json["title"] == "Keep"


def test_venue_has_postal_code(alt):
    venue = alt.venue("Hall", postal_code="1010", city="Wien")
    assert venue["postal_code"] == "1010" and "postal" not in venue
    assert alt.put(f"/venues/{venue['id']}", {"postal_code": "1020"}, status=200).json["postal_code"] == "1020"
    listed = alt.get("/venues").json[0]
    assert listed["postal_code"] == "1020" and listed["event_count"] == 0
    assert alt.get(f"/venues/{venue['id']}").json["postal_code"] == "1020"
    body = assert_error(alt.post("/venues", {"name": "x", "postal_code": "9" * 41}, status=400), 400,
                        "rest_invalid_param")
    assert set(body["data"]["params"]) == {"postal_code"}
    event = alt.event("Gig", venue=venue["id"])
    assert alt.get("/venues").json[0]["event_count"] == 1
    assert alt.delete(f"/venues/{venue['id']}?force=true", status=200).json["previous"]["postal_code"] == "1020"
    assert alt.get(f"/events/{event['id']}").json["venue"] is None


def test_organizers_are_the_standard_ones(alt):
    organizer = alt.organizer("Society", email="s@example.com")
    assert organizer["email"] == "s@example.com" and organizer["event_count"] == 0
    assert alt.get("/organizers", params={"search": "society"}).json[0]["id"] == organizer["id"]
