"""Webhooks in a real Chromium: create one to a real receiver on 127.0.0.1, send a test, see the
delivery in the log; a change's delivery goes through a real Huey consumer (Redis in the
PostgreSQL run, SQLite otherwise) and appears in the log too; its page shows the request and
the response, and "Deliver again" sends the same payload through the worker."""
import pytest

from storeplatform.testing import queue_url, wait_for

from .webhook_fixtures import hooks_site, payload, signed_by
from .webhook_receiver import Receiver


@pytest.fixture
def receiver():
    """A real HTTP receiver on 127.0.0.1 for the test."""
    r = Receiver()
    yield r
    r.close()


def test_create_a_webhook_send_a_test_and_see_the_deliveries(make_site, tmp_path, receiver, browse):
    wh = hooks_site(make_site, **{"huey.url": queue_url(tmp_path)})
    browser = browse(wh.site)
    page = browser.page
    browser.login("admin", "administrator")
    browser.goto("/admin/webhooks")
    browser.screenshot("webhooks-empty")
    with page.expect_navigation():
        page.click("text=New webhook")
    # A refused form first: the errors beside the fields.
    page.fill("#field-name", "Door")
    page.fill("#field-url", "gopher://127.0.0.1/")
    with page.expect_navigation():
        page.click("#webhook-form button[type=submit]")
    assert page.inner_text("#error-url").startswith("url ")
    browser.screenshot("webhook-form-refused")
    page.fill("#field-url", receiver.url("/door"))
    page.select_option("#field-topic", "event.created")
    page.fill("#field-secret", "door-secret")
    with page.expect_navigation():
        page.click("#webhook-form button[type=submit]")
    assert page.inner_text("p.notice") == "Webhook Door created."
    row = page.locator("#webhooks tbody tr")
    assert row.count() == 1 and row.locator(".badge").inner_text() == "active"
    browser.screenshot("webhooks")
    # At desktop width a row's actions are one line of buttons, not a stack.
    page.set_viewport_size({"width": 1280, "height": 800})
    actions = row.locator(".actions").bounding_box()
    assert actions["height"] < 45, actions
    assert row.bounding_box()["height"] < 70
    assert row.locator("a.name").get_attribute("href").endswith("/deliveries")
    # The test button: its response code, and the delivery in the log.
    with page.expect_navigation():
        row.locator("button.test").click()
    assert page.inner_text("p.notice") == "Test delivery to Door: response 200."
    [received] = receiver.posts("/door")
    assert signed_by(received, "door-secret") and payload(received)["topic"] == "test"
    first = page.locator("#deliveries tbody tr")
    assert first.count() == 1
    assert first.locator("a.uuid").get_attribute("title") == received.headers["X-EVT-Delivery"]
    assert first.locator("a.uuid").inner_text() == received.headers["X-EVT-Delivery"][:8] + "…"
    assert first.locator(".response").inner_text() == "200"
    # A change: written with it, delivered by the worker, shown in the log.
    event = wh.event("Opening night")
    with wh.site.worker(workers=1):
        wait_for(lambda: len(receiver.posts("/door")) == 2, timeout=20)

        def delivered_in_log():
            page.reload()
            return page.locator("#deliveries .badge.delivered").count() == 2

        wait_for(delivered_in_log, timeout=20, interval=0.3)
        newest = page.locator("#deliveries tbody tr").first
        assert newest.locator("code").first.inner_text() == "event.created"
        assert payload(receiver.posts("/door")[1])["data"]["id"] == event["id"]
        browser.screenshot("webhook-deliveries")
        # The delivery's page: what was sent and what came back.
        with page.expect_navigation():
            newest.locator("a.uuid").click()
        sent = receiver.posts("/door")[1]
        assert page.inner_text("#request-url") == receiver.url("/door")
        assert page.inner_text("#request-body") == sent.body.decode()
        assert sent.headers["X-EVT-Signature"] in page.inner_text("#request-headers")
        assert page.inner_text("#response-code") == "200" and page.inner_text("#response-body") == "ok"
        browser.screenshot("webhook-delivery")
        # Deliver again: queued, sent by the worker, the same bytes signed the same way.
        with page.expect_navigation():
            page.click("#again-form button")
        assert page.inner_text("p.notice").startswith("Delivery queued again as ")
        wait_for(lambda: len(receiver.posts("/door")) == 3, timeout=20)
        again = receiver.posts("/door")[2]
        assert again.body == sent.body and signed_by(again, "door-secret")
        assert again.headers["X-EVT-Delivery"] != sent.headers["X-EVT-Delivery"]

        def again_in_log():
            page.reload()
            return page.locator("#deliveries .badge.delivered").count() == 3

        wait_for(again_in_log, timeout=20, interval=0.3)
        top = page.locator("#deliveries tbody tr").first
        assert top.locator("a.uuid").get_attribute("title") == again.headers["X-EVT-Delivery"]
        assert top.locator(".again-mark").count() == 1
    # Edit, pause, delete.
    browser.goto("/admin/webhooks")
    with page.expect_navigation():
        page.click("#webhooks >> text=Edit")
    browser.screenshot("webhook-form")
    page.fill("#field-name", "Front door")
    with page.expect_navigation():
        page.click("#webhook-form button[type=submit]")
    with page.expect_navigation():
        page.click("#webhooks button.pause")
    assert page.locator("#webhooks .badge").inner_text() == "paused"
    with page.expect_navigation():
        page.click("#webhooks >> text=Delete")
    browser.screenshot("webhook-delete")
    with page.expect_navigation():
        page.click("#delete-form button[type=submit]")
    assert page.inner_text("p.notice") == "Webhook Front door deleted; its delivery log stays."
    assert wh.get("/webhooks", headers=wh.admin).json == []
