"""The admin's dashboard (``{base_url}/admin/``): the panels the user may see, collected from the
``storeplatform_admin_dashboard_panels`` hook, and the host's own panel (paid orders and revenue
per day of a period: the last 7, 30 or 90 days, this month, or a range of days, ``?period=``),
which is an implementation of that hook like the plugins' ones."""
import re
from datetime import date, datetime, timedelta

from pyramid.httpexceptions import HTTPBadRequest

from storeplatform.core.hookspecs import hookimpl

DAYS = 30  # the period shown when none is asked for
PERIODS = {"7": "Last 7 days", "30": "Last 30 days", "90": "Last 90 days", "month": "This month", "range": "Days from … to …"}
MAX_RANGE = 366  # days a range may span: a year's chart, one statement over the orders' date index
PANEL_KEYS = {"name", "title", "template", "values", "order"}


def dashboard(request):
    from .guard import AdminForbidden, check_request, layout_values
    from .pages import visible_pages

    check_request(request, None)
    pages = visible_pages(request)
    if not pages:
        # Customers and subscribers have no page here: the admin is the staff's.
        raise AdminForbidden("You are logged in, but your account may not use the admin.")
    return layout_values(request, title="Dashboard", pages=pages, panels=collect_panels(request))


def collect_panels(request):
    """Every panel the hook's implementations return for this user, sorted by order then name."""
    panels = []
    for returned in request.hooks.storeplatform_admin_dashboard_panels(request=request):
        for panel in returned or ():
            missing = {"name", "title", "template"} - set(panel)
            unknown = set(panel) - PANEL_KEYS
            if missing or unknown:
                raise ValueError(f"a dashboard panel needs name, title and template and knows only "
                                 f"{sorted(PANEL_KEYS)}: {sorted(panel)}")
            panels.append({"values": {}, "order": 100, **panel})
    return sorted(panels, key=lambda p: (p["order"], p["name"]))


def chosen_period(request, today):
    """(key, first day, last day, title) of the period the query asks for (``period``; with
    ``range``, ``from`` and ``to`` as YYYY-MM-DD, at most ``MAX_RANGE`` days); anything else is
    the 400 page naming it."""
    from .listing import query_values

    values = query_values(request)
    period = values.get("period", "").strip() or str(DAYS)
    if period not in PERIODS:
        raise HTTPBadRequest(f"The dashboard cannot show this period: period must be one of {', '.join(PERIODS)}.")
    if period == "month":
        return period, today.replace(day=1), today, "This month"
    if period != "range":
        return period, today - timedelta(days=int(period) - 1), today, PERIODS[period]
    ends = []
    for name in ("from", "to"):
        text = values.get(name, "").strip()
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            raise HTTPBadRequest(f"The dashboard cannot show this period: {name} must be a date as YYYY-MM-DD.")
        try:
            ends.append(date.fromisoformat(text))
        except ValueError:
            raise HTTPBadRequest(f"The dashboard cannot show this period: {name} is no date ({text!r}).")
    first_day, last_day = ends
    if first_day > last_day or (last_day - first_day).days >= MAX_RANGE:
        raise HTTPBadRequest(f"The dashboard cannot show this period: from must not be after to, and a range "
                             f"spans at most {MAX_RANGE} days.")
    return period, first_day, last_day, f"{first_day.isoformat()} to {last_day.isoformat()}"


def short_day(day):
    """``Nov 26``: the chart's label of a day (the table beside it has the full date)."""
    return f"{day:%b} {day.day}"


@hookimpl
def storeplatform_admin_dashboard_panels(request):
    from storeplatform.core.auth import user_can
    from storeplatform.components.shop.money import currency_format, format_money
    from storeplatform.core.options import site_timezone
    from storeplatform.components.shop.sales import daily_sales, period_totals

    # The numbers of store/v1/orders, which needs manage_shop.
    if not user_can(request, "manage_shop"):
        return None
    session = request.db
    tz = site_timezone(session)
    money = currency_format(session)
    today = datetime.now(tz).date()
    period, first_day, last_day, title = chosen_period(request, today)
    days = daily_sales(session, first_day, last_day, tz, money["currency"])
    today_sales = days[-1] if last_day == today else daily_sales(session, today, today, tz, money["currency"])[0]
    total_orders, total_revenue = period_totals(days)
    rows = [{"day": d.day.isoformat(), "label": short_day(d.day), "orders": d.orders,
             "revenue": format_money(d.revenue, money), "amount": str(d.revenue)} for d in days]
    chart = {
        "labels": [r["label"] for r in rows],
        "datasets": [
            {"type": "bar", "label": f"Revenue ({money['currency']})", "axis": "money",
             "data": [float(d.revenue) for d in days], "display": [r["revenue"] for r in rows]},
            {"type": "line", "label": "Paid orders", "axis": "count", "data": [d.orders for d in days]},
        ],
    }
    return [{
        "name": "orders", "title": "Orders and revenue", "template": "admin/dashboard_orders.jinja2", "order": 10,
        "values": {
            "today": {"orders": today_sales.orders, "revenue": format_money(today_sales.revenue, money)},
            "period": {"orders": total_orders, "revenue": format_money(total_revenue, money), "days": len(days),
                       "title": title, "key": period, "from": first_day.isoformat(), "to": last_day.isoformat(),
                       "choices": PERIODS},
            "currency": money["currency"], "timezone": str(tz), "rows": rows, "chart": chart,
        },
    }]
