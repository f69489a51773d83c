"""The check-in desk in a real Chromium: a fake camera shows a real ticket's QR code (its PNG from
``GET events/v1/tickets/<code>/qr`` made into a .y4m video), the page decodes it (the browser's
BarcodeDetector where it has one, the vendored jsQR otherwise) and checks the ticket in; REST
then says ``checked_in`` and the webhook reaches a real receiver on 127.0.0.1 through a real
queue and worker. Typed codes give every other result. Scan answers held back (Playwright's route
interception) show the "Checking…" state and codes queued meanwhile, checked in order. The event
chooser's parts. Screenshots at phone and desktop width."""
import json
import re
from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from storeplatform.testing import queue_url, wait_for

from .fake_camera import write_y4m
from .webhook_fixtures import hooks_site, signed_by
from .webhook_receiver import Receiver

BILLING = {"first_name": "Anna", "last_name": "Nowak", "email": "anna@example.com"}


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def door(make_site, tmp_path, receiver):
    hooks = hooks_site(make_site, **{"huey.url": queue_url(tmp_path)})
    today = date.today().isoformat()
    event = hooks.event("Gala night", start_date=today, end_date=today)
    other = hooks.event("Matinee", start_date=(date.today() + timedelta(days=2)).isoformat(),
                        end_date=(date.today() + timedelta(days=2)).isoformat())
    tickets = hooks.tickets(event["id"], 3, billing=BILLING)
    foreign = hooks.tickets(other["id"], 1, billing={**BILLING, "first_name": "Bruno", "last_name": "Berg"})[0]
    hooks.put(f"/attendees/{tickets[2]['id']}", {"status": "cancelled"}, status=200)
    webhook = hooks.webhook("attendee.checked_in", receiver.url("/door"))
    png = hooks.app.get(f"/api/events/v1/tickets/{tickets[0]['ticket_code']}/qr", status=200)
    assert png.content_type == "image/png"
    video = write_y4m(png.body, tmp_path / "ticket.y4m")
    return {"hooks": hooks, "event": event, "tickets": tickets, "foreign": foreign, "webhook": webhook,
            "video": video}


def result_of(page):
    # Locator expectations, not wait_for_function: the admin's CSP refuses a string evaluated
    # in the page, as it should.
    expect(page.locator("#desk-result")).not_to_have_attribute("data-result", re.compile("^(idle|sending|checking)$"))
    return page.eval_on_selector("#desk-result", "el => el.dataset.result")


def type_code(page, code):
    page.evaluate("document.getElementById('desk-result').dataset.result = 'sending'")
    page.fill("#desk-code", code)
    page.press("#desk-code", "Enter")
    return result_of(page)


def test_the_camera_checks_a_ticket_in_and_the_webhook_arrives(door, browse, receiver):
    hooks, ticket = door["hooks"], door["tickets"][0]
    with hooks.site.worker(workers=1):
        browser = browse(hooks.site, "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                         f"--use-file-for-fake-video-capture={door['video']}")
        page = browser.login("manager", "shop_manager")
        browser.goto("/admin/checkin")
        page.wait_for_selector("text=Gala night")
        browser.screenshot("events-checkin-choose")
        with page.expect_navigation():
            page.click("text=Gala night")
        assert page.inner_text("h1") == "Gala night"
        browser.screenshot("events-checkin-desk-ready")

        page.click("#desk-camera")
        expect(page.locator("#desk-result")).to_have_attribute("data-result", "checked_in", timeout=30_000)
        has_detector = page.evaluate("'BarcodeDetector' in window")
        assert page.eval_on_selector("#desk", "el => el.dataset.decoder") == (
            "BarcodeDetector" if has_detector else "jsQR")
        assert page.inner_text("#desk-result-title") == "Checked in"
        assert page.inner_text("#desk-result-name") == "Anna Nowak"
        assert page.inner_text("#desk-result-code") == ticket["ticket_code"]
        expect(page.locator("#desk-stat-in")).to_have_text("1")
        assert "Anna Nowak" in page.inner_text("#desk-recent")
        browser.screenshot("events-checkin-desk-checked-in")

        # REST says checked_in; the webhook reached the receiver, signed, through the worker.
        stored = hooks.get(f"/attendees/{ticket['id']}", headers=hooks.admin).json
        assert stored["status"] == "checked_in"
        wait_for(lambda: receiver.posts("/door"), timeout=20)
        [received] = receiver.posts("/door")
        body = json.loads(received.body)
        assert body["topic"] == "attendee.checked_in" and body["webhook_id"] == door["webhook"]["id"]
        assert body["data"]["ticket_code"] == ticket["ticket_code"] and body["data"]["status"] == "checked_in"
        assert signed_by(received, door["webhook"]["secret"])
        # The ticket still in view is not scanned again (no "already in" flicker, no second webhook).
        page.wait_for_timeout(1500)
        assert page.eval_on_selector("#desk-result", "el => el.dataset.result") == "checked_in"
        assert len(receiver.posts("/door")) == 1
        page.click("#desk-camera")  # off


def test_typed_codes_give_every_result(door, browse):
    hooks, tickets = door["hooks"], door["tickets"]
    browser = browse(hooks.site)
    browser.login("manager", "shop_manager")
    browser.goto(f"/admin/checkin/{door['event']['id']}")
    page = browser.page

    assert type_code(page, tickets[1]["ticket_code"].lower()) == "checked_in"
    assert page.inner_text("#desk-result-name") == "Anna Nowak"
    assert hooks.get(f"/attendees/{tickets[1]['id']}", headers=hooks.admin).json["status"] == "checked_in"

    assert type_code(page, tickets[1]["ticket_code"]) == "already_in"
    assert page.inner_text("#desk-result-title") == "Already checked in"
    browser.screenshot("events-checkin-desk-already-in")

    assert type_code(page, tickets[2]["ticket_code"]) == "cancelled"
    assert page.inner_text("#desk-result-title") == "Cancelled ticket"

    assert type_code(page, door["foreign"]["ticket_code"]) == "wrong_event"
    assert page.inner_text("#desk-result-name") == "Bruno Berg"
    assert "Matinee" in page.inner_text("#desk-result-detail")
    browser.screenshot("events-checkin-desk-wrong-event")
    assert hooks.get(f"/attendees/{door['foreign']['id']}", headers=hooks.admin).json["status"] == "active"

    assert type_code(page, "NO-SUCH-TICKET") == "unknown"
    assert page.inner_text("#desk-result-title") == "Unknown ticket"
    assert page.inner_text("#desk-result-name") == ""

    # Text the desk refuses is said as such, and the live numbers stayed right.
    page.evaluate("document.getElementById('desk-code').removeAttribute('maxlength')")
    assert type_code(page, "X" * 100 + "Y") == "problem"
    assert "at most 100 characters" in page.inner_text("#desk-result-detail")
    expect(page.locator("#desk-stat-in")).to_have_text("1")
    assert page.inner_text("#desk-stat-cancelled") == "1"


def test_a_scan_after_the_session_ended_says_so(door, browse):
    hooks = door["hooks"]
    browser = browse(hooks.site)
    browser.login("manager", "shop_manager")
    browser.goto(f"/admin/checkin/{door['event']['id']}")
    page = browser.page
    browser.context.clear_cookies()  # as after a logout in another tab, or the session's end
    assert type_code(page, door["tickets"][0]["ticket_code"]) == "problem"
    assert "logged out" in page.inner_text("#desk-result-detail")
    assert hooks.get(f"/attendees/{door['tickets'][0]['id']}", headers=hooks.admin).json["status"] == "active"


def test_a_scan_in_flight_says_checking_and_codes_meanwhile_wait_their_turn(door, browse):
    hooks, tickets = door["hooks"], door["tickets"]
    browser = browse(hooks.site)
    browser.login("manager", "shop_manager")
    browser.goto(f"/admin/checkin/{door['event']['id']}")
    page = browser.page
    held = []  # the scan requests, answered when the test lets them through
    page.route("**/admin/checkin/*/scan", lambda route: held.append(route))
    first, second, unknown = tickets[0]["ticket_code"], tickets[1]["ticket_code"], "NO-SUCH-CODE"
    box = page.locator("#desk-result")

    # A result is on the box; the next scan replaces it with "Checking…" at once.
    page.fill("#desk-code", "EARLIER-CODE")
    page.press("#desk-code", "Enter")
    expect(box).to_have_attribute("data-result", "checking")
    expect(page.locator("#desk-result-code")).to_have_text("EARLIER-CODE")
    until_held(page, held)
    held.pop(0).fulfill(status=200, content_type="application/json",
                        body=json.dumps({"result": "unknown", "title": "Unknown ticket", "message": "No such ticket.",
                                         "attendee": None, "checked_in_at": None}))
    expect(box).to_have_attribute("data-result", "unknown")

    page.fill("#desk-code", first)
    page.press("#desk-code", "Enter")
    expect(box).to_have_attribute("data-result", "checking")
    assert page.inner_text("#desk-result-title") == "Checking…"
    assert page.inner_text("#desk-result-code") == first and page.inner_text("#desk-result-name") == ""
    # Typed while the first is on its way: queued, shown, none dropped; the same code again
    # (on its way, or already waiting) is not queued twice.
    for code in (second, unknown, first, second):
        page.fill("#desk-code", code)
        page.press("#desk-code", "Enter")
        expect(page.locator("#desk-code")).to_have_value("")
    queued = page.locator("#desk-queue li")
    expect(queued).to_have_count(2)
    assert [queued.nth(i).get_attribute("data-code") for i in range(2)] == [second, unknown]
    assert "2 more waiting" in page.inner_text("#desk-result-detail")
    browser.screenshot("events-checkin-desk-checking")

    # Let them through one by one: each answered in order, the next one "Checking…" after it.
    order = []
    for code, result in ((first, "checked_in"), (second, "checked_in"), (unknown, "unknown")):
        until_held(page, held)
        route = held.pop(0)
        order.append(_posted_code(route.request.post_data))
        expect(page.locator("#desk-result-code")).to_have_text(code)
        assert box.get_attribute("data-result") == "checking"
        route.continue_()
        expect(box).to_have_attribute("data-result", result, timeout=10_000)
    assert order == [first, second, unknown]
    expect(page.locator("#desk-queue")).to_be_hidden()
    history = page.locator("#desk-history li")
    expect(history).to_have_count(4)
    assert [history.nth(i).get_attribute("data-code") for i in range(4)] == [unknown, second, first, "EARLIER-CODE"]
    assert [history.nth(i).get_attribute("data-result") for i in range(3)] == ["unknown", "checked_in", "checked_in"]
    for ticket in tickets[:2]:
        assert hooks.get(f"/attendees/{ticket['id']}", headers=hooks.admin).json["status"] == "checked_in"
    expect(page.locator("#desk-stat-in")).to_have_text("2")
    assert not held
    browser.screenshot("events-checkin-desk-after-queue")


def until_held(page, held, timeout_ms=10_000):
    """Wait (letting Playwright handle the page's requests) until a scan request is held."""
    waited = 0
    while len(held) != 1:
        assert waited < timeout_ms, f"{len(held)} scan requests held"
        page.wait_for_timeout(50)
        waited += 50


def _posted_code(body):
    from urllib.parse import parse_qs

    return parse_qs(body)["code"][0]


def test_the_chooser_shows_today_upcoming_and_past(door, browse):
    hooks = door["hooks"]
    past = hooks.event("Last spring", start_date=(date.today() - timedelta(days=200)).isoformat(),
                       end_date=(date.today() - timedelta(days=200)).isoformat())
    browser = browse(hooks.site)
    browser.login("manager", "shop_manager")
    browser.goto("/admin/checkin")
    page = browser.page
    assert page.locator("#desk-today-list a").all_inner_texts()[0].startswith("Gala night")
    assert "Matinee" in page.inner_text("#desk-upcoming-list")
    assert "Last spring" in page.inner_text("#desk-past-list")
    browser.screenshot("events-checkin-choose-parts")
    page.fill("#desk-search-text", "spring")
    with page.expect_navigation():
        page.press("#desk-search-text", "Enter")
    assert page.locator("#desk-found-list a").count() == 1
    with page.expect_navigation():
        page.click("#desk-found-list a")
    assert page.inner_text("h1") == "Last spring" and past["id"]
