"""Events, venues and organizers: create, read, partial update, trash and delete, capabilities."""
import re

import pytest

from storeplatform.testing import assert_error

EVENT_FIELDS = {"id", "title", "slug", "status", "content", "excerpt", "permalink", "date_created",
                "date_modified", "featured_image", "start_date", "end_date", "start_time", "end_time",
                "start_datetime", "end_datetime", "timezone", "all_day", "venue_id", "organizer_id", "capacity",
                "event_status", "event_type", "virtual_url", "featured", "categories", "_links"}
LOCAL = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$")


def test_create_event_with_every_field(evt):
    venue = evt.venue("Grand Hall")
    organizer = evt.organizer("Arts Society")
    music = evt.category("Music", "#e11d48")
    image = {"id": 7, "url": "https://cdn.example.com/a.jpg", "thumbnail": "https://cdn.example.com/a-150.jpg",
             "alt": "Stage"}
    res = evt.post("/events", {
        "title": "Spring Concert", "content": "<p>Live</p>", "excerpt": "Live music", "featured_image": image,
        "start_date": "2031-05-01", "start_time": "19:30", "end_date": "2031-05-01", "end_time": "22:00",
        "timezone": "Europe/Vienna", "all_day": False, "venue_id": venue["id"], "organizer_id": organizer["id"],
        "capacity": 300, "event_status": "scheduled", "event_type": "hybrid",
        "virtual_url": "https://stream.example.com/x", "featured": True, "categories": [music]}, status=201)
    body = res.json
    assert res.headers["Location"] == f"http://localhost/api/events/v1/events/{body['id']}"
    assert set(body) == EVENT_FIELDS
    assert body["status"] == "publish" and body["slug"] == "spring-concert"
    assert body["start_datetime"] == "2031-05-01T19:30:00" and body["end_datetime"] == "2031-05-01T22:00:00"
    assert body["featured_image"] == image and body["categories"] == [music]
    assert body["venue_id"] == venue["id"] and body["organizer_id"] == organizer["id"]
    assert body["capacity"] == 300 and body["featured"] is True and body["event_type"] == "hybrid"
    assert body["permalink"] == "http://localhost/events/spring-concert/"
    assert LOCAL.match(body["date_created"]) and LOCAL.match(body["date_modified"])
    assert body["_links"]["self"][0]["href"] == res.headers["Location"]
    assert evt.get(f"/events/{body['id']}").json == body


def test_create_defaults(evt):
    evt.site.set_option("site.timezone", "Asia/Tokyo")
    body = evt.event("Bare")
    assert body["status"] == "publish" and body["timezone"] == "Asia/Tokyo"
    assert body["start_time"] == "00:00" and body["end_time"] == "23:59"
    assert body["end_date"] == body["start_date"]
    assert body["venue_id"] == 0 and body["organizer_id"] == 0 and body["featured_image"] is None
    assert body["event_status"] == "scheduled" and body["event_type"] == "in-person"


def test_dates_are_local_to_the_site_time_zone(evt):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    evt.site.set_option("site.timezone", "America/New_York")
    body = evt.event("Local")
    created = datetime.fromisoformat(body["date_created"])
    now = datetime.now(ZoneInfo("America/New_York")).replace(tzinfo=None)
    assert abs((now - created).total_seconds()) < 120


@pytest.mark.parametrize("body, param", [
    ({}, "title"),
    ({"title": "  "}, "title"),
    ({"title": 5}, "title"),
    ({"title": "x", "status": "trash"}, "status"),
    ({"title": "x", "start_date": "2031-13-01"}, "start_date"),
    ({"title": "x", "start_date": "01/05/2031"}, "start_date"),
    ({"title": "x", "start_time": "25:00"}, "start_time"),
    ({"title": "x", "end_time": "7pm"}, "end_time"),
    ({"title": "x", "timezone": "Mars/Base"}, "timezone"),
    ({"title": "x", "event_status": "done"}, "event_status"),
    ({"title": "x", "event_type": "online"}, "event_type"),
    ({"title": "x", "capacity": -1}, "capacity"),
    ({"title": "x", "capacity": 1.5}, "capacity"),
    ({"title": "x", "capacity": 2 ** 31}, "capacity"),
    ({"title": "x", "capacity": 10 ** 30}, "capacity"),
    ({"title": "x", "categories": [2 ** 40]}, "categories"),
    ({"title": "x", "venue_id": 2 ** 40}, "venue_id"),
    ({"title": "x", "timezone": "x" * 65}, "timezone"),
    ({"title": "x", "featured": "maybe"}, "featured"),
    ({"title": "x", "virtual_url": "ftp://x"}, "virtual_url"),
    ({"title": "x", "featured_image": "a.jpg"}, "featured_image"),
    ({"title": "x", "featured_image": {"url": "https://x.example/a.jpg", "size": 3}}, "featured_image"),
    ({"title": "x", "categories": [999]}, "categories"),
    ({"title": "x", "categories": "music"}, "categories"),
    ({"title": "x", "venue_id": 999}, "venue_id"),
    ({"title": "x", "organizer_id": 999}, "organizer_id"),
    ({"title": "x", "start_date": "2031-05-02", "end_date": "2031-05-01"}, "end_date"),
    ({"title": "x", "start_date": "2031-05-01", "start_time": "20:00", "end_time": "19:00"}, "end_time"),
])
def test_create_event_rejects_bad_fields(evt, body, param):
    res = evt.post("/events", body, status=400)
    body = assert_error(res, 400, "rest_invalid_param")
    assert param in {key.split(".")[0] for key in body["data"]["params"]}


def test_bad_create_writes_nothing(evt):
    evt.post("/events", {"title": "x", "venue_id": 999}, status=400)
    assert evt.get("/events").headers["X-Total"] == "0"


def test_venue_of_another_type_is_refused(evt):
    organizer = evt.organizer()
    res = evt.post("/events", {"title": "x", "venue_id": organizer["id"]}, status=400)
    assert "venue_id" in assert_error(res, 400, "rest_invalid_param")["data"]["params"]


def test_partial_update_changes_only_sent_fields(evt):
    venue = evt.venue()
    event = evt.event("Before", start_date="2031-01-01", start_time="10:00", venue_id=venue["id"], capacity=5)
    res = evt.put(f"/events/{event['id']}", {"title": "After", "capacity": 50}, status=200).json
    assert res["title"] == "After" and res["capacity"] == 50
    assert res["start_date"] == "2031-01-01" and res["start_time"] == "10:00" and res["venue_id"] == venue["id"]
    assert res["slug"] == event["slug"]
    cleared = evt.put(f"/events/{event['id']}", {"venue_id": None, "featured_image": None}, status=200).json
    assert cleared["venue_id"] == 0
    res = evt.put(f"/events/{event['id']}", {"end_date": "2030-12-31"}, status=400)
    assert "end_date" in assert_error(res, 400, "rest_invalid_param")["data"]["params"]
    assert evt.get(f"/events/{event['id']}").json["end_date"] == "2031-01-01"


def test_end_before_start_on_a_partial_update_is_reported_with_every_other_bad_field(evt):
    event = evt.event("Dated", start_date="2031-01-10", start_time="10:00", end_date="2031-01-12")
    path = f"/events/{event['id']}"
    # Only one date sent: the stored other one makes the order wrong; reported beside the
    # other bad fields, on the field that was sent.
    for body, field in [({"end_date": "2031-01-09"}, "end_date"), ({"start_date": "2031-01-13"}, "start_date"),
                        ({"end_time": "09:00", "end_date": "2031-01-10"}, "end_date"),
                        ({"start_time": "23:00", "start_date": "2031-01-12", "end_time": "22:00"}, "end_time")]:
        res = evt.put(path, {**body, "capacity": -1, "venue_id": 424242, "event_status": "nope"}, status=400)
        params = assert_error(res, 400, "rest_invalid_param")["data"]["params"]
        assert set(params) == {field, "capacity", "venue_id", "event_status"}, (body, params)
        assert params[field] == "the event ends before it starts"
    # On create, the defaults count (end_date defaults to start_date, start_date to today).
    res = evt.post("/events", {"title": "", "start_date": "2031-02-02", "end_date": "2031-02-01"}, status=400)
    assert set(assert_error(res, 400, "rest_invalid_param")["data"]["params"]) == {"title", "end_date"}
    res = evt.post("/events", {"title": "x", "start_date": "2031-02-02", "end_time": "00:00", "start_time": "01:00"},
                   status=400)
    assert set(res.json["data"]["params"]) == {"end_time"}
    # A bad date is the schema's to report; the order is not judged then.
    res = evt.put(path, {"start_date": "2031-13-01", "end_date": "2031-01-01"}, status=400)
    assert set(res.json["data"]["params"]) == {"start_date"}
    assert evt.get(path).json["start_date"] == "2031-01-10" and evt.get(path).json["end_date"] == "2031-01-12"
    assert evt.put(path, {"start_date": "2031-01-11"}, status=200).json["start_date"] == "2031-01-11"


def test_update_categories_and_slug(evt):
    a, b = evt.category("A"), evt.category("B")
    event = evt.event("Slugged", categories=[a])
    other = evt.event("Other")
    res = evt.put(f"/events/{event['id']}", {"categories": [b, a], "slug": other["slug"]}, status=200).json
    assert res["categories"] == [a, b]
    assert res["slug"] == other["slug"] + "-2"


@pytest.mark.parametrize("kind, code", [("events", "evt_rest_event_invalid_id"),
                                        ("venues", "evt_rest_venue_invalid_id"),
                                        ("organizers", "evt_rest_organizer_invalid_id")])
def test_unknown_ids_are_404(evt, kind, code):
    assert_error(evt.get(f"/{kind}/999", status=404), 404, code)
    assert_error(evt.put(f"/{kind}/999", {"capacity": 1} if kind != "organizers" else {"phone": "1"}, status=404),
                 404, code)
    assert_error(evt.delete(f"/{kind}/999", status=404), 404, code)


def test_ids_of_another_kind_are_404(evt):
    venue = evt.venue()
    event = evt.event()
    assert_error(evt.get(f"/events/{venue['id']}", status=404), 404, "evt_rest_event_invalid_id")
    assert_error(evt.get(f"/venues/{event['id']}", status=404), 404, "evt_rest_venue_invalid_id")
    assert_error(evt.get(f"/organizers/{event['id']}", status=404), 404, "evt_rest_organizer_invalid_id")


def test_delete_trashes_then_force_deletes(evt):
    event = evt.event("Trash me")
    res = evt.delete(f"/events/{event['id']}", status=200).json
    assert res["deleted"] is True and res["previous"]["id"] == event["id"]
    assert res["previous"]["status"] == "publish"
    # Trashed: gone from the public, still there for those who may read it.
    assert_error(evt.get(f"/events/{event['id']}", status=401), 401, "evt_rest_forbidden")
    assert evt.get(f"/events/{event['id']}", headers=evt.admin).json["status"] == "trash"
    assert evt.get("/events").json == []
    again = evt.delete(f"/events/{event['id']}", status=200).json
    assert again["deleted"] is True and again["previous"]["status"] == "trash"
    gone = evt.delete(f"/events/{event['id']}?force=true", status=200).json
    assert gone["deleted"] is True and gone["previous"]["status"] == "trash"
    assert_error(evt.get(f"/events/{event['id']}", headers=evt.admin, status=404), 404, "evt_rest_event_invalid_id")


def test_force_delete_without_trash(evt):
    event = evt.event()
    res = evt.delete(f"/events/{event['id']}?force=1", status=200).json
    assert res == {"deleted": True, "previous": res["previous"]} and res["previous"]["title"] == "Concert"
    assert_error(evt.get(f"/events/{event['id']}", headers=evt.admin, status=404), 404, "evt_rest_event_invalid_id")
    assert_error(evt.delete(f"/events/{event['id']}?force=x", status=400), 400, "rest_invalid_param")


def test_forced_deletes_after_creates_and_updates_with_categories_and_places(evt):
    """A run of creates and updates of events with categories, a venue and an organizer, then
    forced deletes (from the trash and directly): each answers 200 and the event is gone with
    its category links, while the categories stay. A forced delete of an event with categories
    was a 500 (StaleDataError: the session deleted the links a statement had deleted already)."""
    from sqlalchemy import func, select

    from storeplatform.api import PostTerm, Term

    categories = [evt.category(name) for name in ("Jazz", "Rock", "Folk")]
    venue, organizer = evt.venue("Hall"), evt.organizer("Society")
    ids = []
    for n in range(4):
        event = evt.event(f"Concert {n}", categories=categories[:2], venue_id=venue["id"],
                          organizer_id=organizer["id"])
        evt.put(f"/events/{event['id']}", {"categories": categories[1:]}, status=200)
        evt.put(f"/events/{event['id']}", {"title": f"Concert {n}, moved", "categories": [categories[n % 3]],
                                           "capacity": 10 + n}, status=200)
        ids.append(event["id"])
    evt.put(f"/events/{ids[0]}", {"categories": []}, status=200)  # one without categories
    evt.delete(f"/events/{ids[1]}", status=200)  # one trashed first
    evt.get(f"/events/{ids[2]}", headers=evt.admin, status=200)
    for event_id in ids:
        gone = evt.delete(f"/events/{event_id}?force=true", status=200).json
        assert gone["deleted"] is True and gone["previous"]["id"] == event_id
        assert_error(evt.get(f"/events/{event_id}", headers=evt.admin, status=404), 404, "evt_rest_event_invalid_id")
    with evt.site.session() as s:
        assert s.execute(select(PostTerm).where(PostTerm.post_id.in_(ids))).all() == []
        assert s.scalar(select(func.count()).select_from(Term).where(Term.id.in_(categories))) == 3
    for kind, item in (("venues", venue), ("organizers", organizer)):
        assert evt.delete(f"/{kind}/{item['id']}?force=true", status=200).json["deleted"] is True
    again = evt.event("Concert again", categories=categories)
    assert evt.get(f"/events/{again['id']}").json["categories"] == categories


def test_force_deleting_a_venue_detaches_its_events(evt):
    venue = evt.venue()
    event = evt.event(venue_id=venue["id"])
    evt.delete(f"/venues/{venue['id']}?force=true", status=200)
    assert evt.get(f"/events/{event['id']}").json["venue_id"] == 0


def test_venue_and_organizer_fields(evt):
    venue = evt.post("/venues", {"name": "Hall", "address": "1 Square", "city": "Vienna", "state": "W",
                                 "country": "AT", "postal": "1010", "capacity": 800, "phone": "+43 1",
                                 "email": "hall@example.com", "website": "https://hall.example.com"},
                     status=201)
    assert venue.headers["Location"].endswith(f"/events/v1/venues/{venue.json['id']}")
    v = venue.json
    assert {k: v[k] for k in ("name", "address", "city", "state", "country", "postal", "capacity", "phone", "email",
                              "website", "event_count")} == {
        "name": "Hall", "address": "1 Square", "city": "Vienna", "state": "W", "country": "AT", "postal": "1010",
        "capacity": 800, "phone": "+43 1", "email": "hall@example.com", "website": "https://hall.example.com",
        "event_count": 0}
    assert {"id", "date_created", "date_modified", "_links"} <= set(v)
    organizer = evt.post("/organizers", {"name": "Soc", "phone": "1", "email": "s@example.com",
                                         "website": "https://s.example.com", "facebook": "https://fb.example.com/s",
                                         "twitter": "@soc", "linkedin": "https://li.example.com/s"}, status=201)
    o = organizer.json
    assert o["twitter"] == "@soc" and o["event_count"] == 0 and o["facebook"] == "https://fb.example.com/s"
    assert organizer.headers["Location"].endswith(f"/organizers/{o['id']}")
    updated = evt.put(f"/venues/{v['id']}", {"city": "Graz"}, status=200).json
    assert updated["city"] == "Graz" and updated["name"] == "Hall" and updated["capacity"] == 800
    assert evt.put(f"/organizers/{o['id']}", {"name": "Society"}, status=200).json["email"] == "s@example.com"


@pytest.mark.parametrize("kind, body, param", [
    ("venues", {}, "name"), ("venues", {"name": "x", "capacity": "big"}, "capacity"),
    ("venues", {"name": "x", "city": "c" * 201}, "city"), ("venues", {"name": "x", "postal": "1" * 41}, "postal"),
    ("venues", {"name": "x", "phone": "1" * 101}, "phone"), ("venues", {"name": "x", "capacity": 2 ** 31}, "capacity"),
    ("venues", {"name": "x", "email": "nope"}, "email"), ("venues", {"name": "x", "website": "hall"}, "website"),
    ("organizers", {}, "name"), ("organizers", {"name": "x", "email": "a@"}, "email"),
    ("organizers", {"name": ["x"]}, "name"),
])
def test_venue_and_organizer_validation(evt, kind, body, param):
    res = evt.post(f"/{kind}", body, status=400)
    assert param in assert_error(res, 400, "rest_invalid_param")["data"]["params"]


@pytest.mark.parametrize("kind", ["venues", "organizers"])
def test_venue_and_organizer_trash_and_force(evt, kind):
    item = evt.post(f"/{kind}", {"name": "X"}, status=201).json
    res = evt.delete(f"/{kind}/{item['id']}", status=200).json
    assert res["deleted"] is True and res["previous"]["name"] == "X"
    assert evt.get(f"/{kind}").json == []
    assert_error(evt.get(f"/{kind}/{item['id']}", status=401), 401, "evt_rest_forbidden")
    evt.delete(f"/{kind}/{item['id']}?force=true", status=200)
    assert_error(evt.get(f"/{kind}/{item['id']}", headers=evt.admin, status=404), 404,
                 f"evt_rest_{kind[:-1]}_invalid_id")


# --- capabilities ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind, body", [("events", {"title": "x"}), ("venues", {"name": "x"}),
                                        ("organizers", {"name": "x"})])
def test_create_needs_edit_posts(evt, kind, body):
    assert_error(evt.post(f"/{kind}", body, headers={}, status=401), 401, "evt_rest_forbidden")
    for role in ("subscriber", "customer"):
        assert_error(evt.post(f"/{kind}", body, headers=evt.site.headers_for(role), status=403), 403,
                     "evt_rest_forbidden")
    for role in ("contributor", "author", "editor", "shop_manager"):
        evt.post(f"/{kind}", {**body, "status": "draft"} if kind == "events" else body,
                 headers=evt.site.headers_for(role), status=201)


def test_contributor_cannot_publish_but_may_submit(evt):
    contributor = evt.site.headers_for("contributor")
    assert_error(evt.post("/events", {"title": "x"}, headers=contributor, status=403), 403, "evt_rest_forbidden")
    event = evt.post("/events", {"title": "x", "status": "pending"}, headers=contributor, status=201).json
    assert event["status"] == "pending"
    evt.put(f"/events/{event['id']}", {"title": "y"}, headers=contributor, status=200)
    assert_error(evt.put(f"/events/{event['id']}", {"status": "publish"}, headers=contributor, status=403), 403,
                 "evt_rest_forbidden")


def test_edit_and_delete_follow_own_vs_others(evt):
    author = evt.site.headers_for("author")
    other_author = evt.site.headers_for("contributor")
    mine = evt.post("/events", {"title": "Mine"}, headers=author, status=201).json
    editors = evt.event("Editor's")
    evt.put(f"/events/{mine['id']}", {"title": "Mine 2"}, headers=author, status=200)
    assert_error(evt.put(f"/events/{editors['id']}", {"title": "no"}, headers=author, status=403), 403,
                 "evt_rest_forbidden")
    assert_error(evt.delete(f"/events/{editors['id']}", headers=author, status=403), 403, "evt_rest_forbidden")
    assert_error(evt.put(f"/events/{mine['id']}", {"title": "no"}, headers=other_author, status=403), 403,
                 "evt_rest_forbidden")
    assert_error(evt.put(f"/events/{mine['id']}", {"title": "no"}, headers={}, status=401), 401,
                 "evt_rest_forbidden")
    assert_error(evt.delete(f"/events/{mine['id']}", headers={}, status=401), 401, "evt_rest_forbidden")
    evt.put(f"/events/{mine['id']}", {"title": "by editor"}, headers=evt.site.headers_for("editor"), status=200)
    evt.delete(f"/events/{mine['id']}", headers=author, status=200)


def test_unpublished_events_need_read_post(evt):
    draft = evt.event("Draft", status="draft")
    private = evt.event("Private", status="private")
    for item in (draft, private):
        assert_error(evt.get(f"/events/{item['id']}", status=401), 401, "evt_rest_forbidden")
        assert_error(evt.get(f"/events/{item['id']}", headers=evt.site.headers_for("subscriber"), status=403), 403,
                     "evt_rest_forbidden")
        assert evt.get(f"/events/{item['id']}", headers=evt.site.headers_for("editor")).json["id"] == item["id"]
    contributor = evt.site.headers_for("contributor")
    own = evt.post("/events", {"title": "Own draft", "status": "draft"}, headers=contributor, status=201).json
    assert evt.get(f"/events/{own['id']}", headers=contributor).json["status"] == "draft"
    assert_error(evt.get(f"/events/{draft['id']}", headers=contributor, status=403), 403, "evt_rest_forbidden")
    assert [e["id"] for e in evt.get("/events", headers=evt.admin).json] == []


def test_published_items_are_public(evt):
    event, venue, organizer = evt.event(), evt.venue(), evt.organizer()
    assert evt.get(f"/events/{event['id']}").json["id"] == event["id"]
    assert evt.get(f"/venues/{venue['id']}").json["id"] == venue["id"]
    assert evt.get(f"/organizers/{organizer['id']}").json["id"] == organizer["id"]


def test_a_bad_value_and_a_bad_reference_are_listed_together(evt):
    venue = evt.venue()
    body = {"title": "Both", "start_time": "25:00", "venue_id": 999999, "organizer_id": venue["id"],
            "categories": [424242]}
    res = evt.post("/events", body, status=400)
    params = assert_error(res, 400, "rest_invalid_param")["data"]["params"]
    assert set(params) == {"start_time", "venue_id", "organizer_id", "categories"}
    assert params["venue_id"] == "venue 999999 does not exist"
    made = evt.event()
    res = evt.put(f"/events/{made['id']}", {"end_date": "x", "venue_id": 999999}, status=400)
    assert set(assert_error(res, 400, "rest_invalid_param")["data"]["params"]) == {"end_date", "venue_id"}
