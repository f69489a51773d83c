"""The admin's Events pages (WebTest): the list (search, event status, upcoming/past, start
dates, paging) with venue, organizer, capacity, sold and checked in per row at a constant number
of statements per page, its CSV export, an event's page, and bad input as clean 400/404 pages."""
from datetime import date, timedelta

import pytest

from admin.helpers import assert_page, login, token
from storeplatform.testing import count_queries

from .conftest import Evt

TODAY = date.today()


def day(offset):
    return (TODAY + timedelta(days=offset)).isoformat()


def titles(page):
    return [a.text for a in page.html.select("#events tbody td[data-label=Event] > a")]


def cells(page, label):
    return [td.text.strip() for td in page.html.select(f"#events tbody td[data-label='{label}']")]


@pytest.fixture
def office(make_site):
    evt = Evt(make_site(**{"storeplatform.plugins": "events"}))
    login(evt.site, "boss", "shop_manager")
    return evt


def test_the_list_shows_each_event_with_its_places_capacity_sold_and_checked_in(office):
    evt = office
    hall = evt.venue("Town Hall")
    society = evt.organizer("Music Society")
    gala = evt.event("Gala", start_date=day(10), end_date=day(10), start_time="19:30", venue_id=hall["id"],
                     organizer_id=society["id"], capacity=120)
    evt.event("Lecture", start_date=day(-30), end_date=day(-30))
    tickets = evt.tickets(gala["id"], 4)
    evt.post("/checkin", {"ticket_code": tickets[0]["ticket_code"]}, status=200)
    evt.post("/checkin", {"ticket_code": tickets[1]["ticket_code"]}, status=200)
    evt.post("/checkin/checkout", {"ticket_code": tickets[1]["ticket_code"]}, status=200)
    evt.put(f"/attendees/{tickets[3]['id']}", {"status": "cancelled"}, status=200)
    page = assert_page(evt.app.get("/admin/events"), 200, "Events")
    assert titles(page) == ["Gala", "Lecture"]  # latest start first
    assert cells(page, "Venue") == ["Town Hall", ""] and cells(page, "Organizer") == ["Music Society", ""]
    assert cells(page, "Capacity") == ["120", ""]
    # Sold: every ticket not cancelled; checked in: who came in (checked out again included).
    assert cells(page, "Sold") == ["3", "0"] and cells(page, "Checked in") == ["2", "0"]
    assert cells(page, "Starts")[0].startswith(f"{day(10)} 19:30")
    assert page.html.select_one(".list-total").text.strip() == "1–2 of 2 events."
    # The figures are numbers in their own column class (right-aligned by admin.css).
    assert all("num" in td["class"] for td in page.html.select("#events tbody td[data-label=Sold]"))


def test_search_status_when_and_start_dates_filter_the_list(office):
    evt = office
    evt.event("Spring Concert", start_date=day(5), end_date=day(5))
    evt.event("Autumn Concert", start_date=day(-5), end_date=day(-5), event_status="cancelled")
    evt.event("Running today", start_date=day(-1), end_date=day(1))
    evt.event("Poetry night", start_date=day(40), end_date=day(40), event_status="postponed")
    evt.event("Draft show", start_date=day(50), end_date=day(50), status="draft")
    gone = evt.event("Trashed", start_date=day(3), end_date=day(3))
    evt.delete(f"/events/{gone['id']}", status=200)

    def listed(**params):
        return titles(assert_page(evt.app.get("/admin/events", params), 200))

    assert listed() == ["Draft show", "Poetry night", "Spring Concert", "Running today", "Autumn Concert"]
    assert listed(search="CONCERT") == ["Spring Concert", "Autumn Concert"]
    assert listed(status="cancelled") == ["Autumn Concert"]
    # Upcoming: not ended (today's included), soonest first; past: ended before today.
    assert listed(when="upcoming") == ["Running today", "Spring Concert", "Poetry night", "Draft show"]
    assert listed(when="past") == ["Autumn Concert"]
    assert listed(**{"from": day(0), "to": day(40)}) == ["Poetry night", "Spring Concert"]
    assert listed(when="upcoming", search="concert") == ["Spring Concert"]
    assert listed(search="100%_\\") == []
    page = evt.app.get("/admin/events", {"search": "concert", "status": "scheduled"})
    assert page.html.select_one(".list-total").text.strip() == "1–1 of 1 event found."
    # Totals of filters on the events' own columns are counted without the trashed event.
    for params, total in (({"when": "upcoming"}, "1–4 of 4 events"), ({"when": "past"}, "1–1 of 1 event"),
                          ({"status": "scheduled"}, "1–3 of 3 events"), ({"from": day(3), "to": day(3)}, "0 events")):
        page = evt.app.get("/admin/events", params)
        assert page.html.select_one(".list-total").text.strip() == f"{total} found.", params
    # The draft is marked; the export link keeps the filters.
    draft = assert_page(evt.app.get("/admin/events", {"search": "draft"}), 200)
    assert draft.html.select_one("#events .badge-warn").text == "draft"
    export = draft.html.select_one("a[download]")["href"]
    assert export == "http://localhost/admin/events/export.csv?search=draft"


def test_paging_reads_every_event_once_and_a_page_past_the_last_shows_the_last(office):
    evt = office
    for i in range(53):
        evt.event(f"Event {i:02d}", start_date=day(i), end_date=day(i))
    first = assert_page(evt.app.get("/admin/events"), 200)
    assert len(titles(first)) == 50 and "Page 1 of 2" in first.text
    second = assert_page(first.click("Next"), 200)
    assert titles(second) == ["Event 02", "Event 01", "Event 00"]
    assert set(titles(first)) | set(titles(second)) == {f"Event {i:02d}" for i in range(53)}
    assert titles(assert_page(evt.app.get("/admin/events", {"page": "99"}), 200)) == titles(second)
    assert titles(assert_page(second.click("Previous"), 200)) == titles(first)
    upcoming = assert_page(evt.app.get("/admin/events", {"when": "upcoming", "page": "2"}), 200)
    assert titles(upcoming) == ["Event 50", "Event 51", "Event 52"]
    assert upcoming.html.select_one("a[rel=prev]")["href"].endswith("/admin/events?when=upcoming")


@pytest.mark.parametrize("params, message", [
    ({"page": "0"}, "page must be a whole number"),
    ({"page": "abc"}, "page must be a whole number"),
    ({"page": "9" * 30}, "page must be a whole number"),
    ({"status": "nope"}, "status must be one of"),
    ({"when": "tomorrow"}, "when must be one of"),
    ({"from": "2026-02-30"}, "from must be a date"),
    ({"to": "yesterday"}, "to must be a date"),
    ({"from": "2026-05-02", "to": "2026-05-01"}, "from must not be after to"),
])
def test_bad_query_values_are_a_400_page_that_says_which(office, params, message):
    assert_page(office.app.get("/admin/events", params, status=400), 400, message)
    assert_page(office.app.get("/admin/events/export.csv", params, status=400), 400, message)


def test_a_query_that_is_not_utf8_is_a_400_page(office):
    assert_page(office.app.get("/admin/events?search=%ff%fe", status=400), 400)


def test_a_page_costs_the_same_statements_with_3_or_30_events(office):
    evt = office
    hall = evt.venue("Hall")
    org = evt.organizer("Org")

    def statements(params):
        evt.app.get("/admin/events", params)  # warm: the site's options, the session
        with count_queries(evt.site.engine) as n:
            assert_page(evt.app.get("/admin/events", params), 200)
        return n()

    def add(count):
        for i in range(count):
            e = evt.event(f"E{i}", start_date=day(i), end_date=day(i), venue_id=hall["id"], organizer_id=org["id"],
                          capacity=10)
            if i % 5 == 0:
                evt.tickets(e["id"], 2)

    add(3)
    few = {name: statements(params) for name, params in
           (("all", {}), ("search", {"search": "E"}), ("upcoming", {"when": "upcoming"}))}
    add(27)
    many = {name: statements(params) for name, params in
            (("all", {}), ("search", {"search": "E"}), ("upcoming", {"when": "upcoming"}))}
    assert few == many
    assert many["all"] <= 8, many


def test_the_csv_export_has_every_matching_event_with_its_figures(office):
    evt = office
    hall = evt.venue("Hall, \"Main\"")
    gala = evt.event("=Gala", start_date="2031-03-04", end_date="2031-03-05", start_time="20:00",
                     venue_id=hall["id"], capacity=50)
    evt.event("Other", start_date="2020-01-01", end_date="2020-01-01")
    tickets = evt.tickets(gala["id"], 2)
    evt.post("/checkin", {"ticket_code": tickets[0]["ticket_code"]}, status=200)
    res = evt.app.get("/admin/events/export.csv", {"search": "gala"})
    assert res.content_type == "text/csv" and res.headers["Content-Disposition"].startswith(
        'attachment; filename="events-')
    assert res.body == b"\xef\xbb\xbf" + (
        b"id,title,status,event_status,start_date,start_time,end_date,venue,organizer,capacity,sold,checked_in\r\n"
        + f"{gala['id']},'=Gala,publish,scheduled,2031-03-04,20:00,2031-03-05,\"Hall, \"\"Main\"\"\",,50,2,1\r\n"
        .encode())
    everything = evt.app.get("/admin/events/export.csv").text.splitlines()
    assert len(everything) == 3 and everything[2].startswith(f"{gala['id'] + 1},Other,")


def test_an_event_page_shows_its_figures_and_links(office):
    evt = office
    gala = evt.event("Gala", start_date=day(2), end_date=day(2), capacity=80)
    tickets = evt.tickets(gala["id"], 3)
    evt.post("/checkin", {"ticket_code": tickets[0]["ticket_code"]}, status=200)
    page = assert_page(evt.app.get(f"/admin/events/{gala['id']}"), 200, "Gala")
    assert page.html.select_one("#event-sold").text.split() == ["3", "of", "80"]
    assert page.html.select_one("#event-checked-in").text == "1"
    assert page.html.select_one("#event-pending").text == "2"
    attendees = assert_page(page.click(href=f"/admin/events/{gala['id']}/attendees$"), 200, "Attendees of Gala")
    assert len(attendees.html.select("#attendees tbody tr")) == 3
    assert_page(evt.app.get("/admin/events").click("Gala"), 200, "Check-in desk")


@pytest.mark.parametrize("path", ["/admin/events/999999", "/admin/events/" + "9" * 30, "/admin/events/0",
                                  "/admin/events/abc"])
def test_unknown_events_are_404_pages(office, path):
    assert_page(office.app.get(path, status=404), 404)


def test_a_trashed_event_or_another_post_is_not_an_event_page(office):
    evt = office
    gone = evt.event("Gone", start_date=day(1), end_date=day(1))
    evt.delete(f"/events/{gone['id']}", status=200)
    hall = evt.venue("Hall")
    for post_id in (gone["id"], hall["id"]):
        assert_page(evt.app.get(f"/admin/events/{post_id}", status=404), 404)


def test_the_pages_need_manage_shop(make_site):
    evt = Evt(make_site(**{"storeplatform.plugins": "events"}))
    assert evt.app.get("/admin/events", status=303).location.startswith("http://localhost/admin/login")
    assert evt.app.get("/admin/events/export.csv", status=303)
    login(evt.site, "writer", "editor")
    assert_page(evt.app.get("/admin/events", status=403), 403)
    assert_page(evt.app.get("/admin/events/export.csv", status=403), 403)
    gala = evt.event("Gala", start_date=day(1), end_date=day(1))
    ticket = evt.tickets(gala["id"])[0]
    for path in ("/admin/attendees", f"/admin/events/{gala['id']}", f"/admin/events/{gala['id']}/attendees",
                 "/admin/attendees/export.csv"):
        assert_page(evt.app.get(path, status=403), 403)
    page = evt.app.get("/admin/")
    assert_page(evt.app.post(f"/admin/attendees/{ticket['id']}/checkin", {"csrf_token": token(page)}, status=403),
                403)
    assert evt.get(f"/attendees/{ticket['id']}", headers=evt.admin).json["status"] == "active"
    assert "Events" not in [a.text for a in evt.app.get("/admin/").html.select(".menu nav a")]
