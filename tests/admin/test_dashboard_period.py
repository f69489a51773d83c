"""The dashboard's period (#40 item 3): the last 7, 30 or 90 days, this month, or a range of days;
the figures, the table and the chart follow it, today's figure stays today's, and a period that
is not one is the 400 page naming it."""
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from .dashboard_data import add_order, local
from .helpers import assert_page, login

TZ = ZoneInfo("UTC")


@pytest.fixture
def site(make_site):
    site = make_site()
    today = datetime.now(TZ).date()
    for days_ago, total in ((0, "1.00"), (6, "2.00"), (7, "4.00"), (45, "8.00"), (89, "16.00"), (90, "32.00"),
                            (200, "64.00")):
        add_order(site, total, local(today - timedelta(days=days_ago), 12, 0, TZ))
    login(site, "boss", role="shop_manager")
    site.today = today
    return site


def figures(page):
    """(the period's revenue, today's, the days in the table, the period's title)."""
    rows = page.html.select("#dash-orders-table tbody tr")
    titles = [dt.text for dt in page.html.select(".dash-figures dt")]
    return (page.html.select_one("#dash-period-revenue").text, page.html.select_one("#dash-today-revenue").text,
            len(rows), titles[1])


@pytest.mark.parametrize("query, revenue, days, title", [
    ("", "$7.00", 30, "Last 30 days"),
    ("?period=7", "$3.00", 7, "Last 7 days"),
    ("?period=30", "$7.00", 30, "Last 30 days"),
    ("?period=90", "$31.00", 90, "Last 90 days"),
])
def test_the_last_days(site, query, revenue, days, title):
    page = assert_page(site.app.get("/admin/" + query), 200)
    assert figures(page) == (revenue, "$1.00", days, title)


def test_this_month_and_a_range(site):
    today = site.today
    page = assert_page(site.app.get("/admin/?period=month"), 200)
    in_month = sum(t for d, t in ((0, 1), (6, 2), (7, 4), (45, 8), (89, 16), (90, 32), (200, 64))
                   if (today - timedelta(days=d)).month == today.month and (today - timedelta(days=d)).year == today.year)
    assert figures(page) == (f"${in_month}.00", "$1.00", today.day, "This month")
    first, last = today - timedelta(days=200), today - timedelta(days=45)
    page = assert_page(site.app.get(f"/admin/?period=range&from={first}&to={last}"), 200)
    assert figures(page) == ("$120.00", "$1.00", 156, f"{first} to {last}")
    assert page.html.select_one("#dash-period-choice option[selected]")["value"] == "range"


@pytest.mark.parametrize("query", ["period=365", "period=%FF", "period=range", "period=range&from=2030-01-01",
                                   "period=range&from=2030-02-30&to=2030-03-01", "period=range&from=2030-03-02&to=2030-03-01",
                                   "period=range&from=2028-01-01&to=2030-01-01"])
def test_a_period_that_is_none_is_the_400_page(site, query):
    assert_page(site.app.get("/admin/?" + query, status=400), 400)
