"""The admin's Customers page (WebTest): the users with the customer role, searched and paged,
each with their order count and total (one statement for the page, whatever its size), the CSV
export, and links to the Users pages to edit them."""
from decimal import Decimal

from sqlalchemy import insert, select

from storeplatform.api import Product, User, create_order
from storeplatform.testing import count_queries

from .helpers import assert_page, login


def customers(make_site, n):
    site = make_site()
    login(site, "boss", role="shop_manager")
    for i in range(n):
        site.create_user(f"cust{i:02d}", "customer", email=f"c{i}@buyers.example")
    site.create_user("ed", "editor")
    with site.session() as s:
        s.execute(insert(Product), [{"id": 1, "name": "Mug", "regular_price": Decimal("12.5"), "meta": {}}])
    return site


def buy(site, login_name, times, status="completed"):
    with site.session() as s:
        user_id = s.execute(select(User.id).where(User.login == login_name)).scalar_one()
        for _ in range(times):
            create_order(s, line_items=[{"product_id": 1, "quantity": 2}], customer_id=user_id, status=status)
    return user_id


def logins(page):
    return [a.text for a in page.html.select("#customers tbody td[data-label=Login] a")]


def test_the_list_with_order_figures_search_and_pages(make_site):
    site = customers(make_site, 55)
    user_id = buy(site, "cust54", 3)
    buy(site, "cust54", 1, status="cancelled")  # an order, but nothing spent
    buy(site, "cust53", 1, status="pending")
    page = assert_page(site.app.get("/admin/customers"), 200, "1–50 of 55 customers.")
    assert logins(page)[0] == "cust54" and "ed" not in logins(page)
    first = page.html.select_one("#customers tbody tr")
    assert first.select_one("td[data-label=Orders]").text == "4"
    assert first.select_one("td[data-label=Spent]").text == "$75.00"
    # Their orders, on the Orders page.
    theirs = site.app.get(first.select_one("td[data-label=Orders] a")["href"])
    assert theirs.html.select_one(".list-total").text == "1–4 of 4 orders found."
    assert_page(site.app.get("/admin/orders?customer=" + "9" * 20, status=400), 400, "customer must be a user id")
    assert_page(site.app.get("/admin/orders?customer=x", status=400), 400, "customer must be a user id")
    assert first.select_one("td[data-label=Login] a")["href"].endswith(f"/admin/users/{user_id}")
    second = page.html.select("#customers tbody tr")[1]
    assert (second.select_one("td[data-label=Orders]").text, second.select_one("td[data-label=Spent]").text) == ("1", "—")
    assert page.html.select("#customers tbody tr")[2].select_one("td[data-label=Orders]").text == "0"
    assert_page(page.click("Next"), 200, "51–55 of 55 customers.")
    assert logins(site.app.get("/admin/customers", {"search": "C1@BUYERS"})) == ["cust01"]
    assert site.app.get("/admin/customers", {"search": "cust0"}).html.select_one(".list-total").text == \
        "1–10 of 10 customers found."
    for query in ("page=0", "page=" + "9" * 20, "search=%00"):
        assert_page(site.app.get("/admin/customers?" + query, status=400), 400)


def test_a_page_costs_the_same_statements_with_3_or_30_customers(make_site):
    site = customers(make_site, 3)
    buy(site, "cust00", 1)
    site.app.get("/admin/customers")
    with count_queries(site.engine) as few:
        site.app.get("/admin/customers")
    for i in range(3, 30):
        site.create_user(f"cust{i:02d}", "customer")
        buy(site, f"cust{i:02d}", 1)
    site.app.get("/admin/customers")  # the login's user read again once (users changed)
    with count_queries(site.engine) as many:
        site.app.get("/admin/customers")
    assert few() == many()


def test_the_export(make_site):
    site = customers(make_site, 2)
    buy(site, "cust01", 2)
    body = site.app.get("/admin/customers/export.csv").body.decode("utf-8-sig")
    lines = body.split("\r\n")
    assert lines[0] == "id,login,name,email,since,disabled,orders,total_spent,currency"
    assert [line.split(",")[1:2] + line.split(",")[5:] for line in lines[1:3]] == [
        ["cust01", "no", "2", "50.00", "USD"], ["cust00", "no", "0", "", "USD"]]
    assert site.app.get("/admin/customers/export.csv?search=cust00").body.decode().count("\r\n") == 2


def test_the_export_keeps_names_whole_for_excel(make_site):
    """A UTF-8 byte order mark first: Excel on Windows reads the file as UTF-8, "Zoë Łukasz" whole."""
    site = customers(make_site, 1)
    with site.session() as s:
        s.execute(User.__table__.update().where(User.login == "cust00").values(display_name="Zoë Łukasz"))
    buy(site, "cust00", 1)
    body = site.app.get("/admin/customers/export.csv").body
    assert body.startswith(b"\xef\xbb\xbfid,login,name,")
    row = body.decode("utf-8-sig").split("\r\n")[1].split(",")
    assert row[1:4] == ["cust00", "Zoë Łukasz", "c0@buyers.example"] and row[-2:] == ["25.00", "USD"]
    assert "Zoë Łukasz".encode() in body
