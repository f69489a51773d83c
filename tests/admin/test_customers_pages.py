"""The admin's Customers page (WebTest): the users with the customer role, searched and paged,
each with their order count and total (one statement for the page, whatever its size), the CSV
export, and links to the Users pages to edit them."""
from datetime import datetime, timezone
from decimal import Decimal

from sqlalchemy import insert, select, update

from storeplatform.api import Order, Product, User, create_order
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
    # No guest buyer: the accounts' total (the guests are counted when searched).
    page = assert_page(site.app.get("/admin/customers"), 200,
                       "1–50 of 55 accounts and the guest buyers (not counted: search to count them).")
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
    assert_page(page.click("Next"), 200,
                "51–55 of 55 accounts and the guest buyers (not counted: search to count them).")
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
    assert lines[0] == "id,account,login,name,email,since,disabled,orders,total_spent,first_order,last_order,currency"
    assert [line.split(",")[1:3] + line.split(",")[6:9] + line.split(",")[11:] for line in lines[1:3]] == [
        ["yes", "cust01", "no", "2", "50.00", "USD"], ["yes", "cust00", "no", "0", "", "USD"]]
    assert site.app.get("/admin/customers/export.csv?search=cust00").body.decode().count("\r\n") == 2


def test_the_export_keeps_names_whole_for_excel(make_site):
    """A UTF-8 byte order mark first: Excel on Windows reads the file as UTF-8, "Zoë Łukasz" whole."""
    site = customers(make_site, 1)
    with site.session() as s:
        s.execute(User.__table__.update().where(User.login == "cust00").values(display_name="Zoë Łukasz"))
    buy(site, "cust00", 1)
    body = site.app.get("/admin/customers/export.csv").body
    assert body.startswith(b"\xef\xbb\xbfid,account,login,name,")
    row = body.decode("utf-8-sig").split("\r\n")[1].split(",")
    assert row[2:5] == ["cust00", "Zoë Łukasz", "c0@buyers.example"] and row[8] == "25.00" and row[-1] == "USD"
    assert "Zoë Łukasz".encode() in body


# --- Guest buyers (orders without an account), by their billing e-mail address -----------------

def guest(site, email, times=1, status="completed", first="Ann", last="Lee", day=None):
    """``times`` guest orders of 25.00 billed to ``email``; ``day``: their creation day (noon UTC)."""
    with site.session() as s:
        for _ in range(times):
            order = create_order(s, line_items=[{"product_id": 1, "quantity": 2}], status=status,
                                 billing={"email": email, "first_name": first, "last_name": last})
            if day:
                s.flush()
                s.execute(update(Order).where(Order.id == order.id)
                          .values(created_at=datetime(2025, 1, day, 12, tzinfo=timezone.utc)))


def keys(page):
    """The rows of the list: an account's id, a guest's e-mail address."""
    return [r.get("data-id") or r["data-guest"] for r in page.html.select("#customers tbody tr")]


def cells(row, *labels):
    return tuple(row.select_one(f"td[data-label='{label}']").text for label in labels)


def mixed(make_site):
    """An account with an order billed to a guest's address, and guests: Ann's e-mail address
    in three spellings (one merged guest), Bob, Jo Ann (whose address holds Ann's), and an order
    without an e-mail address."""
    site = customers(make_site, 1)
    with site.session() as s:
        user_id = s.execute(select(User.id).where(User.login == "cust00")).scalar_one()
        create_order(s, line_items=[{"product_id": 1, "quantity": 2}], customer_id=user_id, status="completed",
                     billing={"email": "ann@guests.example"})
    guest(site, "Ann@Guests.example", 2, day=3)
    guest(site, "  ann@guests.EXAMPLE ", 1, status="pending", first="Annie", last="Zed", day=1)
    guest(site, "bob@guests.example", 1, status="cancelled", first="Bob", last="Ray", day=2)
    guest(site, "joann@guests.example", 1, first="Jo", last="Ann", day=2)
    guest(site, "", 1)  # no e-mail address: nobody's to list
    return site, user_id


def test_guest_buyers_are_listed_with_their_figures(make_site):
    site, user_id = mixed(make_site)
    page = assert_page(site.app.get("/admin/customers"), 200,
                       "1–4 of 1 account and the guest buyers (not counted: search to count them).")
    assert keys(page) == [str(user_id), "ann@guests.example", "bob@guests.example", "joann@guests.example"]
    account, ann, bob, joann = page.html.select("#customers tbody tr")
    assert cells(account, "Login", "Orders", "Spent") == ("cust00", "1", "$25.00")
    # Three spellings of Ann's address are one guest: three orders, two of them paid.
    assert cells(ann, "Login", "Name", "E-mail", "Since", "Orders", "Spent", "First order", "Last order") == (
        "guest", "Annie Zed", "ann@guests.example", "—", "3", "$50.00", "2025-01-01", "2025-01-03")  # the greatest name
    assert cells(bob, "Name", "Orders", "Spent", "First order", "Last order") == (
        "Bob Ray", "1", "—", "2025-01-02", "2025-01-02")
    assert cells(joann, "Orders", "Spent") == ("1", "$25.00")
    # Their orders, exactly: on the Orders list, the guest's three (not Jo Ann's, not the account's).
    theirs = site.app.get(ann.select_one("td[data-label=Orders] a")["href"])
    assert theirs.html.select_one(".list-total").text == "1–3 of 3 orders found."
    assert "ann@guests.example" in theirs.html.select_one("#orders-guest").text
    with site.session() as s:
        ids = s.execute(select(Order.id).where(Order.customer_id.is_(None), Order.billing["email"].as_string().in_(
            ["Ann@Guests.example", "  ann@guests.EXAMPLE "])).order_by(Order.id.desc())).scalars().all()
    assert [r["data-id"] for r in theirs.html.select("#orders tbody tr")] == [str(i) for i in ids] and len(ids) == 3
    assert site.app.get("/admin/orders", {"guest": " ANN@guests.example"}).html.select_one(
        ".list-total").text == "1–3 of 3 orders found."


def test_the_filter_all_buyers_accounts_or_guests(make_site):
    site, user_id = mixed(make_site)
    page = site.app.get("/admin/customers", {"kind": "accounts"})
    assert keys(page) == [str(user_id)] and page.html.select_one(".list-total").text == "1–1 of 1 customer found."
    page = site.app.get("/admin/customers", {"kind": "guests"})
    assert keys(page) == ["ann@guests.example", "bob@guests.example", "joann@guests.example"]
    assert page.html.select_one(".list-total").text == "1–3 of the guest buyers (not counted: search to count them)."
    assert site.app.get("/admin/customers", {"kind": "guests", "search": "@"}).html.select_one(
        ".list-total").text == "1–3 of 3 customers found."
    assert page.html.select_one("select[name=kind] option[selected]")["value"] == "guests"
    assert site.app.get("/admin/customers").html.select_one("select[name=kind] option[selected]")["value"] == ""
    assert_page(site.app.get("/admin/customers?kind=nobody", status=400), 400, "kind must be one of accounts, guests")


def test_searching_guests_by_e_mail_and_billing_name(make_site):
    site, user_id = mixed(make_site)
    assert keys(site.app.get("/admin/customers", {"search": "RAY"})) == ["bob@guests.example"]
    # One of Ann's orders is billed to Annie Zed: she is found, with all her orders.
    page = site.app.get("/admin/customers", {"search": "zed"})
    assert keys(page) == ["ann@guests.example"]
    assert cells(page.html.select_one("#customers tbody tr"), "Orders", "Spent") == ("3", "$50.00")
    # The account's order is billed to Ann's address, but the account is not hers.
    assert keys(site.app.get("/admin/customers", {"search": "ann@guests"})) == [
        "ann@guests.example", "joann@guests.example"]
    page = site.app.get("/admin/customers", {"search": "ann@guests", "kind": "guests"})
    assert keys(page) == ["ann@guests.example", "joann@guests.example"]
    assert page.html.select_one(".list-total").text == "1–2 of 2 customers found."
    assert keys(site.app.get("/admin/customers", {"search": "nobody"})) == []


def test_the_export_has_the_guests(make_site):
    site, user_id = mixed(make_site)
    lines = site.app.get("/admin/customers/export.csv").body.decode("utf-8-sig").split("\r\n")
    assert lines[0] == "id,account,login,name,email,since,disabled,orders,total_spent,first_order,last_order,currency"
    assert [line.split(",")[:2] + line.split(",")[3:5] + line.split(",")[6:] for line in lines[1:-1]] == [
        [str(user_id), "yes", "Cust00", "c0@buyers.example", "no", "1", "25.00"] + lines[1].split(",")[9:11] + ["USD"],
        ["", "no", "Annie Zed", "ann@guests.example", "", "3", "50.00", "2025-01-01 12:00:00", "2025-01-03 12:00:00",
         "USD"],
        ["", "no", "Bob Ray", "bob@guests.example", "", "1", "", "2025-01-02 12:00:00", "2025-01-02 12:00:00", "USD"],
        ["", "no", "Jo Ann", "joann@guests.example", "", "1", "25.00", "2025-01-02 12:00:00", "2025-01-02 12:00:00",
         "USD"]]
    guests = site.app.get("/admin/customers/export.csv?kind=guests&search=zed").body.decode("utf-8-sig")
    assert [line.split(",")[4] for line in guests.split("\r\n")[1:-1]] == ["ann@guests.example"]
    accounts = site.app.get("/admin/customers/export.csv?kind=accounts").body.decode("utf-8-sig")
    assert [line.split(",")[:2] for line in accounts.split("\r\n")[1:-1]] == [[str(user_id), "yes"]]


def test_guests_are_paged_after_the_accounts(make_site):
    site = customers(make_site, 2)
    for i in range(60):
        guest(site, f"g{i:02d}@guests.example")
    uncounted = "accounts and the guest buyers (not counted: search to count them)."
    page = assert_page(site.app.get("/admin/customers"), 200, "1–50 of 2 " + uncounted)
    assert keys(page)[2:] == [f"g{i:02d}@guests.example" for i in range(48)] and len(keys(page)) == 50
    last = assert_page(page.click("Next"), 200, "51–62 of 2 " + uncounted)
    assert keys(last) == [f"g{i:02d}@guests.example" for i in range(48, 60)]
    assert last.html.select_one("nav.pager a[rel=next]") is None
    assert keys(last.click("Previous")) == keys(page)
    assert keys(site.app.get("/admin/customers", {"page": "3"})) == []  # past the end (uncounted): empty
    # Searched, the guests are counted, and a page past the middle is read from the far end.
    page = site.app.get("/admin/customers", {"kind": "guests", "search": "guests", "page": "2"})
    assert keys(page) == [f"g{i:02d}@guests.example" for i in range(50, 60)]
    assert page.html.select_one(".list-total").text == "51–60 of 60 customers found."
    page = site.app.get("/admin/customers", {"search": "example", "page": "2"})
    assert keys(page) == [f"g{i:02d}@guests.example" for i in range(48, 60)]
    assert page.html.select_one(".list-total").text == "51–62 of 62 customers found."


def test_a_page_costs_the_same_statements_with_3_or_30_guests(make_site):
    site = customers(make_site, 3)
    for i in range(3):
        guest(site, f"g{i:02d}@guests.example", 2)
    site.app.get("/admin/customers")
    with count_queries(site.engine) as few:
        site.app.get("/admin/customers")
    for i in range(3, 30):
        guest(site, f"g{i:02d}@guests.example", 2)
    site.app.get("/admin/customers")
    with count_queries(site.engine) as many:
        page = site.app.get("/admin/customers")
    assert len(keys(page)) == 33 and few() == many()
    with count_queries(site.engine) as searched:
        site.app.get("/admin/customers", {"search": "guests", "kind": "guests"})
    assert searched() <= many()
