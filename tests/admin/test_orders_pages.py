"""The admin's Orders pages (WebTest): the list (search by number, customer or e-mail, status,
dates, paging, bad input a 400 page), its CSV export, and an order's page (lines, totals,
customer, a status change through REST's own function: the same validation and the same
action, once; plugins' sections such as the invoicing plugin's documents)."""
from datetime import datetime, timezone
from decimal import Decimal

import pytest
from sqlalchemy import insert, select, update

from storeplatform.api import Order, Product, User, create_order, hookimpl
from storeplatform.testing import count_queries

from .helpers import assert_page, login, token


def shop(make_site, **settings):
    site = make_site(**settings)
    login(site, "boss", role="shop_manager")
    with site.session() as s:
        s.execute(insert(Product), [{"id": 1, "name": "Mug", "regular_price": Decimal("12.5"), "meta": {}},
                                    {"id": 2, "name": "=cmd|' /C calc'!A0", "regular_price": Decimal("3"), "meta": {}}])
    return site


def add_orders(site, n, status="pending", billing=None, customer_id=None, lines=((1, 1),)):
    ids = []
    with site.session() as s:
        for i in range(n):
            order = create_order(s, line_items=[{"product_id": p, "quantity": q} for p, q in lines], status=status,
                                 billing=billing or {"first_name": "Ann", "last_name": f"Lee{i}",
                                                     "email": f"ann{i}@shop.example"}, customer_id=customer_id)
            ids.append(order.id)
    return ids


def numbers(page):
    return [a.text for a in page.html.select("#orders tbody td[data-label=Order] a")]


def test_the_list_searches_filters_and_pages(make_site):
    site = shop(make_site)
    pending = add_orders(site, 55)
    done = add_orders(site, 2, status="completed", billing={"first_name": "Zoë", "last_name": "Åberg",
                                                             "email": "zoe@other.example"})
    page = assert_page(site.app.get("/admin/orders"), 200, "1–50 of 57 orders.")
    assert numbers(page)[:3] == [f"#{done[1]}", f"#{done[0]}", f"#{pending[-1]}"]
    second = assert_page(page.click("Next"), 200, "51–57 of 57 orders.")
    assert len(numbers(second)) == 7 and "Page 2 of 2" in second.text
    assert numbers(site.app.get("/admin/orders", {"status": "completed"})) == [f"#{done[1]}", f"#{done[0]}"]
    assert numbers(site.app.get("/admin/orders", {"search": "ZOE@OTHER"})) == [f"#{done[1]}", f"#{done[0]}"]
    assert numbers(site.app.get("/admin/orders", {"search": "åberg"})) == [f"#{done[1]}", f"#{done[0]}"]
    assert numbers(site.app.get("/admin/orders", {"search": f"#{pending[3]}"})) == [f"#{pending[3]}"]
    found = site.app.get("/admin/orders", {"search": "lee1", "status": "pending"})
    assert found.html.select_one(".list-total").text == "1–11 of 11 orders found."  # Lee1, Lee10..Lee19
    # Dates are the site's: an order of 23:30 UTC on 1 July is of 2 July in Paris.
    site.set_option("site.timezone", "Europe/Paris")
    with site.session() as s:
        s.execute(update(Order).where(Order.id == pending[0]).values(
            created_at=datetime(2026, 7, 1, 23, 30, tzinfo=timezone.utc)))
    assert numbers(site.app.get("/admin/orders", {"from": "2026-07-02", "to": "2026-07-02"})) == [f"#{pending[0]}"]
    assert numbers(site.app.get("/admin/orders", {"to": "2026-07-01"})) == []
    filtered = site.app.get("/admin/orders", {"search": "ann", "status": "pending", "per_page": "10"})
    link = filtered.html.select_one("a[rel=next]")["href"]
    assert "search=ann" in link and "status=pending" in link and "per_page=10" in link


@pytest.mark.parametrize("query", ["page=0", "page=" + "9" * 40, "status=lost", "from=2026-02-30", "search=%C3",
                                   "from=2026-03-01&to=2026-02-01", "per_page=0"])
def test_bad_list_input_is_a_400_page(make_site, query):
    site = shop(make_site)
    assert_page(site.app.get("/admin/orders?" + query, status=400), 400)
    assert_page(site.app.get("/admin/orders/export.csv?" + query, status=400), 400)


@pytest.mark.parametrize("path", ["/admin/orders/999999", "/admin/orders/" + "9" * 30, "/admin/orders/abc",
                                  "/admin/orders/-1"])
def test_bad_order_ids_are_a_404_page(make_site, path):
    site = shop(make_site)
    assert_page(site.app.get(path, status=404), 404)


def test_a_page_costs_the_same_statements_with_3_or_30_orders(make_site):
    site = shop(make_site)
    site.create_user("cust", "customer")
    add_orders(site, 3)
    site.app.get("/admin/orders")
    with count_queries(site.engine) as few:
        site.app.get("/admin/orders")
    with site.session() as s:
        customer_id = s.execute(select(User.id).where(User.login == "cust")).scalar_one()
    add_orders(site, 27, customer_id=customer_id, lines=((1, 2), (2, 1)))
    with count_queries(site.engine) as many:
        site.app.get("/admin/orders")
    with count_queries(site.engine) as filtered:
        site.app.get("/admin/orders?status=pending&page=2&per_page=10")
    assert few() == many() == filtered()


def test_the_export_is_every_filtered_order_or_line(make_site):
    site = shop(make_site)
    site.set_option("site.timezone", "Europe/Paris")
    first, second = add_orders(site, 2, lines=((1, 2), (2, 1)))
    with site.session() as s:
        s.execute(update(Order).values(created_at=datetime(2026, 7, 1, 23, 30, tzinfo=timezone.utc)))
        s.execute(update(Order).where(Order.id == second).values(
            billing={"first_name": "-Eve", "last_name": "@x", "email": "+eve@x.example"}, status="completed"))
    res = site.app.get("/admin/orders/export.csv")
    assert res.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert res.headers["Content-Disposition"].startswith('attachment; filename="orders-')
    # Money as a plain decimal with the store's decimals, the currency in its own column.
    assert res.body == "\ufeff".encode() + (
        "order,date,status,currency,total,customer_id,first_name,last_name,email\r\n"
        f"{second},2026-07-02 01:30:00,completed,USD,28.00,,'-Eve,'@x,'+eve@x.example\r\n"
        f"{first},2026-07-02 01:30:00,pending,USD,28.00,,Ann,Lee0,ann0@shop.example\r\n").encode()
    lines = site.app.get("/admin/orders/export.csv?lines=1&status=pending").body.decode("utf-8-sig")
    assert lines == (
        "order,date,status,currency,email,product_id,item,quantity,unit_price,line_total\r\n"
        f"{first},2026-07-02 01:30:00,pending,USD,ann0@shop.example,1,Mug,2,12.50,25.00\r\n"
        f"{first},2026-07-02 01:30:00,pending,USD,ann0@shop.example,2,'=cmd|' /C calc'!A0,1,3.00,3.00\r\n")


class Recorder:
    def __init__(self):
        self.changes = []

    @hookimpl
    def storeplatform_order_status_changed(self, order, old_status, new_status):
        self.changes.append((order.id, old_status, new_status))


def test_a_status_change_is_rests_with_its_action_once(make_site):
    recorder = Recorder()
    site = shop(make_site, plugins=[recorder])
    (order_id,) = add_orders(site, 1)
    page = assert_page(site.app.get(f"/admin/orders/{order_id}"), 200, "Order #%d" % order_id)
    assert [td.text for td in page.html.select("#order-lines td[data-label=Item]")] == ["Mug"]
    assert page.html.select_one("#order-total").text.strip() == "$12.50"  # the store's money format
    assert "Guest order" in page.text and "ann0@shop.example" in page.text
    form = page.forms["status-form"]
    form["status"] = "completed"
    done = assert_page(form.submit().follow(), 200, "is now completed (was pending)")
    assert done.html.select_one("#order-status").text == "completed"
    assert recorder.changes == [(order_id, "pending", "completed")]
    # Through REST the same way: the action once more.
    site.app.put_json(f"/api/store/v1/orders/{order_id}", {"status": "refunded"}, headers=site.headers_for("administrator"))
    assert recorder.changes[-1] == (order_id, "completed", "refunded")
    # A status REST refuses is refused beside the field, with REST's message; nothing changes.
    bad = site.app.post(f"/admin/orders/{order_id}/status", {"csrf_token": token(done), "status": "lost"}, status=400)
    assert_page(bad, 400)
    assert bad.html.select_one("#error-status").text.startswith('"lost" is not one of')
    assert len(recorder.changes) == 2
    # The same status again changes nothing and fires nothing.
    same = site.app.post(f"/admin/orders/{order_id}/status", {"csrf_token": token(done), "status": "refunded"})
    assert "was already refunded" in same.follow().text and len(recorder.changes) == 2
    # Without the form token: the 403 page, nothing changed.
    site.app.post(f"/admin/orders/{order_id}/status", {"status": "failed"}, status=403)
    assert len(recorder.changes) == 2


def test_a_customer_may_not_see_orders(make_site):
    site = shop(make_site)
    site.app.post("/admin/logout", {"csrf_token": token(site.app.get("/admin/orders"))})
    login(site, "buyer", role="customer")
    assert_page(site.app.get("/admin/orders", status=403), 403)
    assert_page(site.app.get("/admin/orders/export.csv", status=403), 403)


def test_the_invoicing_plugin_lists_the_orders_documents(make_site):
    site = shop(make_site, **{"storeplatform.plugins": "invoicing"})
    (paid,) = add_orders(site, 1, status="completed")
    (open_,) = add_orders(site, 1)
    page = assert_page(site.app.get(f"/admin/orders/{paid}"), 200, "Documents")
    # The test queue renders right after the commit: the invoice is there, its PDF on the
    # Invoices pages.
    [link] = page.html.select(".order-section a")
    assert link.text.startswith("Invoice ") and "(PDF, " in link.text
    assert site.app.get(link["href"]).content_type == "application/pdf"
    assert "No document yet" in site.app.get(f"/admin/orders/{open_}").text
    # Without the plugin (another site on the same database) the page has no such section.
    bare = make_site()
    login(bare, "boss")
    assert "Documents" not in assert_page(bare.app.get(f"/admin/orders/{paid}"), 200, "Order #").text


def test_a_status_change_in_the_admin_sends_the_webhooks_rest_sends(make_site):
    """Paid in the admin: the events plugin issues the tickets and its attendee.created webhook
    is delivered, as after REST's order update."""
    import json

    from events.webhook_fixtures import hooks_site
    from events.webhook_receiver import Receiver
    from storeplatform.testing import wait_for

    receiver = Receiver()
    try:
        wh = hooks_site(make_site)
        wh.webhook("attendee.created", receiver.url("/created"))
        event = wh.event("Recital")
        product_id = wh.product(event["id"])
        by_admin = wh.order([(product_id, 2)], status="pending")
        by_rest = wh.order([(product_id, 1)], status="pending")
        login(wh.site, "boss", role="shop_manager")
        page = wh.site.app.get(f"/admin/orders/{by_admin}")
        form = page.forms["status-form"]
        form["status"] = "processing"
        form.submit().follow()
        wh.set_order_status(by_rest, "processing")
        assert wait_for(lambda: len(receiver.posts("/created")) == 3)
        orders = sorted(json.loads(r.body)["data"]["order_id"] for r in receiver.posts("/created"))
        assert orders == sorted([by_admin, by_admin, by_rest])
    finally:
        receiver.close()
