"""store/v1/reports/sales: paid orders and revenue per local day, exact, the numbers the admin's
dashboard draws; its period's defaults and limits; who may read it."""
from datetime import datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from admin.dashboard_data import add_order, local
from storeplatform.testing import assert_error, count_queries

R = "/api/store/v1/reports/sales"


def test_sales_per_local_day_exact_and_the_dashboards_numbers(make_site):
    site = make_site()
    tz = ZoneInfo("Asia/Kathmandu")  # UTC+05:45: local midnight falls in the middle of an hour
    site.set_option("site.timezone", "Asia/Kathmandu")
    today = datetime.now(tz).date()
    yesterday = today - timedelta(days=1)
    add_order(site, "19.9900", local(today, 0, 1, tz))
    add_order(site, "0.0001", local(today, 0, 0, tz))
    add_order(site, "100.0000", local(yesterday, 23, 59, tz, 59))
    add_order(site, "0.0050", local(yesterday, 12, 0, tz), status="completed")
    add_order(site, "50.0000", local(today, 1, 0, tz), status="cancelled")
    add_order(site, "60.0000", local(today, 1, 0, tz), status="pending")
    add_order(site, "70.0000", local(today, 1, 0, tz), currency="EUR")
    manager = site.headers_for("shop_manager")
    answer = site.app.get(R, headers=manager)
    report = answer.json
    assert report["date_max"] == today.isoformat()
    assert report["date_min"] == (today - timedelta(days=29)).isoformat()
    assert (report["timezone"], report["currency"], report["statuses"]) == ("Asia/Kathmandu", "USD",
                                                                            ["processing", "completed"])
    assert len(report["days"]) == 30 and report["days"][-1]["date"] == today.isoformat()
    # The digits stored, as JSON numbers: none rounded away, no float arithmetic on the way.
    assert b'"revenue":19.9901' in answer.body and b'"revenue":100.005' in answer.body
    assert b'"total_revenue":119.9951' in answer.body and report["total_orders"] == 4
    assert report["days"][-1] == {"date": today.isoformat(), "orders": 2, "revenue": 19.9901}
    assert report["days"][-2] == {"date": yesterday.isoformat(), "orders": 2, "revenue": 100.005}
    assert all(d["orders"] == 0 for d in report["days"][:-2])
    assert b'"revenue":0,' in answer.body or b'"revenue":0}' in answer.body

    # The dashboard's table shows the same days and counts.
    from admin.helpers import login

    login(site, "boss", role="shop_manager")
    page = site.app.get("/admin/")
    rows = {tr["data-day"]: int(tr.select("td")[1].text) for tr in page.html.select("#dash-orders-table tbody tr")}
    assert rows == {d["date"]: d["orders"] for d in report["days"]}


def test_a_period_asked_for(make_site):
    site = make_site()
    manager = site.headers_for("shop_manager")
    add_order(site, "3.5000", datetime(2026, 2, 28, 12, 0, tzinfo=ZoneInfo("UTC")))
    add_order(site, "4.2500", datetime(2026, 3, 1, 12, 0, tzinfo=ZoneInfo("UTC")))
    report = site.app.get(R, {"date_min": "2026-02-27", "date_max": "2026-03-02"}, headers=manager).json
    assert [(d["date"], d["orders"], Decimal(str(d["revenue"]))) for d in report["days"]] == [
        ("2026-02-27", 0, 0), ("2026-02-28", 1, Decimal("3.5")), ("2026-03-01", 1, Decimal("4.25")), ("2026-03-02", 0, 0)]
    assert report["total_orders"] == 2 and report["total_revenue"] == 7.75
    # One day; date_min alone: 30 days from it (never beyond today).
    one = site.app.get(R, {"date_min": "2026-03-01", "date_max": "2026-03-01"}, headers=manager).json
    assert [d["date"] for d in one["days"]] == ["2026-03-01"] and one["total_orders"] == 1
    start = site.app.get(R, {"date_min": "2026-02-01"}, headers=manager).json
    assert (start["date_min"], start["date_max"], len(start["days"])) == ("2026-02-01", "2026-03-02", 30)
    # A whole leap year is the most one request covers.
    year = site.app.get(R, {"date_min": "2024-01-01", "date_max": "2024-12-31"}, headers=manager).json
    assert len(year["days"]) == 366


def test_bad_periods_are_named(make_site):
    site = make_site()
    manager = site.headers_for("shop_manager")
    err = assert_error(site.app.get(R, {"date_min": "2026-03-02", "date_max": "2026-03-01"}, headers=manager,
                                    status=400), 400, "rest_invalid_param")
    assert set(err["data"]["params"]) == {"date_min"}
    err = assert_error(site.app.get(R, {"date_min": "2025-01-01", "date_max": "2026-01-02"}, headers=manager,
                                    status=400), 400, "rest_invalid_param")
    assert set(err["data"]["params"]) == {"date_max"}
    # The calendar's ends: a default period from them would leave it.
    for name, edge in (("date_max", "0001-01-01"), ("date_min", "9999-12-31"), ("date_min", "1899-12-31")):
        err = assert_error(site.app.get(R, {name: edge}, headers=manager, status=400), 400, "rest_invalid_param")
        assert set(err["data"]["params"]) == {name}
    # A date_min after today without a date_max: the default end is today, before it.
    err = assert_error(site.app.get(R, {"date_min": "9998-12-31"}, headers=manager, status=400), 400,
                       "rest_invalid_param")
    assert "today" in err["data"]["params"]["date_min"]
    for bad in ("2026-02-30", "yesterday", "2026-1-1", "99999-01-01"):
        err = assert_error(site.app.get(R, {"date_min": bad}, headers=manager, status=400), 400, "rest_invalid_param")
        assert set(err["data"]["params"]) == {"date_min"}


def test_only_the_shop_staff_read_it(make_site):
    site = make_site()
    assert_error(site.app.get(R, status=401), 401, "rest_not_logged_in")
    assert_error(site.app.get(R, headers=site.headers_for("customer"), status=403), 403, "rest_forbidden")
    site.app.get(R, headers=site.headers_for("administrator"), status=200)


def test_one_statement_however_many_orders(make_site):
    site = make_site()
    manager = site.headers_for("shop_manager")
    tz = ZoneInfo("UTC")
    today = datetime.now(tz).date()

    def statements():
        with count_queries(site.engine) as queries:
            report = site.app.get(R, {"date_min": (today - timedelta(days=365)).isoformat(),
                                      "date_max": today.isoformat()}, headers=manager).json
        return queries(), report["total_orders"]

    add_order(site, "1.0000", local(today, 0, 0, tz))
    statements()  # the caller's and the site's reads kept
    add_order(site, "1.0000", local(today, 0, 0, tz))
    few = statements()
    for n in range(1, 39):
        add_order(site, "1.0000", local(today - timedelta(days=n * 9), 0, 0, tz))
    assert statements() == (few[0], 40) and few[1] == 2
