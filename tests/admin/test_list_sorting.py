"""The admin's lists sorted by a column (WebTest): a header's link sorts (the other direction when
the list is sorted by it already), the sort is kept by the pager's and the export's links, the
current column carries ``aria-sort``, ties are broken by the id (the page walk's total order), a
bad ``orderby``/``order`` is the 400 page naming it, and a sorted page costs the same statements
whatever the number of rows."""
from datetime import datetime, timezone
from decimal import Decimal
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import insert, select, update

from storeplatform.api import Order, Product, User, create_order
from storeplatform.testing import count_queries

from .helpers import assert_page, login


def catalogue(make_site, rows):
    """A site with the products ``rows`` ((name, price, status), ids 1.. in that order)."""
    site = make_site()
    login(site, "boss", role="shop_manager")
    with site.session() as s:
        s.execute(insert(Product), [{"id": i, "name": name, "regular_price": price, "status": status, "meta": {}}
                                    for i, (name, price, status) in enumerate(rows, 1)])
    return site


def ids(page, table):
    return [int(tr["data-id"]) for tr in page.html.select(f"#{table} tbody tr")]


def header(page, table, label):
    """The header cell of ``table`` whose link reads ``label``."""
    [th] = [th for th in page.html.select(f"#{table} thead th") if th.a and th.a.text.split(" ")[0] == label]
    return th


def sort_of(url):
    query = parse_qs(urlsplit(url).query)
    return query.get("orderby", [""])[0], query.get("order", [""])[0]


PRODUCTS = [("Cup", Decimal("5"), "publish"), ("Apple", Decimal("30"), "draft"), ("Bowl", Decimal("5"), "publish"),
            ("Dish", Decimal("12.5"), "pending"), ("Bowl", Decimal("7"), "publish")]


def test_a_header_sorts_the_products_and_clicking_again_reverses(make_site):
    site = catalogue(make_site, PRODUCTS)
    page = site.app.get("/admin/products")
    assert ids(page, "products") == [5, 4, 3, 2, 1]  # newest first: the default, no aria-sort but the id's
    assert header(page, "products", "ID").get("aria-sort") == "descending"
    assert [th.get("aria-sort") for th in page.html.select("#products thead th")] == [None] * 6 + ["descending"]
    by_name = page.click(href="orderby=name")
    assert sort_of(by_name.request.url) == ("name", "asc")
    # Equal names by id.
    assert ids(by_name, "products") == sorted(range(1, 6), key=lambda i: (PRODUCTS[i - 1][0], i))
    assert header(by_name, "products", "Name")["aria-sort"] == "ascending"
    assert header(by_name, "products", "ID").get("aria-sort") is None
    back = site.app.get("/admin/products" + header(by_name, "products", "Name").a["href"])
    assert sort_of(back.request.url) == ("name", "desc")
    assert ids(back, "products") == list(reversed(ids(by_name, "products")))
    assert header(back, "products", "Name")["aria-sort"] == "descending"
    # Equal prices keep the id's order in both directions of the price (the id follows it).
    assert ids(site.app.get("/admin/products?orderby=price&order=asc"), "products") == [1, 3, 5, 4, 2]
    assert ids(site.app.get("/admin/products?orderby=price&order=desc"), "products") == [2, 4, 5, 3, 1]
    assert ids(site.app.get("/admin/products?orderby=status"), "products") == [2, 4, 1, 3, 5]
    assert ids(site.app.get("/admin/products?orderby=id&order=asc"), "products") == [1, 2, 3, 4, 5]
    # A filter and a sort together.
    assert ids(site.app.get("/admin/products?status=publish&orderby=price&order=desc"), "products") == [5, 3, 1]


def test_the_sort_is_kept_by_the_pager_and_the_export(make_site):
    rows = [(f"Item {i:03d}", Decimal(i % 7), "publish") for i in range(1, 61)]
    site = catalogue(make_site, rows)
    expected = sorted(range(1, 61), key=lambda i: (i % 7, i))
    first = site.app.get("/admin/products?orderby=price&order=asc&search=item")
    assert ids(first, "products") == expected[:50]
    second = first.click("Next")
    assert sort_of(second.request.url) == ("price", "asc")
    # Page 2 of 2 is read from the far end (the reversed order): the same rows in order.
    assert ids(second, "products") == expected[50:]
    assert sort_of(second.html.select_one("a[rel=prev]")["href"]) == ("price", "asc")
    export = second.html.select_one("#products-export a[download]")["href"]
    assert sort_of(export) == ("price", "asc")
    lines = site.app.get(export).body.decode("utf-8-sig").split("\r\n")[1:-1]
    assert [int(line.split(",")[0]) for line in lines] == expected
    # The default sort is left out of the links.
    plain = site.app.get("/admin/products?orderby=id&order=desc")
    assert sort_of(plain.html.select_one("a[rel=next]")["href"]) == ("", "")


def test_a_header_sorts_the_orders(make_site):
    site = make_site()
    login(site, "boss", role="shop_manager")
    with site.session() as s:
        s.execute(insert(Product), [{"id": 1, "name": "Mug", "regular_price": Decimal("2.5"), "meta": {}}])
        made = [create_order(s, line_items=[{"product_id": 1, "quantity": q}], status=status,
                             billing={"email": f"o{q}@shop.example"}).id
                for q, status in ((3, "pending"), (1, "completed"), (4, "processing"), (1, "pending"))]
    page = site.app.get("/admin/orders")
    assert ids(page, "orders") == made[::-1]
    assert header(page, "orders", "Order")["aria-sort"] == "descending"
    by_total = page.click(href="orderby=total")
    assert sort_of(by_total.request.url) == ("total", "desc")  # the largest first
    assert ids(by_total, "orders") == [made[2], made[0], made[3], made[1]]
    assert header(by_total, "orders", "Total")["aria-sort"] == "descending"
    assert ids(site.app.get("/admin/orders?orderby=total&order=asc"), "orders") == [made[1], made[3], made[0],
                                                                                   made[2]]
    assert ids(site.app.get("/admin/orders?orderby=status"), "orders") == [made[1], made[0], made[3], made[2]]
    assert ids(site.app.get("/admin/orders?orderby=date&order=asc"), "orders") == made
    assert ids(site.app.get("/admin/orders?orderby=total&status=pending"), "orders") == [made[0], made[3]]
    lines = site.app.get("/admin/orders/export.csv?orderby=total&order=asc").body.decode("utf-8-sig")
    assert [int(line.split(",")[0]) for line in lines.split("\r\n")[1:-1]] == [made[1], made[3], made[0], made[2]]


@pytest.mark.parametrize(("path", "query", "message"), [
    ("/admin/products", "orderby=sku", "orderby must be one of name, price, status, id, not &#39;sku&#39;"),
    ("/admin/products", "orderby=name&order=up", "order must be asc or desc, not &#39;up&#39;"),
    ("/admin/products/export.csv", "orderby=type", "orderby must be one of"),
    ("/admin/orders", "orderby=email", "orderby must be one of id, date, total, status, not &#39;email&#39;"),
    ("/admin/orders", "order=DESC", "order must be asc or desc, not &#39;DESC&#39;"),
    ("/admin/orders/export.csv", "orderby=total&order=", None),
])
def test_a_bad_sort_is_the_400_page_naming_it(make_site, path, query, message):
    site = catalogue(make_site, PRODUCTS)
    if message is None:  # an empty order is the column's own direction
        assert site.app.get(f"{path}?{query}").status_int == 200
        return
    assert_page(site.app.get(f"{path}?{query}", status=400), 400, message)


def test_a_sorted_page_costs_the_same_statements_with_3_or_30_rows(make_site):
    site = catalogue(make_site, PRODUCTS[:3])
    with site.session() as s:
        for q in (1, 2, 3):
            create_order(s, line_items=[{"product_id": 1, "quantity": q}], billing={"email": "a@shop.example"})
    paths = ("/admin/products?orderby=name", "/admin/products?orderby=price&order=desc&status=publish",
             "/admin/orders?orderby=total", "/admin/orders?orderby=status&order=desc&page=2&per_page=10")
    for path in paths:
        site.app.get(path)
    few = []
    for path in paths:
        with count_queries(site.engine) as counted:
            site.app.get(path)
        few.append(counted())
    with site.session() as s:
        s.execute(insert(Product), [{"id": i, "name": f"More {i}", "regular_price": Decimal(i), "meta": {}}
                                    for i in range(4, 31)])
        for q in range(27):
            create_order(s, line_items=[{"product_id": 1, "quantity": q + 1}], billing={"email": "b@shop.example"})
        assert len(s.execute(select(Order.id)).scalars().all()) == 30
    many = []
    for path in paths:
        with count_queries(site.engine) as counted:
            site.app.get(path)
        many.append(counted())
    assert few == many


def test_a_header_sorts_the_users(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    made = {name: site.create_user(name, "customer") for name in ("dora", "carl", "bea", "al")}
    with site.session() as s:  # names against the logins' order; "since" against the ids'
        for name, display, day in (("dora", "Ann", 3), ("carl", "Zed", 1), ("bea", "Ann", 4), ("al", "Max", 2)):
            s.execute(update(User).where(User.id == made[name]).values(
                display_name=display, created_at=datetime(2026, 5, day, tzinfo=timezone.utc)))
    page = site.app.get("/admin/users?role=customer")
    assert ids(page, "users") == [made["al"], made["bea"], made["carl"], made["dora"]]
    assert [th.get("aria-sort") for th in page.html.select("#users thead th")] == [None] * 7
    by_login = page.click(href="orderby=login")
    assert sort_of(by_login.request.url) == ("login", "asc")
    assert parse_qs(urlsplit(by_login.request.url).query)["role"] == ["customer"]
    assert ids(by_login, "users") == [made["al"], made["bea"], made["carl"], made["dora"]]
    assert header(by_login, "users", "Login")["aria-sort"] == "ascending"
    by_login_desc = site.app.get("/admin/users" + header(by_login, "users", "Login").a["href"])
    assert ids(by_login_desc, "users") == [made["dora"], made["carl"], made["bea"], made["al"]]
    # Equal names by id.
    assert ids(site.app.get("/admin/users?role=customer&orderby=name"), "users") == [
        made["dora"], made["bea"], made["al"], made["carl"]]
    since = site.app.get("/admin/users?role=customer&orderby=since")
    assert sort_of(since.request.url) == ("since", "")
    assert header(since, "users", "Since")["aria-sort"] == "descending"  # the newest first
    assert ids(since, "users") == [made["bea"], made["dora"], made["al"], made["carl"]]
    for query, message in (("orderby=role", "orderby must be one of login, email, name, since, id, not &#39;role&#39;"),
                           ("orderby=login&order=sideways", "order must be asc or desc, not &#39;sideways&#39;")):
        assert_page(site.app.get("/admin/users?" + query, status=400), 400, message)


def test_the_users_pager_keeps_the_sort(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    with site.session() as s:
        s.execute(insert(User), [{"login": f"u{i:03d}", "role": "customer", "email": f"u{i}@example.com",
                                  "display_name": f"U {i % 5}"} for i in range(60)])
    first = site.app.get("/admin/users?role=customer&orderby=name&order=desc")
    second = first.click("Next")
    assert sort_of(second.request.url) == ("name", "desc")
    shown = [tr.select_one("td[data-label=Name]").text for page in (first, second)
             for tr in page.html.select("#users tbody tr")]
    assert shown == sorted(shown, reverse=True) and len(shown) == 60
    every = ids(first, "users") + ids(second, "users")
    with site.session() as s:
        rows = s.execute(select(User.id, User.display_name).where(User.role == "customer")).all()
    assert every == [i for i, _ in sorted(rows, key=lambda r: (r[1], r[0]), reverse=True)]
