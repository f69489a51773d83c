"""The event form's venue and organizer when there are too many for a <select> (#40): above
``SELECT_LIMIT`` (set low here) the field takes a name or an id, which the submit resolves (one
place: taken; several: listed beside the field to choose from; none: refused there, nothing
written); the edited event's venue shows by name; a place made on the spot still works; no id
typed or sent is ever a 500. With JavaScript, names are suggested from REST as they are typed."""
from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from admin.helpers import assert_page, login, token
from storeplatform_events import admin_event_form

from .conftest import Evt

API = "/api/events/v1"
EVENT = {"title": "Spring concert", "content": "", "excerpt": "", "start_date": "2031-04-10", "start_time": "19:30",
         "end_date": "", "end_time": "", "timezone": "UTC", "all_day": "false", "capacity": "0",
         "event_status": "scheduled", "event_type": "in-person", "virtual_url": "", "featured": "false",
         "categories-sent": "1", "status": "publish", "organizer_id": ""}


@pytest.fixture
def evt(make_site, monkeypatch):
    monkeypatch.setattr(admin_event_form, "SELECT_LIMIT", 2)
    evt = Evt(make_site(**{"storeplatform.plugins": "events"}))
    evt.halls = {name: evt.venue(name)["id"] for name in ("Hall", "Town Hall", "Hall B", "Konzerthaus")}
    evt.organizer("Society")  # one organizer: under the limit, still a <select>
    login(evt.site, "owner", "shop_manager")
    return evt


def send(evt, fields, path="/admin/events/new", status=303):
    page = evt.app.get(path)
    return evt.app.post(path, {"csrf_token": token(page), **EVENT, **fields}, status=status)


def made(evt, res):
    return evt.get(f"/events/{res.location.rsplit('/', 1)[1]}", headers=evt.admin).json


def events(evt):
    return evt.get("/events", headers=evt.admin).json


def test_over_the_limit_the_venue_is_a_text_field_not_a_select(evt, monkeypatch):
    page = assert_page(evt.app.get("/admin/events/new"), 200, "New event")
    assert 'id="field-venue_id-find"' in page.text and 'name="venue_id-find"' in page.text
    assert '<select id="field-venue_id"' not in page.text and "Konzerthaus" not in page.text
    assert "/event_form.js\" defer></script>" in page.text and "<script>" not in page.text
    assert 'data-suggest="/api/events/v1/venues"' in page.text
    assert '<select id="field-organizer_id"' in page.text and ">Society</option>" in page.text
    # Under the limit nothing changes: no text field, no script.
    monkeypatch.setattr(admin_event_form, "SELECT_LIMIT", 200)
    page = evt.app.get("/admin/events/new")
    assert '<select id="field-venue_id"' in page.text and "venue_id-find" not in page.text
    assert "event_form.js" not in page.text


@pytest.mark.parametrize("typed, venue", [("konzert", "Konzerthaus"), ("HALL", "Hall"), ("own ha", "Town Hall")])
def test_a_typed_name_that_names_one_venue_is_taken(evt, typed, venue):
    # One match taken; an exact name (case aside) wins over the names containing it.
    res = send(evt, {"venue_id": "", "venue_id-find": typed})
    assert made(evt, res)["venue_id"] == evt.halls[venue]


def test_a_typed_id_is_taken(evt):
    res = send(evt, {"venue_id": "", "venue_id-find": str(evt.halls["Hall B"])})
    assert made(evt, res)["venue_id"] == evt.halls["Hall B"]


def test_a_name_of_several_venues_lists_them_to_choose_from(evt):
    res = send(evt, {"venue_id": "", "venue_id-find": "hal"}, status=400)
    assert_page(res, 400, "Nothing was saved")
    assert 'id="error-venue_id"' in res.text and "several venues match “hal”: choose one" in res.text
    choices = res.html.select("#matches-venue_id input[type=radio]")
    assert sorted(int(c["value"]) for c in choices) == sorted(evt.halls[n] for n in ("Hall", "Town Hall", "Hall B"))
    assert res.html.select_one("#field-venue_id-find")["value"] == "hal"  # as typed
    assert events(evt) == []
    # The form as the browser sends it again, with one of them chosen.
    form = res.forms["event-form"]
    form["venue_id-pick"] = str(evt.halls["Town Hall"])
    assert made(evt, form.submit(status=303))["venue_id"] == evt.halls["Town Hall"]


def test_more_matches_than_shown_say_so(evt, monkeypatch):
    monkeypatch.setattr(admin_event_form, "MATCHES_SHOWN", 2)
    res = send(evt, {"venue_id": "", "venue_id-find": "hal"}, status=400)
    assert len(res.html.select("#matches-venue_id input[type=radio]")) == 2
    assert "type more of the name" in res.text


def test_an_unknown_name_is_refused_beside_the_field_and_nothing_is_written(evt):
    res = send(evt, {"venue_id": "", "venue_id-find": "Nowhere", "organizer_id": "new",
                     "new_organizer": "Made then undone"}, status=400)
    assert_page(res, 400, "Nothing was saved")
    error = res.html.select_one("#error-venue_id").text
    assert error == "no venue is named “Nowhere” or has that id"
    assert res.html.select_one("#field-venue_id-find")["value"] == "Nowhere"
    assert events(evt) == []
    assert [o["name"] for o in evt.get("/organizers").json] == ["Society"]
    assert len(evt.get("/venues").json) == 4


@pytest.mark.parametrize("fields", [
    {"venue_id-find": "99999999999999999999"}, {"venue_id-find": "2147483648"}, {"venue_id-find": "0"},
    {"venue_id-find": "abc"}, {"venue_id-find": "%_\\"}, {"venue_id-find": "Hall", "venue_id-pick": "99999999999"},
    {"venue_id-find": "Hall", "venue_id-pick": "999999999"}, {"venue_id-find": "hal", "venue_id-pick": "x1"},
    {"venue_id": "99999999999999999999", "venue_id-find": "Hall B"}, {"venue_id": "abc", "venue_id-find": ""},
])
def test_a_bad_id_is_never_a_500(evt, fields):
    res = send(evt, {"venue_id": "", **fields}, status="*")
    assert res.status_int in (303, 400), res.status
    if res.status_int == 400:
        assert 'id="error-venue_id"' in res.text
        assert events(evt) == []


def test_the_edited_event_shows_its_venue_by_name_and_keeps_it(evt):
    twin = evt.venue("Konzerthaus")["id"]  # the same name twice: the id kept decides, not the name
    event = evt.event("Gala", start_date="2031-05-01", venue_id=twin, status="publish")
    page = assert_page(evt.app.get(f"/admin/events/{event['id']}/edit"), 200, "Gala")
    assert page.html.select_one("#field-venue_id-find")["value"] == "Konzerthaus"
    assert page.html.select_one("#field-venue_id")["value"] == str(twin)
    form = page.forms["event-form"]
    form["title"] = "Gala night"
    form.submit(status=303)
    after = evt.get(f"/events/{event['id']}").json
    assert (after["title"], after["venue_id"]) == ("Gala night", twin)
    # The other one typed by its id; then none (the field emptied).
    send(evt, {"venue_id": str(twin), "venue_id-find": str(evt.halls["Konzerthaus"])},
         path=f"/admin/events/{event['id']}/edit")
    assert evt.get(f"/events/{event['id']}").json["venue_id"] == evt.halls["Konzerthaus"]
    send(evt, {"venue_id": str(evt.halls["Konzerthaus"]), "venue_id-find": ""},
         path=f"/admin/events/{event['id']}/edit")
    assert evt.get(f"/events/{event['id']}").json["venue_id"] in (None, 0)


def test_a_venue_is_still_made_on_the_spot(evt):
    page = evt.app.get("/admin/events/new")
    form = page.forms["event-form"]
    form["title"] = "Open air"
    form["venue_id-find"] = "ignored when a new one is ticked"
    form.get("venue_id", index=1).checked = True  # the "New venue" box, after the hidden id
    form["new_venue"] = "Arena"
    res = form.submit(status=303)
    venue_id = made(evt, res)["venue_id"]
    assert evt.get(f"/venues/{venue_id}").json["name"] == "Arena"
    # Refused elsewhere: the box stays ticked, the name kept, nothing made.
    res = send(evt, {"title": " ", "venue_id": "new", "new_venue": "Stadium"}, status=400)
    assert res.html.select_one("#field-venue_id-new").has_attr("checked")
    assert res.html.select_one("#field-new_venue")["value"] == "Stadium"
    assert "Stadium" not in [v["name"] for v in evt.get("/venues").json]


def test_under_the_limit_a_refused_form_keeps_the_new_venue_chosen(evt, monkeypatch):
    monkeypatch.setattr(admin_event_form, "SELECT_LIMIT", 200)
    res = send(evt, {"title": " ", "venue_id": "new", "new_venue": "Stadium"}, status=400)
    assert res.html.select_one("#field-venue_id option[selected]")["value"] == "new"
    assert res.html.select_one("#field-new_venue")["value"] == "Stadium"


def test_an_owner_picks_a_suggested_venue_in_chromium(evt, browse):
    browser = browse(evt.site)
    page = browser.page
    browser.login("owner", "shop_manager")
    browser.goto("/admin/events/new")
    page.fill("#field-title", "Chamber evening")
    page.fill("#field-start_date", (date.today() + timedelta(days=30)).isoformat())
    field = page.locator("#field-venue_id-find")
    field.press_sequentially("zzq", delay=30)
    expect(page.locator("#suggest-venue_id li.place-none")).to_have_text("Nothing matches “zzq”.")
    field.fill("")
    field.press_sequentially("konz", delay=30)
    options = page.locator("#suggest-venue_id li[role=option]")
    options.first.wait_for()
    assert options.all_inner_texts() == ["Konzerthaus"]
    assert page.get_attribute("#field-venue_id-find", "aria-expanded") == "true"
    browser.screenshot("event-form-venue-suggested")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")  # the suggestion chosen, the form not sent
    assert page.input_value("#field-venue_id-find") == "Konzerthaus"
    assert page.input_value("#field-venue_id") == str(evt.halls["Konzerthaus"])
    assert page.locator("#suggest-venue_id").is_hidden()
    with page.expect_navigation():
        page.click("#event-form button[type=submit]")
    assert page.inner_text("p.notice") == "Chamber evening created."
    event = [e for e in events(evt) if e["title"] == "Chamber evening"][0]
    assert event["venue_id"] == evt.halls["Konzerthaus"]
