"""The admin's dashboard (WebTest): each panel's figures, exact, from seeded orders, events,
tickets, check-ins, webhook deliveries and documents (days in the site's time zone: an order a
minute before local midnight counts on its own day); who sees which panel; and a cost in
statements that does not grow with the data."""
import json
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from storeplatform.api import hookimpl, user_can
from storeplatform.testing import count_queries

from .dashboard_data import Events, add_delivery, add_document, add_order, add_webhook, local
from .helpers import assert_page, login
from .notes_plugin import NotesPlugin

PLUGINS = {"storeplatform.plugins": "events invoicing"}


def cells(page, selector):
    return [[td.text.strip() for td in tr.select("td")] for tr in page.html.select(selector)]


def chart_data(page, chart_id):
    return json.loads(page.html.select_one(f"#{chart_id}-data").text)


def test_orders_and_revenue_per_local_day(make_site):
    site = make_site()
    # Kathmandu is UTC+05:45: local midnight is 18:15 UTC, in the middle of an hour.
    tz = ZoneInfo("Asia/Kathmandu")
    site.set_option("site.timezone", "Asia/Kathmandu")
    today = datetime.now(tz).date()
    yesterday = today - timedelta(days=1)
    first = today - timedelta(days=29)
    add_order(site, "19.9900", local(today, 0, 1, tz))
    add_order(site, "5.0100", local(today, 0, 0, tz))              # midnight itself: today
    add_order(site, "0.0001", local(today, 0, 14, tz, 59))         # the same quarter hour as the two above
    add_order(site, "100.0000", local(yesterday, 23, 59, tz, 59))  # a second before midnight: yesterday
    add_order(site, "0.0050", local(yesterday, 12, 0, tz), status="completed")
    add_order(site, "7.0000", local(first, 0, 0, tz))              # the first of the 30 days
    add_order(site, "1000.0000", local(first, 0, 0, tz) - timedelta(seconds=1))  # the day before: out
    add_order(site, "50.0000", local(today, 1, 0, tz), status="cancelled")       # not paid
    add_order(site, "60.0000", local(today, 1, 0, tz), status="pending")         # not paid
    add_order(site, "70.0000", local(today, 1, 0, tz), currency="EUR")           # not the site's currency
    login(site, "boss", role="shop_manager")
    page = assert_page(site.app.get("/admin/"), 200, "Orders and revenue")
    assert page.html.select_one("#dash-today-revenue").text == "$25.00"
    assert page.html.select_one("#dash-today-orders").text == "3 paid orders"
    assert page.html.select_one("#dash-period-revenue").text == "$132.01"
    assert page.html.select_one("#dash-period-orders").text == "6 paid orders"
    rows = {tr["data-day"]: [td.text for td in tr.select("td")] for tr in page.html.select("#dash-orders-table tbody tr")}
    assert len(rows) == 30 and min(rows) == first.isoformat() and max(rows) == today.isoformat()
    assert rows[today.isoformat()][1:] == ["3", "$25.00"]  # 25.0001
    assert rows[yesterday.isoformat()][1:] == ["2", "$100.01"]  # 100.0050, shown half-up
    assert rows[first.isoformat()][1:] == ["1", "$7.00"]
    assert sum(int(r[1]) for r in rows.values()) == 6
    # The chart gets the same numbers; its tooltips the site's text of each amount.
    data = chart_data(page, "dash-orders-chart")
    revenue, orders = data["datasets"]
    assert data["labels"][-1] == f"{today:%b} {today.day}" and len(data["labels"]) == 30
    assert revenue["data"][-2:] == [100.005, 25.0001] and revenue["display"][-2:] == ["$100.01", "$25.00"]
    assert orders["data"][-2:] == [2, 3] and orders["data"][0] == 1
    assert "Asia/Kathmandu" in page.html.select_one(".dash-orders .dash-note").text
    # The scripts are the site's own files.
    scripts = [tag["src"] for tag in page.html.select("script[src]")]
    assert [s.rsplit("/", 1)[1] for s in scripts] == ["chart-4.6.1.umd.js", "dashboard.js"]
    for src in scripts:
        assert site.app.get(src).status_int == 200


def test_a_day_in_a_time_zone_behind_utc(make_site):
    site = make_site()
    tz = ZoneInfo("America/Los_Angeles")
    site.set_option("site.timezone", "America/Los_Angeles")
    today = datetime.now(tz).date()
    add_order(site, "1.2345", local(today, 23, 59, tz) - timedelta(days=1))
    add_order(site, "2.0000", local(today, 0, 0, tz) + timedelta(minutes=14, seconds=59))
    login(site, "boss", role="administrator")
    page = site.app.get("/admin/")
    rows = {tr["data-day"]: [td.text for td in tr.select("td")] for tr in page.html.select("#dash-orders-table tbody tr")}
    assert rows[today.isoformat()][1:] == ["1", "$2.00"]
    assert rows[(today - timedelta(days=1)).isoformat()][1:] == ["1", "$1.23"]


def test_each_panel_only_for_whom_its_page_is(make_site):
    site = make_site(**PLUGINS)
    login(site, "boss", role="administrator")
    panels = [s["id"] for s in site.app.get("/admin/").html.select("section.dash-panel")]
    assert panels == ["panel-orders", "panel-tickets", "panel-checkins", "panel-documents", "panel-webhooks"]
    other = make_site(**PLUGINS)
    login(other, "shop", role="shop_manager")
    panels = [s["id"] for s in other.app.get("/admin/").html.select("section.dash-panel")]
    assert panels == ["panel-orders", "panel-tickets", "panel-checkins", "panel-documents"]
    writer = make_site(**PLUGINS)
    login(writer, "writer", role="editor")
    page = assert_page(writer.app.get("/admin/"), 200, "Dashboard")
    assert page.html.select("section.dash-panel") == [] and "chart-4.6.1" not in page.text
    assert "Orders and revenue" not in page.text


def test_tickets_sold_against_capacity_of_the_next_events(make_site):
    site = make_site(**PLUGINS)
    site.set_option("site.timezone", "Europe/Vienna")
    today = datetime.now(ZoneInfo("Europe/Vienna")).date()
    ev = Events(site)
    past = ev.event("Last week", today - timedelta(days=7), capacity=10)
    ev.sell(past, 2)
    later = ev.event("Later", today + timedelta(days=20), capacity=50)
    soon = ev.event("Soon", today + timedelta(days=2), capacity=4, start_time="19:30")
    open_air = ev.event("Open air", today, capacity=0)
    sold = ev.sell(soon, 3)
    ev.cancel(sold[0])
    ev.check_in(sold[1:2], datetime.now(timezone.utc))  # checked in is still sold
    ev.sell(open_air, 5)
    for i in range(9):  # only the next eight are shown
        ev.event(f"Far {i}", today + timedelta(days=40 + i), capacity=1)
    login(site, "boss", role="shop_manager")
    page = site.app.get("/admin/")
    rows = page.html.select("#dash-tickets-table tbody tr")
    assert [int(r["data-event"]) for r in rows[:3]] == [open_air, soon, later] and len(rows) == 8
    shown = [[" ".join(tr.select_one(selector).text.split()) if tr.select_one(selector) else None
              for selector in (".title", ".dash-when", ".sold", ".percent", ".capacity")] for tr in rows[:3]]
    assert shown == [
        ["Open air", today.isoformat() + " 00:00", "5", None, "no limit"],
        ["Soon", (today + timedelta(days=2)).isoformat() + " 19:30", "2", "50 %", "4"],
        ["Later", (today + timedelta(days=20)).isoformat() + " 00:00", "0", "0 %", "50"],
    ]
    data = chart_data(page, "dash-tickets-chart")
    assert data["labels"][:3] == ["Open air", "Soon", "Later"]
    assert [d["data"][:3] for d in data["datasets"]] == [[5, 2, 0], [0, 2, 50]]
    assert data["options"]["horizontal"] is True


def test_the_check_in_curve_of_todays_events(make_site):
    site = make_site(**PLUGINS)
    tz = ZoneInfo("Asia/Kathmandu")
    site.set_option("site.timezone", "Asia/Kathmandu")
    today = datetime.now(tz).date()
    ev = Events(site)
    gala = ev.event("Gala", today, capacity=100)
    fair = ev.event("Fair", today - timedelta(days=2), today + timedelta(days=1))  # running since Monday
    ev.event("Tomorrow", today + timedelta(days=1))
    ev.event("Over", today - timedelta(days=3), today - timedelta(days=1))
    gala_tickets = ev.sell(gala, 6)
    fair_tickets = ev.sell(fair, 3)
    ev.check_in(gala_tickets, local(today, 18, 0, tz), local(today, 18, 14, tz, 59), local(today, 18, 15, tz),
                local(today, 19, 10, tz))
    ev.check_in(gala_tickets[4:], local(today, 18, 20, tz), status="checked_out")
    ev.check_in(gala_tickets[5:], local(today, 0, 0, tz) - timedelta(seconds=1))  # yesterday: not on the curve
    ev.check_in(fair_tickets, local(today, 18, 5, tz))
    login(site, "boss", role="shop_manager")
    page = site.app.get("/admin/")
    events = {li["data-event"]: li.text.split(":", 1)[1].strip() for li in page.html.select("#dash-checkins-events li")}
    assert events == {str(gala): "6 of 6 checked in", str(fair): "1 of 3 checked in"}
    assert [a["href"] for a in page.html.select("#dash-checkins-events a")] == [
        f"http://localhost/admin/checkin/{fair}", f"http://localhost/admin/checkin/{gala}"]
    table = {tr["data-slot"]: [td.text for td in tr.select("td")][1:] for tr in page.html.select("#dash-checkins-table tbody tr")}
    # Columns: Fair (it started first), Gala; a row per quarter hour from the first to the last.
    assert table == {"18:00": ["1", "2"], "18:15": ["0", "2"], "18:30": ["0", "0"], "18:45": ["0", "0"],
                     "19:00": ["0", "1"]}
    data = chart_data(page, "dash-checkins-chart")
    assert data["labels"] == ["18:00", "18:15", "18:30", "18:45", "19:00"]
    assert [d["data"] for d in data["datasets"]] == [[1, 0, 0, 0, 0], [2, 2, 0, 0, 1]]


def test_check_ins_spread_over_the_day_are_counted_per_hour(make_site):
    site = make_site(**PLUGINS)
    site.set_option("site.timezone", "UTC")
    today = datetime.now(timezone.utc).date()
    ev = Events(site)
    fair = ev.event("Fair", today)
    tickets = ev.sell(fair, 3)
    ev.check_in(tickets, local(today, 8, 50, timezone.utc), local(today, 9, 5, timezone.utc),
                local(today, 16, 45, timezone.utc))
    login(site, "boss", role="administrator")
    page = site.app.get("/admin/")
    table = {tr["data-slot"]: [td.text for td in tr.select("td")][1:] for tr in page.html.select("#dash-checkins-table tbody tr")}
    assert list(table) == [f"{h:02d}:00" for h in range(8, 17)]
    assert table["08:00"] == ["1"] and table["09:00"] == ["1"] and table["16:00"] == ["1"]
    assert "Check-ins per 60 minutes" in page.text


def test_no_events_and_no_webhooks(make_site):
    site = make_site(**PLUGINS)
    login(site, "boss", role="administrator")
    page = site.app.get("/admin/")
    assert "No upcoming events." in page.text and "No events today." in page.text
    assert "No webhooks." in page.text and page.html.select_one("#dash-documents-none") is not None
    assert page.html.select_one("#dash-documents-waiting").text == "0"


def test_webhook_health(make_site):
    site = make_site(**PLUGINS)
    site.set_option("site.timezone", "UTC")
    fine = add_webhook(site, "CRM")
    flaky = add_webhook(site, "Door display", failures=3)
    old = add_webhook(site, "Old", status="paused")
    dead = add_webhook(site, "Gone receiver", status="disabled", failures=10)
    at = datetime(2026, 3, 4, 5, 6, tzinfo=timezone.utc)
    add_delivery(site, fine, "delivered", at)
    add_delivery(site, flaky, "failed", at, code=500, error="Internal Server Error")
    add_delivery(site, dead, "failed", at + timedelta(minutes=1), error="connection refused")
    add_delivery(site, 999999, "failed", at + timedelta(minutes=2), code=404)  # its webhook deleted
    login(site, "boss", role="administrator")
    page = site.app.get("/admin/")
    states = {dd["data-state"]: dd.text for dd in page.html.select("#dash-webhooks-states dd")}
    assert states == {"active": "1", "failing": "1", "paused": "1", "disabled": "1"}
    problems = page.html.select("#dash-webhooks-problems li")
    assert [li["data-webhook"] for li in problems] == [str(dead), str(flaky), str(old)]  # most failures first
    assert "3 failures in a row" in problems[1].text and "failure" not in problems[2].text
    assert problems[0].a["href"] == f"http://localhost/admin/webhooks/{dead}/deliveries"
    failures = page.html.select("#dash-webhooks-failures li")
    assert [" ".join(li.text.split()) for li in failures] == [
        "Webhook 999999 (deleted) attendee.checked_in, 2026-03-04 05:08 HTTP 404",
        "Gone receiver attendee.checked_in, 2026-03-04 05:07 connection refused",
        "Door display attendee.checked_in, 2026-03-04 05:06 HTTP 500: Internal Server Error",
    ]
    assert chart_data(page, "dash-webhooks-chart")["datasets"][0]["data"] == [1, 1, 1, 1]


def test_documents_waiting_for_their_pdf(make_site):
    site = make_site(**PLUGINS)
    site.set_option("site.timezone", "UTC")
    now = datetime.now(timezone.utc).replace(microsecond=0)
    orders = [add_order(site, "10.0000", now) for _ in range(8)]
    add_document(site, orders[0], "invoice", 1, now - timedelta(minutes=30), generated=True)
    add_document(site, orders[1], "invoice", 2, now - timedelta(minutes=1))
    add_document(site, orders[2], "invoice", 3, now - timedelta(minutes=20))
    for i, order_id in enumerate(orders[3:]):
        add_document(site, order_id, "packing-slip", 10 + i, now - timedelta(seconds=30 + i))
    login(site, "boss", role="shop_manager")
    page = site.app.get("/admin/")
    assert page.html.select_one("#dash-documents-waiting").text == "7"
    oldest = [" ".join(li.text.split()) for li in page.html.select("#dash-documents-oldest li")]
    assert oldest == [
        f"Invoice INV-3 of order {orders[2]}, since {now - timedelta(minutes=20):%Y-%m-%d %H:%M} late",
        f"Invoice INV-2 of order {orders[1]}, since {now - timedelta(minutes=1):%Y-%m-%d %H:%M}",
        f"Packing slip INV-14 of order {orders[7]}, since {now - timedelta(seconds=34):%Y-%m-%d %H:%M}",
        f"Packing slip INV-13 of order {orders[6]}, since {now - timedelta(seconds=33):%Y-%m-%d %H:%M}",
        f"Packing slip INV-12 of order {orders[5]}, since {now - timedelta(seconds=32):%Y-%m-%d %H:%M}",
    ]
    assert "is a worker running" in page.text


def seed(site, ev, n, today, tz):
    """``n`` more of everything the dashboard reads: paid orders, upcoming and today's events with
    tickets and check-ins, failing webhooks and failed deliveries, waiting documents."""
    for i in range(n):
        order_id = add_order(site, "3.5000", local(today - timedelta(days=i % 30), 12, 0, tz))
        upcoming = ev.event(f"Upcoming {i}", today + timedelta(days=1 + i), capacity=10)
        running = ev.event(f"Today {i}", today)
        ev.check_in(ev.sell(running, 1), local(today, 10 + i % 8, (7 * i) % 60, tz))
        ev.sell(upcoming, 1)
        hook = add_webhook(site, f"Hook {i}", failures=i % 3)
        add_delivery(site, hook, "failed", datetime.now(timezone.utc), code=500)
        add_document(site, order_id, "invoice", 1000 + i + 100 * len(str(n)), datetime.now(timezone.utc))


def test_the_dashboard_costs_the_same_statements_with_3_and_30_of_everything(make_site):
    site = make_site(**PLUGINS)
    tz = ZoneInfo("Europe/Vienna")
    site.set_option("site.timezone", "Europe/Vienna")
    today = datetime.now(tz).date()
    ev = Events(site)
    login(site, "boss", role="administrator")
    site.app.get("/admin/")
    seed(site, ev, 3, today, tz)
    with count_queries(site.engine) as few:
        page = site.app.get("/admin/")
    assert len(page.html.select("#dash-tickets-table tbody tr")) == 6  # today's events are upcoming too
    seed(site, ev, 27, today, tz)
    with count_queries(site.engine) as many:
        page = site.app.get("/admin/")
    assert len(page.html.select("#dash-tickets-table tbody tr")) == 8
    assert page.html.select_one("#dash-period-orders").text == "90 paid orders"  # and two ticket orders each
    assert few() == many() <= 20, (few(), many())


class NotesWithPanel(NotesPlugin):
    """A third party's panel, through the hook and the chart macro only; for manage_shop."""

    @hookimpl
    def storeplatform_admin_dashboard_panels(self, request):
        if not user_can(request, "manage_shop"):
            return None
        return [{"name": "notes", "title": "Notes this week", "template": "admin_test/dashboard_notes.jinja2",
                 "order": 15, "values": {"labels": ["Mon", "Tue"], "counts": [3, 4]}}]


def test_a_plugin_adds_a_panel_with_a_chart(make_site):
    site = make_site(plugins=[NotesWithPanel()])
    login(site, "boss", role="shop_manager")
    page = site.app.get("/admin/")
    assert [s["id"] for s in page.html.select("section.dash-panel")] == ["panel-orders", "panel-notes"]
    assert page.html.select_one("#panel-notes-title").text == "Notes this week"
    assert cells(page, "#notes-table tr") == [["Mon", "3"], ["Tue", "4"]]
    assert chart_data(page, "notes-chart") == {"type": "bar", "labels": ["Mon", "Tue"], "options": {},
                                               "datasets": [{"label": "Notes", "data": [3, 4]}]}
    author = make_site(plugins=[NotesWithPanel()])
    login(author, "writer", role="author")
    assert author.app.get("/admin/").html.select("section.dash-panel") == []


BIG_TABLES = ("orders", "posts", "evt_events", "evt_attendees", "invoicing_documents", "evt_webhook_deliveries")


def test_every_statement_of_the_page_can_be_served_by_an_index_on_postgresql(make_site):
    """The page's statements read the big tables through indexes (an indexed range or a bounded
    walk). Here scans are forbidden, to see the indexes can; on 100,000 events, 400,000 orders and
    600,000 attendees the planner takes them by itself (docs/decisions.md, the dashboard)."""
    from sqlalchemy import event

    site = make_site(**PLUGINS)
    if site.engine.dialect.name != "postgresql":
        pytest.skip("the query plans checked are PostgreSQL's (SQLite has no such planner setting); "
                    "this runs in .ci/run's PostgreSQL pass")
    tz = ZoneInfo("Europe/Vienna")
    site.set_option("site.timezone", "Europe/Vienna")
    seed(site, Events(site), 3, datetime.now(tz).date(), tz)
    login(site, "boss", role="administrator")
    seen = []

    def before(conn, cursor, statement, parameters, context, executemany):
        seen.append((statement, parameters))

    event.listen(site.engine, "before_cursor_execute", before)
    try:
        site.app.get("/admin/")
    finally:
        event.remove(site.engine, "before_cursor_execute", before)
    read = [(s, p) for s, p in seen if s.lstrip().upper().startswith("SELECT") and
            any(f" {table} " in f" {s} ".replace("\n", " ") for table in BIG_TABLES)]
    assert len(read) >= 8
    with site.engine.connect() as c:
        c.exec_driver_sql("SET enable_seqscan = off")
        for statement, parameters in read:
            plan = "\n".join(row[0] for row in c.exec_driver_sql("EXPLAIN " + statement, parameters))
            scans = [table for table in BIG_TABLES if f"Seq Scan on {table} " in plan + " "]
            assert not scans, (statement, plan)


def test_the_sales_are_kept_until_an_order_changes(make_site):
    site = make_site()
    tz = ZoneInfo("UTC")
    site.set_option("site.timezone", "UTC")
    today = datetime.now(tz).date()
    add_order(site, "10.0000", local(today, 0, 0, tz))
    login(site, "boss", role="shop_manager")
    site.app.get("/admin/")
    order = add_order(site, "2.5000", local(today, 0, 1, tz))
    with count_queries(site.engine) as computed:
        assert site.app.get("/admin/").html.select_one("#dash-today-revenue").text == "$12.50"
    with count_queries(site.engine) as kept:
        assert site.app.get("/admin/").html.select_one("#dash-today-revenue").text == "$12.50"
    assert kept() == computed() - 1  # the orders' statement
    # A status change through store/v1 (the orders' generation moves on): no longer paid.
    site.app.put_json(f"/api/store/v1/orders/{order}", {"status": "cancelled"},
                      headers=site.headers_for("administrator"), status=200)
    assert site.app.get("/admin/").html.select_one("#dash-today-revenue").text == "$10.00"
