"""The shop's lists in a real Chromium at phone and desktop width: find an order, open it and
change its status (the REST answer shows it), download the export of the filtered list; edit a
product and see a refused field; the customers with their figures."""
from decimal import Decimal

from sqlalchemy import insert, select

from storeplatform.api import Product, User, create_order


def arrange(site):
    for i in range(4):
        site.create_user(f"buyer{i}", "customer", email=f"buyer{i}@shop.example")
    with site.session() as s:
        s.execute(insert(Product), [
            {"id": 1, "name": "Ceramic mug", "sku": "MUG-1", "regular_price": Decimal("12.5"), "meta": {}},
            {"id": 2, "name": "Poster, large", "sku": "POS-L", "regular_price": Decimal("24.9"),
             "sale_price": Decimal("19.9"), "meta": {}},
            {"id": 3, "name": "Gift card", "sku": "GIFT", "status": "draft", "regular_price": Decimal("50"), "meta": {}}])
        buyers = dict(s.execute(select(User.login, User.id).where(User.role == "customer")).all())
        statuses = ["pending", "processing", "completed", "on-hold", "cancelled", "completed", "refunded", "failed"]
        for i, status in enumerate(statuses * 2):
            login = f"buyer{i % 4}"
            create_order(s, line_items=[{"product_id": 1, "quantity": 1 + i % 3}, {"product_id": 2, "quantity": 1}],
                         status=status, customer_id=buyers[login] if i % 5 else None,
                         billing={"first_name": ["Ann", "Bo", "Chidi", "Dana"][i % 4], "last_name": "Example",
                                  "email": f"{login}@shop.example", "city": "Lyon", "country": "FR"})


def test_orders_products_and_customers(make_site, browse, tmp_path):
    site = make_site(**{"storeplatform.plugins": "invoicing"})  # its documents on an order's page
    arrange(site)
    browser = browse(site)
    page = browser.page
    browser.login("manager", "shop_manager")

    browser.goto("/admin/orders")
    assert page.inner_text("h1") == "Orders"
    browser.screenshot("orders-list")
    page.fill("#orders-filter input[name=search]", "chidi")
    page.select_option("#orders-filter select[name=status]", "completed")
    with page.expect_navigation():
        page.click("#orders-filter button[type=submit]")
    assert "found" in page.inner_text(".list-total")
    rows = page.locator("#orders tbody tr")
    assert rows.count() >= 1
    with page.expect_download() as download:
        page.click("#orders-export a:text('Export CSV')")
    csv_text = (tmp_path / "orders.csv")
    download.value.save_as(csv_text)
    assert csv_text.read_bytes().startswith(b"\xef\xbb\xbf")  # the BOM Excel reads UTF-8 by
    lines = csv_text.read_text(encoding="utf-8-sig").splitlines()
    assert lines[0].startswith("order,date,status") and len(lines) == rows.count() + 1
    assert all(",completed," in line for line in lines[1:])

    with page.expect_navigation():
        page.click("#orders tbody tr >> nth=0 >> td[data-label=Order] a")
    order_id = int(page.url.rsplit("/", 1)[1])
    assert page.inner_text(".order-section h2") == "Documents"
    assert page.locator(".order-section a").count() == 1  # the completed order's invoice
    browser.screenshot("orders-order")
    page.select_option("#field-status", "refunded")
    with page.expect_navigation():
        page.click("#status-form button[type=submit]")
    assert "is now refunded" in page.inner_text("p.notice")
    assert site.app.get(f"/api/store/v1/orders/{order_id}", headers=site.headers_for("administrator")).json[
        "status"] == "refunded"

    browser.goto("/admin/products")
    browser.screenshot("products-list")
    with page.expect_navigation():
        page.click("#products >> text=Poster, large")
    page.fill("#field-regular_price", "twenty")
    with page.expect_navigation():
        page.click("#product-form button[type=submit]")
    assert page.inner_text("#error-regular_price")
    browser.screenshot("products-refused")
    page.fill("#field-regular_price", "26.50")
    with page.expect_navigation():
        page.click("#product-form button[type=submit]")
    assert "saved" in page.inner_text("p.notice")

    browser.goto("/admin/customers")
    # The four accounts, then the guest buyers of the other orders.
    assert page.locator("#customers tbody tr[data-id]").count() == 4
    assert page.locator("#customers tbody tr[data-guest]").count() == 4
    assert page.locator("#customers tbody tr").count() == 8
    browser.screenshot("customers-list")
