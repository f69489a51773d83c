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
    # A page number past the guests' start without a key (the guests are keyed): their first page.
    assert keys(assert_page(site.app.get("/admin/customers", {"page": "3"}), 200, "1–50 of 2 " + uncounted)) == \
        keys(page)
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


def page_n(page, number):
    assert page.html.select_one("nav.pager .muted").text == number
    return page


def guest_keys(n):
    return [f"g{i:02d}@guests.example" for i in n]


def pager_link(page, rel):
    link = page.html.select_one(f"nav.pager a[rel={rel}]")
    return link and link["href"]


def test_the_guests_are_paged_by_key(make_site):
    """Unsearched (not counted), a guests' page follows the last e-mail address shown (Next) or
    precedes the first (Previous), not an offset: it reads its own guests only, and guests added
    before it do not shift it."""
    site = customers(make_site, 0)
    for i in range(12):
        guest(site, f"g{i:02d}@guests.example", 2)
    uncounted = "of the guest buyers (not counted: search to count them)."
    first = assert_page(site.app.get("/admin/customers", {"kind": "guests", "per_page": "5"}), 200, "1–5 " + uncounted)
    assert keys(first) == guest_keys(range(5)) and pager_link(first, "prev") is None
    assert "after=g04%40guests.example" in pager_link(first, "next") and "page=2" in pager_link(first, "next")
    middle = page_n(assert_page(first.click("Next"), 200, "6–10 " + uncounted), "Page 2")
    assert keys(middle) == guest_keys(range(5, 10))
    assert cells(middle.html.select_one("#customers tbody tr"), "Orders", "Spent") == ("2", "$50.00")
    last = page_n(assert_page(middle.click("Next"), 200, "11–12 " + uncounted), "Page 3")
    assert keys(last) == guest_keys(range(10, 12)) and pager_link(last, "next") is None
    assert "before=g10%40guests.example" in pager_link(last, "prev")
    back = page_n(assert_page(last.click("Previous"), 200, "6–10 " + uncounted), "Page 2")
    assert keys(back) == guest_keys(range(5, 10)) and pager_link(back, "next") == pager_link(middle, "next")
    back = page_n(assert_page(back.click("Previous"), 200, "1–5 " + uncounted), "Page 1")
    assert keys(back) == guest_keys(range(5)) and pager_link(back, "prev") is None
    # A guest added before the page (A to Z) does not shift it: the key is the last address shown.
    guest(site, "a@guests.example")
    assert keys(site.app.get(pager_link(first, "next"))) == guest_keys(range(5, 10))
    # The filter and the search are kept in the links; the export's link carries no key.
    assert "kind=guests" in pager_link(middle, "next") and "per_page=5" in pager_link(middle, "next")
    assert "after" not in middle.html.select_one("#customers-export a")["href"]


def test_the_guests_keyed_pages_follow_the_accounts(make_site):
    """Every buyer: numbered pages while they hold accounts, the page where the accounts end
    filled with the first guests, then the guests' pages keyed; Previous leads back the same way."""
    site = customers(make_site, 3)
    for i in range(8):
        guest(site, f"g{i:02d}@guests.example")
    page = site.app.get("/admin/customers", {"per_page": "5"})
    assert keys(page)[3:] == guest_keys(range(2)) and len(keys(page)) == 5
    second = page_n(assert_page(page.click("Next"), 200, "6–10 of 3 accounts"), "Page 2")
    assert keys(second) == guest_keys(range(2, 7)) and "after=g01%40guests.example" in pager_link(page, "next")
    third = second.click("Next")
    assert keys(third) == guest_keys([7]) and pager_link(third, "next") is None
    assert keys(third.click("Previous")) == guest_keys(range(2, 7))
    assert keys(second.click("Previous")) == keys(page)
    # Five accounts on pages of five: the guests start on page 2, numbered, then keyed.
    for i in range(3, 5):
        site.create_user(f"cust{i:02d}", "customer")
    page = site.app.get("/admin/customers", {"per_page": "5"})
    assert len(keys(page)) == 5 and not any("@" in k for k in keys(page))
    assert "after" not in pager_link(page, "next") and "page=2" in pager_link(page, "next")
    second = page_n(assert_page(page.click("Next"), 200, "6–10 of 5 accounts"), "Page 2")
    assert keys(second) == guest_keys(range(5)) and "after=g04%40guests.example" in pager_link(second, "next")
    third = second.click("Next")
    assert keys(third) == guest_keys(range(5, 8)) and pager_link(third, "next") is None
    assert keys(third.click("Previous")) == guest_keys(range(5)) and keys(second.click("Previous")) == keys(page)
    # Accounts alone are counted and numbered: no key.
    accounts = site.app.get("/admin/customers", {"kind": "accounts", "per_page": "2", "page": "2"})
    assert accounts.html.select_one(".list-total").text == "3–4 of 5 customers found."
    assert "after" not in pager_link(accounts, "next") and "before" not in pager_link(accounts, "prev")


def test_a_deep_guests_page_costs_what_the_first_costs(make_site):
    """A keyed page's statements do not grow with the guests before it (no OFFSET)."""
    site = customers(make_site, 0)
    for i in range(30):
        guest(site, f"g{i:02d}@guests.example")
    site.app.get("/admin/customers", {"kind": "guests", "per_page": "5"})
    with count_queries(site.engine) as first:
        site.app.get("/admin/customers", {"kind": "guests", "per_page": "5"})
    statements = []
    from sqlalchemy import event

    def seen(conn, cursor, statement, parameters, context, executemany):
        if "GROUP BY lower(trim(billing" in statement:
            statements.append((statement, parameters))

    event.listen(site.engine, "before_cursor_execute", seen)
    try:
        with count_queries(site.engine) as deep:
            page = site.app.get("/admin/customers", {"kind": "guests", "per_page": "5", "page": "6",
                                                     "after": "g24@guests.example"})
    finally:
        event.remove(site.engine, "before_cursor_execute", seen)
    assert keys(page) == guest_keys(range(25, 30)) and deep() == first()
    # One statement reads the page's guests with their figures, from the key (SQLite writes an
    # OFFSET of 0 with every LIMIT).
    assert len(statements) == 1 and "'email')) > " in statements[0][0]
    statement, parameters = statements[0]
    assert "OFFSET" not in statement or list(parameters)[-1] == 0


def test_a_bad_key_answers_a_clear_page(make_site):
    site = customers(make_site, 0)
    for i in range(12):
        guest(site, f"g{i:02d}@guests.example")
    get = site.app.get
    # Past the last guest: the guests' last page; before the first: their first page.
    last = assert_page(get("/admin/customers", {"kind": "guests", "per_page": "5", "page": "7", "after": "zz"}), 200)
    assert keys(last) == guest_keys(range(7, 12)) and pager_link(last, "next") is None
    assert keys(last.click("Previous")) == guest_keys(range(2, 7))
    first = get("/admin/customers", {"kind": "guests", "per_page": "5", "page": "4", "before": "a"})
    assert keys(first) == guest_keys(range(5)) and "Page 1" in first.text
    # Any text is a place in the order (no guest has to have it), a blank key is none.
    assert keys(get("/admin/customers", {"kind": "guests", "per_page": "5", "after": "g03@guests.example!"})) == \
        guest_keys(range(4, 9))
    assert keys(get("/admin/customers", {"kind": "guests", "per_page": "5", "after": "'; DROP TABLE orders; --"})) \
        == guest_keys(range(5))
    assert keys(get("/admin/customers", {"kind": "guests", "per_page": "5", "after": "  "})) == guest_keys(range(5))
    # Too long, both at once, not UTF-8 or with a NUL: the 400 page naming it, never a 500.
    assert_page(get("/admin/customers", {"after": "a" * 321}, status=400), 400, "after must be at most 320 characters")
    assert_page(get("/admin/customers", {"before": "b" * 400}, status=400), 400, "before must be at most 320")
    assert_page(get("/admin/customers", {"after": "a", "before": "b"}, status=400), 400, "after or before, not both")
    assert_page(get("/admin/customers?after=%00", status=400), 400)
    assert_page(get("/admin/customers?after=%ff", status=400), 400)
    # Searched (counted, numbered pages) or accounts only, a key means nothing: it is left aside.
    assert keys(get("/admin/customers", {"search": "guests", "after": "g05@guests.example"})) == guest_keys(range(12))
    assert keys(get("/admin/customers", {"kind": "accounts", "before": "x"})) == []


def test_a_key_without_guests_finds_the_empty_list(make_site):
    site = customers(make_site, 0)
    for query in ({"after": "m"}, {"before": "m"}, {"after": "m", "page": "9"}):
        assert_page(site.app.get("/admin/customers", {"kind": "guests", **query}), 200, "No customer matches.")
