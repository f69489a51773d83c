"""The dashboard in a real Chromium at phone and desktop width: a shop with a month of orders,
events with tickets sold and check-ins today, failing webhooks and documents waiting; every
chart drawn by the vendored Chart.js from the page's JSON, nothing refused by the admin's CSP,
no script error. Screenshots in var/admin-screenshots/dashboard-*.png."""
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from storeplatform.testing_browser import WIDTHS

from .dashboard_data import Events, add_delivery, add_document, add_order, add_webhook, local

PLUGINS = {"storeplatform.plugins": "events invoicing"}


def a_month_of_shop(site):
    tz = ZoneInfo("Europe/Vienna")
    site.set_option("site.timezone", "Europe/Vienna")
    site.set_option("store.currency", "EUR")
    today = datetime.now(tz).date()
    orders = []
    for back in range(30):
        day = today - timedelta(days=back)
        for n in range((back * 7) % 5 + (2 if day.weekday() >= 5 else 0)):
            amount = f"{12 + (back * 13 + n * 29) % 80}.{(back * 37 + n) % 100:02d}"
            orders.append(add_order(site, amount, local(day, 9 + n, 15, tz), currency="EUR"))
    ev = Events(site)
    gala = ev.event("Gala night at the Konzerthaus", today, capacity=120)
    tickets = ev.sell(gala, 40)
    times = [local(today, 18, 0, tz) + timedelta(minutes=(i * 97) % 130) for i in range(31)]
    ev.check_in(tickets, *times)
    workshop = ev.event("Pottery workshop", today, capacity=12)
    ev.check_in(ev.sell(workshop, 9), *[local(today, 18, 20, tz) + timedelta(minutes=7 * i) for i in range(6)])
    for days, title, capacity, sold in ((2, "Jazz brunch", 60, 41), (5, "Wine tasting", 24, 24),
                                        (9, "City walk", 0, 17), (16, "Autumn market", 300, 88)):
        ev.sell(ev.event(title, today + timedelta(days=days), capacity=capacity, start_time="19:30"), sold)
    fine = add_webhook(site, "CRM sync")
    flaky = add_webhook(site, "Door display", failures=3)
    dead = add_webhook(site, "Old newsletter tool", status="disabled", failures=10)
    add_webhook(site, "Stats (paused)", status="paused")
    now = datetime.now(timezone.utc)
    add_delivery(site, fine, "delivered", now)
    add_delivery(site, flaky, "failed", now - timedelta(minutes=3), code=502, error="Bad Gateway")
    add_delivery(site, dead, "failed", now - timedelta(hours=2), error="connection refused")
    add_document(site, orders[0], "invoice", 41, now - timedelta(minutes=20))
    add_document(site, orders[1], "invoice", 42, now - timedelta(seconds=40))


def screenshots(browser, name):
    """As ``browser.screenshot``, with a pause after each width for Chart.js to redraw its charts
    at the new size (it listens for the resize)."""
    assert not browser.refused, f"the page broke the Content-Security-Policy: {browser.refused}"
    browser.screenshots.mkdir(parents=True, exist_ok=True)
    for width, (w, h) in WIDTHS.items():
        browser.page.set_viewport_size({"width": w, "height": h})
        browser.page.wait_for_timeout(400)
        browser.page.screenshot(path=str(browser.screenshots / f"{name}-{width}.png"), full_page=True)
    assert not browser.refused, f"the page broke the Content-Security-Policy: {browser.refused}"


def test_the_dashboard_draws_its_charts(make_site, browse):
    site = make_site(**PLUGINS)
    a_month_of_shop(site)
    browser = browse(site)
    page = browser.page
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    browser.login("admin", "administrator")
    assert page.inner_text("h1") == "Dashboard"
    page.wait_for_function("document.querySelectorAll('canvas[data-drawn]').length === 4")
    drawn = page.eval_on_selector_all("canvas[data-drawn]", "cs => cs.map(c => [c.id, c.width > 100, c.height > 50])")
    assert drawn == [["dash-orders-chart", True, True], ["dash-tickets-chart", True, True],
                     ["dash-checkins-chart", True, True], ["dash-webhooks-chart", True, True]]
    # Chart.js holds the numbers of the page's JSON.
    assert page.evaluate("Chart.getChart('dash-tickets-chart').data.datasets[0].data.slice(0, 3)") == [40, 9, 41]
    screenshots(browser, "dashboard")
    assert errors == []

    page.click("#panel-orders summary")
    page.click("#panel-checkins summary")
    assert page.is_visible("#dash-orders-table") and page.is_visible("#dash-checkins-table")
    screenshots(browser, "dashboard-tables")

    # A shop manager: the shop's panels, not the webhooks (a page of manage_options).
    browser.logout()
    browser.login("manager", "shop_manager")
    page.wait_for_function("document.querySelectorAll('canvas[data-drawn]').length === 3")
    assert page.query_selector("#panel-webhooks") is None
    assert not browser.refused and errors == []
