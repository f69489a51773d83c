"""The owner's story in a real Chromium, from an empty site (#40): every step through the admin's
pages, by links and forms. The owner (an administrator) names the credit notes' prefix in the
settings and makes a user for the door; makes a venue, an event there and its two ticket types;
sells a Standard ticket and two VIP tickets in manual orders; the door checks the Standard ticket
in at the desk; the owner refunds the VIP order in full (review, then confirm): its tickets are
cancelled and a credit note is made by the worker. The orders' histories (the check-in among
them) and the audit log tell it all. Screenshots of each step at phone and desktop width.

On SQLite and on PostgreSQL + Redis: the marker ``both_backends`` lets .ci/run's PostgreSQL pass
run this one browser test too."""
import re
from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from storeplatform.testing import queue_url, wait_for

pytestmark = pytest.mark.both_backends

DOOR_PASSWORD = "door-password-4921"


def notice(page):
    assert page.locator("p.notice").count() == 1, page.inner_text("main")
    return page.inner_text("p.notice")


def submit(page, selector):
    with page.expect_navigation():
        page.click(selector)


def shot(browser, name):
    """The whole page at phone and desktop width, from its top (a page opened at an anchor, or
    scrolled to a field, would have the sticky header drawn midway down the picture)."""
    browser.page.evaluate("window.scrollTo(0, 0)")
    browser.screenshot(name)


def menu(page, title):
    """Follow the side navigation's link ``title``."""
    submit(page, f".menu nav a:text-is('{title}')")


def section(page, title):
    return page.locator(f"section.order-section:has(h2:text-is('{title}'))")


def test_the_owner_sells_checks_in_and_refunds_from_an_empty_site(make_site, browse, tmp_path):
    site = make_site(**{"storeplatform.plugins": "events invoicing", "huey.url": queue_url(tmp_path)})
    event_day = date.today() + timedelta(days=14)
    with site.worker(workers=1):
        browser = browse(site)
        page = browser.page
        browser.login("owner", "administrator")

        # The settings: credit notes numbered CR-…
        menu(page, "Settings")
        submit(page, "ul.tabs >> text=Invoicing")
        page.fill("#field-invoicing-prefix_credit_note", "CR")
        submit(page, "#settings-form button[type=submit]")
        assert notice(page) == "Invoicing settings saved."
        assert page.input_value("#field-invoicing-prefix_credit_note") == "CR"

        # A user for the door.
        menu(page, "Users")
        submit(page, "text=New user")
        page.fill("#field-login", "door")
        page.fill("#field-name", "Dora Door")
        page.fill("#field-email", "door@example.com")
        page.select_option("#field-role", "shop_manager")
        page.fill("#field-password", DOOR_PASSWORD)
        submit(page, "#user-new-form button[type=submit]")
        assert notice(page) == "User door created."
        assert page.inner_text("h1") == "User door"
        shot(browser, "story-user-made")

        # 1. A venue.
        menu(page, "Venues")
        assert page.inner_text("h1") == "Venues"
        assert "No venue yet." in page.inner_text("main")
        submit(page, "#place-new")
        page.fill("#field-name", "Konzerthaus")
        page.fill("#field-city", "Wien")
        page.fill("#field-capacity", "300")
        submit(page, "#place-form button[type=submit]")
        assert notice(page) == "Konzerthaus created."
        rows = page.locator("#places tbody tr")
        expect(rows).to_have_count(1)
        assert rows.locator("td").all_inner_texts()[:4] == ["Konzerthaus", "Wien", "300", "0"]
        shot(browser, "story-venue")

        # 2. An event at the venue, published.
        menu(page, "Events")
        submit(page, "#event-new")
        assert page.inner_text("h1") == "New event"
        page.fill("#field-title", "Spring Gala")
        page.fill("#field-start_date", event_day.isoformat())
        page.fill("#field-start_time", "19:30")
        page.select_option("#field-venue_id", label="Konzerthaus")
        page.fill("#field-capacity", "60")
        assert page.input_value("#field-status") == "publish"
        assert lines_of(page.locator("label:has(#field-all_day)")) == 1  # the box beside its words
        shot(browser, "story-event-form")
        submit(page, "#event-form button[type=submit]")
        assert notice(page) == "Spring Gala created."
        assert page.inner_text("h1") == "Spring Gala"
        edit, trash = page.locator("#event-edit").bounding_box(), page.locator("#event-trash").bounding_box()
        assert abs(edit["y"] - trash["y"]) < 4  # the event's two actions in one row
        event_id = int(re.search(r"/admin/events/(\d+)$", page.url).group(1))
        facts = page.inner_text("#event-facts")
        assert f"{event_day.isoformat()} 19:30" in facts and "Konzerthaus" in facts and "scheduled" in facts
        assert "publish" not in facts  # published: no badge of a draft
        assert page.inner_text("#no-ticket-types") == "No ticket type yet: add one to sell tickets for this event."

        # 3. Two ticket types.
        for name, price, places in (("Standard", "25.00", "50"), ("VIP", "90.00", "10")):
            page.fill("#ticket-name", name)
            page.fill("#ticket-price", price)
            page.fill("#ticket-capacity", places)
            submit(page, "#ticket-type-add")
        types = page.locator("#ticket-types tbody tr")
        expect(types).to_have_count(2)
        cells = [types.nth(i).locator("td").all_inner_texts()[:5] for i in range(2)]
        assert [c[0] for c in cells] == ["Standard", "VIP"]
        assert [c[2:5] for c in cells] == [["50", "0", "always"], ["10", "0", "always"]]
        assert [c[1] for c in cells] == ["$25.00", "$90.00"]
        standard, vip = (types.nth(i).get_attribute("data-id") for i in range(2))
        shot(browser, "story-event-ticket-types")

        # 4. Two manual orders: one Standard ticket, two VIP tickets.
        orders = {}
        for key, product, quantity, first, last, email in (
                ("standard", standard, "1", "Anna", "Nowak", "anna@example.com"),
                ("vip", vip, "2", "Bruno", "Berg", "bruno@example.com")):
            menu(page, "Orders")
            submit(page, "#order-new")
            assert page.inner_text("h1") == "New order"
            page.fill("#field-product-0", product)
            page.fill("#field-quantity-0", quantity)
            page.fill("#field-billing-first_name", first)
            page.fill("#field-billing-last_name", last)
            page.fill("#field-billing-email", email)
            page.select_option("#field-status", "processing")
            if key == "vip":
                shot(browser, "story-order-form")
            submit(page, "#order-create")
            order_id = int(re.search(r"/admin/orders/(\d+)$", page.url).group(1))
            orders[key] = order_id
            assert notice(page) == f"Order #{order_id} created."
            assert page.inner_text("#order-status") == "processing"
            assert "Guest order" in page.inner_text("#order-customer")
        assert page.inner_text("#order-total") == "$180.00"
        lines = page.locator("#order-lines tbody tr td").all_inner_texts()
        assert lines == ["VIP", "2", "$90.00", "$180.00"]
        # The order was paid: its invoice is made, and rendered by the worker.
        docs = until_rendered(page, browser, orders["vip"], 1)
        assert re.fullmatch(r"Invoice INV-\d{4}-00002 \(PDF, .*\)", docs[0]), docs
        shot(browser, "story-order-paid")

        # The event's page counts what is sold.
        browser.goto(f"/admin/events/{event_id}")
        assert page.inner_text("#event-sold").split() == ["3", "of", "60"]
        assert page.inner_text("#event-pending") == "3"
        taken = page.locator("#ticket-types tbody td[data-label=Taken]").all_inner_texts()
        assert taken == ["1", "2"]

        # 5. The door checks Anna's ticket in at the desk, the code read from the attendees page.
        submit(page, "#event-attendees")
        assert page.inner_text("h1") == "Attendees of Spring Gala"
        attendees = page.locator("#attendees tbody tr")
        expect(attendees).to_have_count(3)
        anna = page.locator("#attendees tbody tr:has-text('Anna Nowak')")
        code = anna.locator(".lists-code").inner_text()
        assert anna.locator("td[data-label=Status]").inner_text() == "Not checked in"
        shot(browser, "story-attendees")

        browser.logout()
        browser.login("door", password=DOOR_PASSWORD)
        browser.goto(f"/admin/events/{event_id}/attendees")
        submit(page, ".lists-summary >> text=Check-in desk")
        assert page.inner_text("h1") == "Spring Gala"
        page.fill("#desk-code", code)
        page.press("#desk-code", "Enter")
        expect(page.locator("#desk-result")).to_have_attribute("data-result", "checked_in", timeout=20_000)
        assert page.inner_text("#desk-result-title") == "Checked in"
        assert page.inner_text("#desk-result-name") == "Anna Nowak"
        assert page.inner_text("#desk-result-code") == code
        expect(page.locator("#desk-stat-in")).to_have_text("1", timeout=20_000)
        assert page.inner_text("#desk-stat-cancelled") == "0"
        shot(browser, "story-desk-checked-in")
        browser.logout()
        browser.login("owner", "administrator")

        # 6. The VIP order refunded in full: review, then confirm.
        browser.goto(f"/admin/orders/{orders['vip']}")
        assert page.inner_text("#refund-left") == "$180.00"
        page.check("#field-refund_mode-whole")
        page.fill("#field-reason", "The guest cannot come.")
        submit(page, "#refund-form button[type=submit]")
        review = page.inner_text("#refund-review")
        assert page.inner_text("#refund-review-amount") == "$180.00"
        assert "all that is left, and the order becomes refunded" in review
        assert "Reason: The guest cannot come." in review
        shot(browser, "story-refund-review")
        submit(page, "#refund-confirm-form button[type=submit]")
        assert page.inner_text("#order-status") == "refunded"
        assert notice(page) == f"Refunded 180.00 USD of order #{orders['vip']}."
        assert page.inner_text("#refund-left") == "$0.00"
        assert page.inner_text("#refund-closed") == "Everything has been refunded."
        refunds = page.locator("#order-refunds tbody tr")
        expect(refunds).to_have_count(1)
        assert refunds.locator("td[data-label=Reason]").inner_text() == "The guest cannot come."
        assert refunds.locator("td[data-label=Lines]").inner_text() == "2 × VIP ($180.00)"
        assert refunds.locator("td[data-label=Amount]").inner_text() == "$180.00"
        # The credit note, numbered with the prefix the owner chose, rendered by the worker.
        docs = until_rendered(page, browser, orders["vip"], 2)
        assert re.fullmatch(r"Invoice INV-\d{4}-00002 \(PDF, .*\)", docs[0]), docs
        assert re.fullmatch(r"Credit note CR-\d{4}-00001 \(PDF, .*\)", docs[1]), docs
        shot(browser, "story-order-refunded")

        # 7. The order's history, newest first: status changes, the refund and the documents,
        # written by the site for the owner who acted.
        year = date.today().year
        assert page.locator("#order-notes li .note-text").all_inner_texts() == [
            f"Credit note CR-{year}-00001 created.",
            "Order status changed from Processing to Refunded.",
            "Refunded 180.00 USD (2 × VIP). Reason: The guest cannot come.",
            f"Invoice INV-{year}-00002 created.",
            "Order status changed from Pending payment to Processing."]
        assert set(page.locator("#order-notes .note-author").all_inner_texts()) == {"Owner"}
        assert set(page.locator("#order-notes .badge").all_inner_texts()) == {"Private"}

        # Anna's order: the door's check-in in its history, signed by the door, written by the
        # worker's periodic task (sent to the worker here rather than waited for its minute).
        site.enqueue("events.note_checkin_scans")

        def door_note():
            browser.goto(f"/admin/orders/{orders['standard']}")
            texts = page.locator("#order-notes li .note-text").all_inner_texts()
            return texts if texts and texts[0].startswith("Ticket ") else None

        assert wait_for(door_note, timeout=30, interval=0.3) == [
            f"Ticket {code} (Spring Gala) checked in.",
            f"Invoice INV-{year}-00001 created.",
            "Order status changed from Pending payment to Processing."]
        assert page.locator("#order-notes .note-author").all_inner_texts()[:2] == ["Dora Door", "Owner"]
        shot(browser, "story-order-checked-in")

        # Its tickets are cancelled; Anna's is in.
        browser.goto(f"/admin/events/{event_id}/attendees")
        statuses = {row.locator("td[data-label=Name]").inner_text(): [] for row in attendees.all()}
        for row in attendees.all():
            statuses[row.locator("td[data-label=Name]").inner_text()].append(
                row.locator("td[data-label=Status]").inner_text())
        assert statuses == {"Anna Nowak": ["Checked in"], "Bruno Berg": ["Cancelled", "Cancelled"]}
        shot(browser, "story-attendees-after-refund")
        browser.goto(f"/admin/events/{event_id}")
        assert page.inner_text("#event-checked-in") == "1"
        assert page.inner_text("#event-cancelled") == "2"
        assert page.inner_text("#event-sold").split() == ["1", "of", "60"]  # the cancelled are not sold
        assert page.inner_text("#event-pending") == "0"

        # The invoices page lists the three documents.
        menu(page, "Invoices")
        listed = page.locator("table tbody tr")
        expect(listed).to_have_count(2)
        refunded, paid = (listed.nth(i).inner_text() for i in range(2))
        assert "#2\trefunded" in refunded and "Bruno Berg\t$180.00" in refunded
        assert f"credit-note CR-{year}-00001" in refunded and f"invoice INV-{year}-00002" in refunded
        assert "#1\tprocessing" in paid and "Anna Nowak\t$25.00" in paid and f"invoice INV-{year}-00001" in paid
        shot(browser, "story-invoices")

        # The audit log (users, credentials, settings, webhooks): the owner's setting and the user
        # they made, newest first; saving the settings page records only the option that changed.
        menu(page, "Audit log")
        entries = page.locator("#audit tbody tr")
        expect(entries).to_have_count(2)
        assert [entries.nth(i).locator("td").all_inner_texts()[1:] for i in range(2)] == [
            ["owner #1", "127.0.0.1", "users", "created", "door",
             '{"user_id":2,"role":"shop_manager","email":"door@example.com"}'],
            ["owner #1", "127.0.0.1", "settings", "changed", "invoicing.prefix_credit_note", '{"old":"CN","new":"CR"}']]
        # Every column readable at 1280 px: no word broken across lines by a long details value.
        for i in range(2):
            for name in ("Address", "Kind", "Action"):
                assert lines_of(entries.nth(i).locator(f"td[data-label={name}]")) == 1, (i, name)
        shot(browser, "story-audit")


def lines_of(cell):
    """How many lines the text of ``cell`` takes on the page."""
    return cell.evaluate("""td => { const range = document.createRange(); range.selectNodeContents(td);
        return new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top))).size; }""")


def until_rendered(page, browser, order_id, count):
    """The order page's document links once ``count`` are rendered (the page read again)."""
    def rendered():
        browser.goto(f"/admin/orders/{order_id}")
        links = section(page, "Documents").locator("a").all_inner_texts()
        return links if len(links) == count else None

    return wait_for(rendered, timeout=30, interval=0.3)
