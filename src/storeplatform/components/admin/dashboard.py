"""The admin's dashboard (``{base_url}/admin/``): the panels the user may see, collected from the
``storeplatform_admin_dashboard_panels`` hook, and the host's own panel (paid orders and revenue
per day of the last 30 days), which is an implementation of that hook like the plugins' ones."""
from datetime import datetime, timedelta

from storeplatform.core.hookspecs import hookimpl

DAYS = 30
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
    days = daily_sales(session, today - timedelta(days=DAYS - 1), today, tz, money["currency"])
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
            "today": {"orders": days[-1].orders, "revenue": format_money(days[-1].revenue, money)},
            "period": {"orders": total_orders, "revenue": format_money(total_revenue, money), "days": DAYS},
            "currency": money["currency"], "timezone": str(tz), "rows": rows, "chart": chart,
        },
    }]
