"""store/v1 reports (manage_shop): sales per local day of the site, the figures the admin's
dashboard draws (``store.sales.daily_sales``: paid orders in the store's currency)."""
from datetime import date, datetime, timedelta

from storeplatform.core.errors import InvalidParams
from storeplatform.core.rest import Service
from .. import schemas
from ..money import currency_format
from storeplatform.core.options import site_timezone
from ..orders import PAID_STATUSES
from ..sales import daily_sales, period_totals

# A default period of 30 days ending today, as the dashboard's; at most a leap year of days
# per request (an answer of 366 rows, one statement over the orders' creation index).
DEFAULT_DAYS = 30
MAX_DAYS = 366
# Days a report may name: a calendar's first and last days are beyond the reach of a day before
# or after them and of every time zone's UTC bounds.
FIRST_DAY, LAST_DAY = date(1900, 1, 1), date(9998, 12, 31)

sales = Service("store/v1", "/reports/sales", name="sales_report",
                description="Paid orders and their revenue per local day of the site.")


def report_period(validated, today):
    """(date_min, date_max) of a query: the days asked, by default the 30 days to today (or from
    ``date_min``; to ``date_max``)."""
    date_min, date_max = validated.get("date_min"), validated.get("date_max")
    outside = {name: f"{day} is not between {FIRST_DAY} and {LAST_DAY}"
               for name, day in (("date_min", date_min), ("date_max", date_max))
               if day is not None and not FIRST_DAY <= day <= LAST_DAY}
    if outside:
        raise InvalidParams(outside)
    if date_max is None:
        date_max = min(today, date_min + timedelta(days=DEFAULT_DAYS - 1)) if date_min else today
    if date_min is None:
        date_min = date_max - timedelta(days=DEFAULT_DAYS - 1)
    if date_min > date_max:
        after = f"date_max {date_max}" if "date_max" in validated else f"today ({date_max}, the default date_max)"
        raise InvalidParams({"date_min": f"{date_min} is after {after}"})
    if (date_max - date_min).days + 1 > MAX_DAYS:
        raise InvalidParams({"date_max": f"a report covers at most {MAX_DAYS} days"})
    return date_min, date_max


@sales.get(permission="manage_shop", query=schemas.SalesReportQuery(), cache="public")
def sales_report(request):
    session = request.db
    tz = site_timezone(session)
    currency = currency_format(session)["currency"]
    date_min, date_max = report_period(request.validated, datetime.now(tz).date())
    days = daily_sales(session, date_min, date_max, tz, currency)
    total_orders, total_revenue = period_totals(days)
    return {
        "date_min": date_min.isoformat(),
        "date_max": date_max.isoformat(),
        "timezone": str(tz),
        "currency": currency,
        "statuses": list(PAID_STATUSES),
        "total_orders": total_orders,
        "total_revenue": total_revenue,
        "days": [{"date": d.day.isoformat(), "orders": d.orders, "revenue": d.revenue} for d in days],
    }
