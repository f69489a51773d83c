"""Calendar routes: public, published events only."""
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from storeplatform.testing import assert_error

CALENDAR_EVENT = {"id", "title", "slug", "url", "start_date", "start_time", "end_date", "end_time", "all_day",
                  "start", "end", "venue", "venue_id", "categories", "color", "thumbnail", "event_status",
                  "event_type", "featured"}


@pytest.fixture
def cal(evt):
    venue = evt.venue("Grand Hall")
    music = evt.category("Music", "#e11d48", slug="music")
    talks = evt.category("Talks", "#16a34a", slug="talks")
    evt.category("Empty", "#000000", slug="empty")
    e = {
        "a": evt.event("March A", start_date="2031-03-01", start_time="10:00", end_date="2031-03-02",
                       end_time="12:00", venue_id=venue["id"], categories=[music], featured=True,
                       featured_image={"id": 1, "url": "https://x.example/a.jpg",
                                       "thumbnail": "https://x.example/a-150.jpg", "alt": "A"}),
        "b": evt.event("March B", start_date="2031-03-01", start_time="08:00", categories=[talks, music]),
        "c": evt.event("March C", start_date="2031-03-31", all_day=True),
        "feb": evt.event("February", start_date="2031-02-28", categories=[talks]),
        "apr": evt.event("April", start_date="2031-04-01"),
    }
    evt.event("Draft", start_date="2031-03-15", status="draft", categories=[talks])
    return {"evt": evt, "e": e, "venue": venue, "music": music, "talks": talks}


def test_month(cal):
    evt, e = cal["evt"], cal["e"]
    res = evt.get("/calendar/month", params={"year": 2031, "month": 3}).json
    assert {k: res[k] for k in ("year", "month", "month_name", "start_date", "end_date", "total_events")} == {
        "year": 2031, "month": 3, "month_name": "March", "start_date": "2031-03-01", "end_date": "2031-03-31",
        "total_events": 3}
    assert [x["id"] for x in res["events"]] == [e["b"]["id"], e["a"]["id"], e["c"]["id"]]
    assert list(res["events_by_date"]) == ["2031-03-01", "2031-03-31"]
    assert [x["id"] for x in res["events_by_date"]["2031-03-01"]] == [e["b"]["id"], e["a"]["id"]]
    a = res["events"][1]
    assert set(a) == CALENDAR_EVENT
    assert a == {
        "id": e["a"]["id"], "title": "March A", "slug": "march-a", "url": "http://localhost/events/march-a/",
        "start_date": "2031-03-01", "start_time": "10:00", "end_date": "2031-03-02", "end_time": "12:00",
        "all_day": False, "start": "2031-03-01T10:00:00", "end": "2031-03-02T12:00:00", "venue": "Grand Hall",
        "venue_id": cal["venue"]["id"],
        "categories": [{"id": cal["music"], "name": "Music", "slug": "music", "color": "#e11d48"}],
        "color": "#e11d48", "thumbnail": "https://x.example/a-150.jpg", "event_status": "scheduled",
        "event_type": "in-person", "featured": True}
    assert res["events"][0]["color"] == "#e11d48"  # the first category by id
    assert res["events"][2]["all_day"] is True and res["events"][2]["venue"] == ""
    talks = evt.get("/calendar/month", params={"year": 2031, "month": 3, "category": "talks"}).json
    assert [x["id"] for x in talks["events"]] == [e["b"]["id"]]
    by_id = evt.get("/calendar/month", params={"year": 2031, "month": 2, "category": cal["talks"]}).json
    assert [x["id"] for x in by_id["events"]] == [e["feb"]["id"]]
    empty = evt.get("/calendar/month", params={"year": 2031, "month": 5}).json
    assert empty["events"] == [] and empty["events_by_date"] == {} and empty["total_events"] == 0


def test_month_defaults_to_the_current_month_in_the_site_time_zone(evt):
    evt.site.set_option("site.timezone", "Pacific/Kiritimati")
    now = datetime.now(ZoneInfo("Pacific/Kiritimati"))
    event = evt.event("Now", start_date=now.date().isoformat())
    res = evt.get("/calendar/month").json
    assert (res["year"], res["month"]) == (now.year, now.month)
    assert [x["id"] for x in res["events"]] == [event["id"]]
    only_month = evt.get("/calendar/month", params={"month": 1}).json
    assert (only_month["year"], only_month["month"]) == (now.year, 1)


@pytest.mark.parametrize("params, param", [({"month": 13}, "month"), ({"month": 0}, "month"),
                                           ({"year": "x"}, "year"), ({"month": "3.5"}, "month")])
def test_month_validation(evt, params, param):
    res = evt.get("/calendar/month", params=params, status=400)
    assert param in assert_error(res, 400, "rest_invalid_param")["data"]["params"]


def test_range(cal):
    evt, e = cal["evt"], cal["e"]
    res = evt.get("/calendar/range", params={"start": "2031-02-28", "end": "2031-03-01"}).json
    assert [x["id"] for x in res] == [e["feb"]["id"], e["b"]["id"], e["a"]["id"]]
    assert set(res[0]) == CALENDAR_EVENT
    music = evt.get("/calendar/range", params={"start": "2031-01-01", "end": "2031-12-31", "category": "music"}).json
    assert [x["id"] for x in music] == [e["b"]["id"], e["a"]["id"]]
    full_year = evt.get("/calendar/range", params={"start": "2031-01-01", "end": "2032-01-01"}).json
    assert len(full_year) == 5  # 365 days is allowed


@pytest.mark.parametrize("params, param", [
    ({"end": "2031-03-01"}, "start"), ({"start": "2031-03-01"}, "end"), ({}, "start"),
    ({"start": "2031-3-1", "end": "2031-03-02"}, "start"),
    ({"start": "2031-03-02", "end": "2031-03-01"}, "end"),
    ({"start": "2031-01-01", "end": "2032-01-02"}, "end"),
])
def test_range_validation(evt, params, param):
    res = evt.get("/calendar/range", params=params, status=400)
    assert param in assert_error(res, 400, "rest_invalid_param")["data"]["params"]


def test_upcoming(evt):
    today = datetime.now(ZoneInfo("UTC")).date()
    music = evt.category("Music", slug="music")
    evt.event("Past", start_date=(today - timedelta(days=1)).isoformat())
    made = [evt.event(f"U{n}", start_date=(today + timedelta(days=n)).isoformat(),
                      categories=[music] if n % 2 else []) for n in range(8)]
    res = evt.get("/calendar/upcoming").json
    assert [x["id"] for x in res] == [m["id"] for m in made[:5]]
    assert set(res[0]) == CALENDAR_EVENT
    assert len(evt.get("/calendar/upcoming", params={"limit": 50}).json) == 8
    assert [x["title"] for x in evt.get("/calendar/upcoming", params={"limit": 2, "category": "music"}).json] == [
        "U1", "U3"]
    for bad in ("0", "51", "x"):
        res = evt.get("/calendar/upcoming", params={"limit": bad}, status=400)
        assert "limit" in assert_error(res, 400, "rest_invalid_param")["data"]["params"]


def test_categories(cal):
    evt = cal["evt"]
    res = evt.get("/calendar/categories").json
    assert res["total"] == 3
    assert res["categories"] == [
        {"id": res["categories"][0]["id"], "name": "Empty", "slug": "empty", "description": "Empty events",
         "count": 0, "color": "#000000"},
        {"id": cal["music"], "name": "Music", "slug": "music", "description": "Music events", "count": 2,
         "color": "#e11d48"},
        {"id": cal["talks"], "name": "Talks", "slug": "talks", "description": "Talks events", "count": 2,
         "color": "#16a34a"},
    ]
    hidden = evt.get("/calendar/categories", params={"hide_empty": "true"}).json
    assert hidden["total"] == 2 and [c["slug"] for c in hidden["categories"]] == ["music", "talks"]
    assert_error(evt.get("/calendar/categories", params={"hide_empty": "perhaps"}, status=400), 400,
                 "rest_invalid_param")


def test_calendar_is_public_and_shows_published_events_only(cal):
    evt = cal["evt"]
    titles = [x["title"] for x in evt.get("/calendar/range", params={"start": "2031-01-01", "end": "2031-12-31"},
                                          headers=evt.admin).json]
    assert "Draft" not in titles and len(titles) == 5
    evt.delete(f"/events/{cal['e']['a']['id']}")
    assert cal["e"]["a"]["id"] not in [x["id"] for x in evt.get(
        "/calendar/month", params={"year": 2031, "month": 3}).json["events"]]
