"""The events plugin's admin lists sorted by a column (WebTest): Events by start or title, Attendees
(every one, an event's) by name, e-mail, status or check-in time; a header's link sorts and
reverses, the pager's, the export's and the check-in forms' links keep the sort, ``aria-sort``
marks the column, a bad ``orderby``/``order`` is the 400 page naming it, and a sorted page costs
the same statements whatever the number of rows."""
from urllib.parse import parse_qs, urlsplit

import pytest

from admin.helpers import assert_page, login
from storeplatform.testing import count_queries

from .conftest import Evt


@pytest.fixture
def evt(make_site):
    evt = Evt(make_site(**{"storeplatform.plugins": "events"}))
    login(evt.site, "boss", "shop_manager")
    return evt


def ids(page, table):
    return [int(tr["data-id"]) for tr in page.html.select(f"#{table} tbody tr")]


def sort_of(url):
    query = parse_qs(urlsplit(url).query)
    return query.get("orderby", [""])[0], query.get("order", [""])[0]


def aria(page, table):
    return {th.a["data-sort"]: th.get("aria-sort") for th in page.html.select(f"#{table} thead th") if th.a}


def test_events_sort_by_start_and_title(evt):
    made = [evt.event(title, start_date=start, end_date=start)["id"]
            for title, start in (("Opera", "2031-03-01"), ("Ballet", "2031-01-01"), ("Circus", "2031-02-01"),
                                 ("Ballet", "2031-04-01"))]
    page = evt.app.get("/admin/events")
    assert ids(page, "events") == [made[3], made[0], made[2], made[1]]  # the latest start first
    assert aria(page, "events") == {"title": None, "start": "descending"}
    by_title = evt.app.get("/admin/events" + page.html.select_one("a[data-sort=title]")["href"])
    assert sort_of(by_title.request.url) == ("title", "asc")
    assert ids(by_title, "events") == [made[1], made[3], made[2], made[0]]  # equal titles by id
    assert aria(by_title, "events") == {"title": "ascending", "start": None}
    again = evt.app.get("/admin/events" + by_title.html.select_one("a[data-sort=title]")["href"])
    assert sort_of(again.request.url) == ("title", "desc")
    assert ids(again, "events") == [made[0], made[2], made[3], made[1]]
    assert ids(evt.app.get("/admin/events?orderby=start&order=asc"), "events") == [made[1], made[2], made[0], made[3]]
    assert ids(evt.app.get("/admin/events?orderby=title&search=ballet"), "events") == [made[1], made[3]]
    export = again.html.select_one("a[download]")["href"]
    assert sort_of(export) == ("title", "desc")
    lines = evt.app.get(export).body.decode("utf-8-sig").split("\r\n")[1:-1]
    assert [int(line.split(",")[0]) for line in lines] == [made[0], made[2], made[3], made[1]]


def test_events_pager_keeps_the_title_sort(evt):
    made = [evt.event(f"Event {i % 4}", start_date="2031-01-01", end_date="2031-01-01")["id"] for i in range(12)]
    first = evt.app.get("/admin/events?orderby=title&order=desc&per_page=5")
    pages = [first]
    while pages[-1].html.select_one("a[rel=next]"):
        pages.append(pages[-1].click("Next"))
    assert [sort_of(p.request.url) for p in pages[1:]] == [("title", "desc")] * 2
    expected = sorted(made, key=lambda i: (made.index(i) % 4, i), reverse=True)
    assert [i for p in pages for i in ids(p, "events")] == expected


def attendees(evt):
    gala = evt.event("Gala", start_date="2031-05-01", end_date="2031-05-01")
    talk = evt.event("Talk", start_date="2031-06-01", end_date="2031-06-01")
    sold = {}
    for event, first, last, email in ((gala, "Anna", "Nowak", "zed@example.com"),
                                      (gala, "Ben", "Adler", "bo@example.com"),
                                      (talk, "Cleo", "Park", "al@example.com"),
                                      (gala, "Dan", "Nowak", "cy@example.com")):
        [ticket] = evt.tickets(event["id"], 1, billing={"first_name": first, "last_name": last, "email": email})
        sold[first] = ticket["id"]
    return gala, talk, sold


def test_attendees_sort_by_name_email_status_and_check_in(evt):
    gala, _talk, sold = attendees(evt)
    page = evt.app.get("/admin/attendees")
    assert ids(page, "attendees") == [sold["Dan"], sold["Cleo"], sold["Ben"], sold["Anna"]]  # the newest first
    assert aria(page, "attendees") == {"name": None, "email": None, "status": None, "checked_in": None}
    by_name = evt.app.get("/admin/attendees" + page.html.select_one("a[data-sort=name]")["href"])
    assert sort_of(by_name.request.url) == ("name", "asc")
    # By last name, equal ones by id.
    assert ids(by_name, "attendees") == [sold["Ben"], sold["Anna"], sold["Dan"], sold["Cleo"]]
    assert aria(by_name, "attendees")["name"] == "ascending"
    assert ids(evt.app.get("/admin/attendees?orderby=email"), "attendees") == [
        sold["Cleo"], sold["Ben"], sold["Dan"], sold["Anna"]]
    assert ids(evt.app.get(f"/admin/events/{gala['id']}/attendees?orderby=name&order=desc"), "attendees") == [
        sold["Dan"], sold["Anna"], sold["Ben"]]
    gala_page = evt.app.get(f"/admin/events/{gala['id']}/attendees?orderby=name&order=desc")
    # The row's check-in form keeps the list's sort, and so does the list it lands on.
    form = gala_page.forms[f"checkin-{sold['Ben']}"]
    assert sort_of(form.action) == ("name", "desc")
    landed = form.submit().follow()
    assert sort_of(landed.request.url) == ("name", "desc")
    evt.post("/checkin", {"ticket_code": _code(evt, sold["Anna"])}, status=200)
    by_status = evt.app.get(f"/admin/events/{gala['id']}/attendees?orderby=status")
    assert ids(by_status, "attendees") == [sold["Dan"], sold["Anna"], sold["Ben"]]  # active, then checked_in
    checked = evt.app.get(f"/admin/events/{gala['id']}/attendees?orderby=checked_in&order=desc&status=checked_in")
    assert ids(checked, "attendees") == [sold["Anna"], sold["Ben"]]  # the latest check-in first
    export = checked.html.select_one("a[download]")["href"]
    assert sort_of(export) == ("checked_in", "desc")
    lines = evt.app.get(export).body.decode("utf-8-sig").split("\r\n")[1:-1]
    assert [int(line.split(",")[0]) for line in lines] == [sold["Anna"], sold["Ben"]]


def _code(evt, attendee_id):
    return evt.get(f"/attendees/{attendee_id}", headers=evt.admin).json["ticket_code"]


@pytest.mark.parametrize(("path", "query", "message"), [
    ("/admin/events", "orderby=venue", "orderby must be one of start, title, not &#39;venue&#39;"),
    ("/admin/events/export.csv", "orderby=title&order=random", "order must be asc or desc, not &#39;random&#39;"),
    ("/admin/attendees", "orderby=ticket", "orderby must be one of name, email, status, checked_in, created, "
                                           "not &#39;ticket&#39;"),
    ("/admin/attendees/export.csv", "order=up", "order must be asc or desc, not &#39;up&#39;"),
])
def test_a_bad_sort_is_the_400_page_naming_it(evt, path, query, message):
    assert_page(evt.app.get(f"{path}?{query}", status=400), 400, message)


def test_a_sorted_page_costs_the_same_statements_with_few_or_many_rows(evt):
    gala = evt.event("Gala", start_date="2031-05-01", end_date="2031-05-01")
    evt.tickets(gala["id"], 2, billing={"first_name": "A", "last_name": "B", "email": "a@example.com"})
    paths = ("/admin/events?orderby=title", "/admin/events?orderby=title&search=gala",
             "/admin/attendees?orderby=name", f"/admin/events/{gala['id']}/attendees?orderby=checked_in&order=asc")

    def costs():
        found = []
        for path in paths:
            evt.app.get(path)
            with count_queries(evt.site.engine) as counted:
                evt.app.get(path)
            found.append(counted())
        return found

    few = costs()
    for i in range(12):
        evt.event(f"Gala {i}", start_date="2031-05-02", end_date="2031-05-02")
    evt.tickets(gala["id"], 20, billing={"first_name": "C", "last_name": "D", "email": "c@example.com"})
    assert costs() == few
