"""The check-in desk in a real Chromium: a fake camera shows a real ticket's QR code (its PNG from
``GET events/v1/tickets/<code>/qr`` made into a .y4m video), the page decodes it (the browser's
BarcodeDetector where it has one, the vendored jsQR otherwise) and checks the ticket in; REST
then says ``checked_in`` and the webhook reaches a real receiver on 127.0.0.1 through a real
queue and worker. Typed codes give every other result. Screenshots at phone and desktop width."""
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
    expect(page.locator("#desk-result")).not_to_have_attribute("data-result", re.compile("^(idle|sending)$"))
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
