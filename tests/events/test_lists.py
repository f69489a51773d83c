"""List parameters of events, venues and organizers, with validation and pagination headers."""
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from storeplatform.testing import assert_error


def ids(res):
    return [item["id"] for item in res.json]


@pytest.fixture
def catalogue(evt):
    """Three venues, two organizers, two categories and five published events (+ a draft)."""
    v1 = evt.venue("Alpha Hall", city="Vienna", country="AT", address="1 Ring")
    v2 = evt.venue("Beta Club", city="Lyon", country="FR")
    evt.venue("Gamma Room", city="vienna", country="at")
    o1 = evt.organizer("Arts Society", email="arts@example.com")
    o2 = evt.organizer("Meetups", email="meet@example.com")
    music = evt.category("Music", "#ff0000", slug="music")
    talks = evt.category("Talks", "#00ff00", slug="talks")
    today = datetime.now(ZoneInfo("UTC")).date()
    e = {}
    e["jazz"] = evt.event("Jazz Night", content="<p>saxophone</p>", start_date="2031-03-10", venue_id=v1["id"],
                          organizer_id=o1["id"], categories=[music], featured=True)
    e["talk"] = evt.event("Design Talk", excerpt="about typography", start_date="2031-01-05", venue_id=v2["id"],
                          organizer_id=o2["id"], categories=[talks], event_status="postponed")
    e["choir"] = evt.event("Choir", start_date="2031-02-20", start_time="18:00", venue_id=v1["id"],
                           categories=[music], event_status="cancelled")
    e["past"] = evt.event("Old Fair", start_date=(today - timedelta(days=3)).isoformat(), venue_id=v2["id"])
    e["today"] = evt.event("Today's Walk", start_date=today.isoformat(), event_status="sold-out")
    evt.event("Hidden", status="draft", venue_id=v1["id"], categories=[music])
    return {"e": e, "v1": v1, "v2": v2, "o1": o1, "o2": o2, "music": music, "talks": talks, "evt": evt}


def test_events_list_defaults_to_newest_first(catalogue):
    evt, e = catalogue["evt"], catalogue["e"]
    res = evt.get("/events")
    assert res.headers["X-Total"] == "5" and res.headers["X-TotalPages"] == "1"
    assert ids(res) == [e["today"]["id"], e["past"]["id"], e["choir"]["id"], e["talk"]["id"], e["jazz"]["id"]]


@pytest.mark.parametrize("params, expected", [
    ({"search": "jazz"}, ["jazz"]),
    ({"search": "SAXOPHONE"}, ["jazz"]),
    ({"search": "typography"}, ["talk"]),
    ({"search": "100%"}, []),
    ({"status": "postponed"}, ["talk"]),
    ({"status": "cancelled"}, ["choir"]),
    ({"status": "sold-out"}, ["today"]),
    ({"featured": "true"}, ["jazz"]),
    ({"start_after": "2031-02-20"}, ["choir", "jazz"]),
    ({"start_before": "2031-02-20", "start_after": "2031-01-01"}, ["talk", "choir"]),
    ({"orderby": "meta_value", "order": "asc", "start_after": "2031-01-01"}, ["talk", "choir", "jazz"]),
    ({"orderby": "title", "order": "ASC"}, ["choir", "talk", "jazz", "past", "today"]),
    ({"orderby": "id", "order": "ASC"}, ["jazz", "talk", "choir", "past", "today"]),
    ({"orderby": "date", "order": "DESC"}, ["today", "past", "choir", "talk", "jazz"]),
])
def test_event_filters_and_sorting(catalogue, params, expected):
    evt, e = catalogue["evt"], catalogue["e"]
    got = ids(evt.get("/events", params=params))
    want = [e[name]["id"] for name in expected]
    if "orderby" in params:
        assert got == want
    else:
        assert sorted(got) == sorted(want)


def test_event_filters_by_references(catalogue):
    evt, e = catalogue["evt"], catalogue["e"]
    assert sorted(ids(evt.get("/events", params={"venue": catalogue["v1"]["id"]}))) == sorted(
        [e["jazz"]["id"], e["choir"]["id"]])
    assert ids(evt.get("/events", params={"organizer": catalogue["o2"]["id"]})) == [e["talk"]["id"]]
    music = sorted([e["jazz"]["id"], e["choir"]["id"]])
    assert sorted(ids(evt.get("/events", params={"category": str(catalogue["music"])}))) == music
    assert sorted(ids(evt.get("/events", params={"category": "music"}))) == music
    assert ids(evt.get("/events", params={"category": "nosuch"})) == []
    include = f"{e['jazz']['id']},{e['talk']['id']}"
    assert sorted(ids(evt.get("/events", params={"include": include}))) == sorted([e["jazz"]["id"], e["talk"]["id"]])
    rest = ids(evt.get("/events", params={"exclude": include}))
    assert len(rest) == 3 and e["jazz"]["id"] not in rest


def test_upcoming_means_starting_today_or_later_in_the_site_time_zone(catalogue):
    evt, e = catalogue["evt"], catalogue["e"]
    got = ids(evt.get("/events", params={"upcoming": "1"}))
    assert e["past"]["id"] not in got and e["today"]["id"] in got and len(got) == 4
    assert len(ids(evt.get("/events", params={"upcoming": "false"}))) == 5


@pytest.mark.parametrize("param, value", [
    ("page", "0"), ("page", "x"), ("per_page", "0"), ("per_page", "101"), ("orderby", "price"),
    ("order", "up"), ("status", "publish"), ("venue", "abc"), ("venue", "0"), ("organizer", "1.5"),
    ("start_after", "tomorrow"), ("start_before", "2031-02-30"), ("upcoming", "soon"), ("featured", "2"),
    ("include", "1,a"), ("exclude", "-3"), ("_embed", "maybe"), ("include", ",".join(["7"] * 1001)),
    ("venue", "9" * 25),
    # Digits that str.isdigit() accepts and int() refuses or reads (found by the property-based run).
    ("exclude", "\u00b2"), ("include", "1,\u0663"), ("organizer", "\u00b2"), ("page", "\u0661"),
])
def test_event_list_rejects_bad_parameters(evt, param, value):
    res = evt.get("/events", params={param: value}, status=400)
    assert param in assert_error(res, 400, "rest_invalid_param")["data"]["params"]


def test_pagination_headers_and_links(evt):
    for n in range(5):
        evt.event(f"E{n}")
    res = evt.get("/events", params={"per_page": 2, "page": 2})
    assert len(res.json) == 2
    assert res.headers["X-Total"] == "5" and res.headers["X-TotalPages"] == "3"
    link = res.headers["Link"]
    assert 'rel="prev"' in link and 'rel="next"' in link and "page=1" in link and "page=3" in link
    last = evt.get("/events", params={"per_page": 2, "page": 3})
    assert len(last.json) == 1 and 'rel="next"' not in last.headers["Link"]
    assert evt.get("/events", params={"per_page": 2, "page": 9}).json == []
    assert len(evt.get("/events").json) == 5


def test_embed_adds_venue_and_organizer(catalogue):
    evt, e = catalogue["evt"], catalogue["e"]
    plain = evt.get("/events", params={"include": e["jazz"]["id"]}).json[0]
    assert "venue" not in plain and "organizer" not in plain
    for query in ("_embed=1", "_embed"):
        item = evt.app.get(evt.url(f"/events?include={e['jazz']['id']}&{query}")).json[0]
        assert item["venue"]["id"] == catalogue["v1"]["id"] and item["venue"]["name"] == "Alpha Hall"
        assert item["venue"]["event_count"] == 2
        assert item["organizer"]["id"] == catalogue["o1"]["id"] and item["organizer"]["event_count"] == 1
    no_venue = evt.get("/events", params={"include": e["today"]["id"], "_embed": "true"}).json[0]
    assert no_venue["venue"] is None and no_venue["organizer"] is None


def test_embed_leaves_out_trashed_venues_for_the_public(catalogue):
    evt, e = catalogue["evt"], catalogue["e"]
    evt.delete(f"/venues/{catalogue['v2']['id']}")
    public = evt.get("/events", params={"include": e["talk"]["id"], "_embed": "1"}).json[0]
    assert public["venue_id"] == catalogue["v2"]["id"] and public["venue"] is None
    admin = evt.get("/events", params={"include": e["talk"]["id"], "_embed": "1"}, headers=evt.admin).json[0]
    assert admin["venue"]["id"] == catalogue["v2"]["id"]


def test_venue_list(catalogue):
    evt = catalogue["evt"]
    res = evt.get("/venues")
    assert [v["name"] for v in res.json] == ["Alpha Hall", "Beta Club", "Gamma Room"]
    assert res.headers["X-Total"] == "3"
    counts = {v["name"]: v["event_count"] for v in res.json}
    assert counts == {"Alpha Hall": 2, "Beta Club": 2, "Gamma Room": 0}
    assert [v["name"] for v in evt.get("/venues", params={"order": "DESC"}).json][0] == "Gamma Room"
    assert [v["name"] for v in evt.get("/venues", params={"city": "VIENNA"}).json] == ["Alpha Hall", "Gamma Room"]
    assert [v["name"] for v in evt.get("/venues", params={"country": "fr"}).json] == ["Beta Club"]
    assert [v["name"] for v in evt.get("/venues", params={"search": "ring"}).json] == ["Alpha Hall"]
    assert [v["name"] for v in evt.get("/venues", params={"search": "beta"}).json] == ["Beta Club"]
    by_id = [v["id"] for v in evt.get("/venues", params={"orderby": "id", "order": "desc"}).json]
    assert by_id == sorted(by_id, reverse=True)
    for orderby in ("date", "modified"):
        assert len(evt.get("/venues", params={"orderby": orderby}).json) == 3
    page = evt.get("/venues", params={"per_page": 1, "page": 2})
    assert [v["name"] for v in page.json] == ["Beta Club"] and page.headers["X-TotalPages"] == "3"
    assert 'rel="next"' in page.headers["Link"] and 'rel="prev"' in page.headers["Link"]


def test_organizer_list(catalogue):
    evt = catalogue["evt"]
    res = evt.get("/organizers")
    assert [(o["name"], o["event_count"]) for o in res.json] == [("Arts Society", 1), ("Meetups", 1)]
    assert res.headers["X-Total"] == "2"
    assert [o["name"] for o in evt.get("/organizers", params={"search": "meet@"}).json] == ["Meetups"]
    assert [o["name"] for o in evt.get("/organizers", params={"orderby": "title", "order": "DESC"}).json] == [
        "Meetups", "Arts Society"]
    by_date = [o["name"] for o in evt.get("/organizers", params={"orderby": "date"}).json]
    assert by_date == ["Arts Society", "Meetups"]


@pytest.mark.parametrize("kind, param, value", [
    ("venues", "orderby", "meta_value"), ("venues", "order", "sideways"), ("venues", "per_page", "500"),
    ("organizers", "orderby", "city"), ("organizers", "page", "-1"),
])
def test_venue_and_organizer_lists_reject_bad_parameters(evt, kind, param, value):
    res = evt.get(f"/{kind}", params={param: value}, status=400)
    assert param in assert_error(res, 400, "rest_invalid_param")["data"]["params"]


def test_event_count_on_single_venue_counts_published_events_only(catalogue):
    evt = catalogue["evt"]
    assert evt.get(f"/venues/{catalogue['v1']['id']}").json["event_count"] == 2
    assert evt.get(f"/organizers/{catalogue['o1']['id']}").json["event_count"] == 1
