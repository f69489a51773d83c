"""The invoices page in a real Chromium: select three orders, regenerate them in bulk, and watch
the progress bar, which the page reads from the job while a real worker on a real queue does the
work, go from 0 to 100 %. Screenshots at phone and desktop width."""
from playwright.sync_api import expect

from storeplatform.testing import queue_url


def test_bulk_regeneration_of_three_orders_reaches_100_percent(make_shop, browse, tmp_path):
    shop = make_shop(**{"huey.url": queue_url(tmp_path)})
    orders = [shop.order("on-hold") for _ in range(4)]  # on-hold: no automatic document
    chosen = orders[:3]
    browser = browse(shop.site)
    browser.login("manager", "shop_manager")
    browser.goto("/admin/invoices")
    page = browser.page
    assert page.inner_text("h1") == "Invoices"
    browser.screenshot("invoicing-invoices")

    for order in chosen:
        page.check(f"#order-{order['id']} input[name=order_id]")
    with page.expect_navigation():
        page.click("#inv-regenerate")
    # No worker yet: the job waits at 0 %, and the page says so.
    panel = page.wait_for_selector("#inv-job")
    assert "Regenerating 3 orders in the background." in page.inner_text(".notice")
    expect(page.locator("#inv-job")).to_have_attribute("data-percent", "0")
    assert page.inner_text("#inv-job-label").startswith("0 of 3 orders (0 %)")
    browser.screenshot("invoicing-invoices-job-waiting")

    with shop.site.worker(workers=1):
        expect(page.locator("#inv-job")).to_have_attribute("data-finished", "true", timeout=60_000)
    assert panel.get_attribute("data-percent") == "100"
    assert page.eval_on_selector("#inv-job-bar", "bar => [bar.value, bar.max]") == [3, 3]
    assert page.inner_text("#inv-job-label") == "3 of 3 orders (100 %): done."
    browser.screenshot("invoicing-invoices-job-done")

    # The list shows the new documents; the fourth order still has none.
    with page.expect_navigation():
        page.click("#inv-job-reload a")
    for order in chosen:
        row = f"#order-{order['id']}"
        assert page.inner_text(f"{row} .inv-doc-type") == "invoice"
        assert page.get_attribute(f"{row} a.inv-doc-download", "href").endswith("/pdf")
    assert page.inner_text(f"#order-{orders[3]['id']} td:last-child") == "none"
    with page.expect_download() as download:
        page.click(f"#order-{chosen[0]['id']} a.inv-doc-download")
    assert download.value.suggested_filename.startswith("invoice-") and download.value.suggested_filename.endswith(".pdf")
    browser.screenshot("invoicing-invoices-documents")
