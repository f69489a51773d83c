"""What a new owner sees after loading the demo (``storeplatform demo``, as ``dev.py serve`` does):
a shop that has been selling for two months (revenue on many days of the dashboard's chart, not
one bar today), a season of events under way (today's, the next ones with tickets sold, on the
dashboard and at the desk) and a door that is open (check-ins today). The dates are the load's;
what is sold is seeded, the same on every load; a second load adds nothing."""
from datetime import timedelta

from sqlalchemy import func, select

from storeplatform.api import Order, call_action, site_timezone, utcnow
from storeplatform.components.shop import demo as shop_demo
from storeplatform_events import demo as events_demo

from .helpers import assert_page, login


def load_demo(site):
    with site.session() as s:
        call_action(site.hooks.storeplatform_demo_data, session=s)


def order_days(site):
    with site.session() as s:
        tz = site_timezone(s)
        return [at.astimezone(tz).date() for at in s.execute(select(Order.created_at)).scalars()]


def test_a_new_owner_sees_a_shop_and_a_season_under_way(make_site):
    site = make_site(**{"storeplatform.plugins": "events invoicing"})
    load_demo(site)
    now = utcnow()
    days = order_days(site)
    with site.session() as s:
        today = now.astimezone(site_timezone(s)).date()
    # Orders of the last 60 days, on many different days, none in the future.
    assert min(days) >= today - timedelta(days=59) and max(days) == today
    assert len(set(days)) >= 30 and len(set(d for d in days if d > today - timedelta(days=30))) >= 12

    login(site, "owner", role="administrator")
    dashboard = assert_page(site.app.get("/admin/"), 200, "Dashboard")
    revenue = {row["data-day"]: row.select("td")[2].text
               for row in dashboard.html.select("#dash-orders-table tbody tr")}
    assert len(revenue) == 30
    assert sum(text != "$0.00" for text in revenue.values()) >= 10
    assert revenue[today.isoformat()] != "$0.00"

    # The next events with their tickets sold, and today's door with its check-ins.
    sold = [int(td.text) for td in dashboard.html.select("#dash-tickets-table tbody .sold")]
    assert len(sold) == 8 and all(n > 0 for n in sold)
    today_events = dashboard.html.select("#dash-checkins-events li")
    assert [li.a.text for li in today_events] == ["Family Picnic"]
    assert int(today_events[0].select_one(".checked-in").text) > 0
    assert "No check-ins yet today" not in dashboard.text
    per_slot = [int(td.text) for td in dashboard.html.select("#dash-checkins-table tbody td.num")]
    assert sum(per_slot) == int(today_events[0].select_one(".checked-in").text)

    desk = assert_page(site.app.get("/admin/checkin"), 200, "Choose the event")
    assert "No upcoming event." not in desk.text and "No event today." not in desk.text
    assert len(desk.html.select("#desk-upcoming-list [data-id]")) == 9
    assert len(desk.html.select("#desk-today-list [data-id]")) == 1
    event_id = desk.html.select_one("#desk-today-list [data-id]")["data-id"]
    live = site.app.get(f"/admin/checkin/{event_id}/live").json
    assert live["stats"]["checked_in"] > 0 and live["stats"]["pending"] > 0
    assert len(live["recent"]) > 0 and all(r["checked_in_at"].startswith(today.isoformat()) for r in live["recent"])


def test_the_demo_is_the_same_on_every_load_and_loads_once(make_site):
    assert shop_demo.order_history() == shop_demo.order_history()
    assert events_demo.ticket_orders() == events_demo.ticket_orders()
    assert shop_demo.order_history(1) != shop_demo.order_history(2)
    site = make_site(**{"storeplatform.plugins": "events"})
    load_demo(site)
    with site.session() as s:
        orders = s.execute(select(func.count()).select_from(Order)).scalar()
    assert orders == 2 + shop_demo.HISTORY_ORDERS + len(events_demo.ticket_orders())
    days = sorted(order_days(site))
    load_demo(site)
    with site.session() as s:
        assert s.execute(select(func.count()).select_from(Order)).scalar() == orders
    assert sorted(order_days(site)) == days
