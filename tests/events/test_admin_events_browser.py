"""The Events and Attendees pages in a real Chromium at phone and desktop width: filter the
events, open one, find an attendee, check them in and out by hand (REST then says so), see a
refusal on the list, and download the attendees' CSV."""
from datetime import date, timedelta

from .conftest import Evt


def day(offset):
    return (date.today() + timedelta(days=offset)).isoformat()


def test_an_owner_finds_an_event_and_checks_an_attendee_in_by_hand(make_site, browse):
    evt = Evt(make_site(**{"storeplatform.plugins": "events"}))
    hall = evt.venue("Konzerthaus")
    society = evt.organizer("Wiener Musikverein")
    gala = evt.event("New Year Gala", start_date=day(12), end_date=day(12), start_time="19:30",
                     venue_id=hall["id"], organizer_id=society["id"], capacity=300)
    for i in range(14):
        evt.event(f"Chamber evening {i + 1}", start_date=day(i * 3 - 20), end_date=day(i * 3 - 20),
                  venue_id=hall["id"], capacity=80, event_status="cancelled" if i == 4 else "scheduled")
    tickets = evt.tickets(gala["id"], 3, billing={"first_name": "Anna", "last_name": "Nowak",
                                                  "email": "anna@example.com"})
    evt.tickets(gala["id"], 2, billing={"first_name": "Bruno", "last_name": "Berg", "email": "bruno@example.com"})
    evt.post("/checkin", {"ticket_code": tickets[1]["ticket_code"]}, status=200)
    evt.put(f"/attendees/{tickets[2]['id']}", {"status": "cancelled"}, status=200)

    browser = browse(evt.site)
    page = browser.page
    browser.login("owner", "shop_manager")
    browser.goto("/admin/events")
    assert page.inner_text("h1") == "Events"
    assert page.locator("#events tbody tr").count() == 15
    browser.screenshot("events-list")

    page.select_option("#events-when", "upcoming")
    page.fill("#events-search", "gala")
    with page.expect_navigation():
        page.click("#events-filter button[type=submit]")
    row = page.locator("#events tbody tr")
    assert row.count() == 1
    assert row.locator("td[data-label=Sold]").inner_text() == "4"
    assert row.locator("td[data-label='Checked in']").inner_text() == "1"
    with page.expect_navigation():
        page.click("#events >> text=New Year Gala")
    assert page.inner_text("#event-sold").split() == ["4", "of", "300"]
    browser.screenshot("events-event")

    with page.expect_navigation():
        page.click("#event-attendees")
    assert page.locator("#attendees tbody tr").count() == 5
    browser.screenshot("attendees-list")

    page.fill("#attendees-search", "nowak")
    with page.expect_navigation():
        page.click("#attendees-filter button[type=submit]")
    first = tickets[0]
    with page.expect_navigation():
        page.click(f"#checkin-{first['id']} button")
    assert f"Ticket {first['ticket_code']} checked in." in page.inner_text("p.notice")
    assert page.input_value("#attendees-search") == "nowak"  # the list's filter kept
    assert evt.get(f"/attendees/{first['id']}", headers=evt.admin).json["status"] == "checked_in"
    browser.screenshot("attendees-checked-in")

    # Someone at the door checks Anna out meanwhile: the page's "Check out" is refused, and says so.
    evt.post("/checkin/checkout", {"ticket_code": first["ticket_code"]}, status=200)
    with page.expect_navigation():
        page.click(f"#checkout-{first['id']} button")
    assert "This attendee is not checked in." in page.inner_text("#attendees-problem")
    browser.screenshot("attendees-refused")

    with page.expect_download() as download:
        page.click("a[download]")
    with open(download.value.path(), encoding="utf-8-sig") as exported:  # after the BOM
        lines = exported.read().splitlines()
    assert lines[0].startswith("id,ticket_code,first_name") and len(lines) == 4  # the three Nowak tickets
