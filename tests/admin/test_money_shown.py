"""Money on the admin's pages is written one way, the store's currency format (symbol, its place,
separators, decimals: ``format_money``, the admin templates' ``money`` filter), whatever the page:
the orders list and an order's page, customers, the products list and a product's page, the
dashboard; an order in another currency shows that currency's symbol in the same format. The CSV
exports write the same amounts as plain decimals with the store's decimals, the currency in its
own column."""
from decimal import Decimal

from sqlalchemy import insert, select

from storeplatform.api import Order, Product, User, create_order

from .helpers import assert_page, login

EURO_STYLE = {"store.currency": "EUR", "store.currency_position": "right_space", "store.thousand_separator": ".",
              "store.decimal_separator": ",", "store.decimals": 2}


def euro_shop(make_site):
    site = make_site()
    for key, value in EURO_STYLE.items():
        site.set_option(key, value)
    login(site, "boss", role="shop_manager")
    customer = site.create_user("zoe", "customer")
    with site.session() as s:
        s.execute(insert(Product), [
            {"id": 1, "name": "Lamp", "regular_price": Decimal("1234.5"), "meta": {}},
            {"id": 2, "name": "Cable", "regular_price": Decimal("7.2500"), "sale_price": Decimal("6.125"), "meta": {}}])
        ours = create_order(s, line_items=[{"product_id": 1, "quantity": 1}, {"product_id": 2, "quantity": 2}],
                            status="completed", customer_id=customer).id
        dollars = create_order(s, line_items=[{"product_id": 2, "quantity": 1}], currency="USD", status="pending").id
    return site, ours, dollars


def cell(page, row_id, label):
    return page.html.select_one(f'tr[data-id="{row_id}"] td[data-label="{label}"]').text.strip()


def test_every_admin_page_writes_money_in_the_store_s_format(make_site):
    site, ours, dollars = euro_shop(make_site)
    # 1234.50 + 2 × 6.13 (the sale price 6.125, stored, at 6.1250 a line): the order's total as stored.
    with site.session() as s:
        total = s.get(Order, ours).total
    assert total == Decimal("1246.7500")

    orders = assert_page(site.app.get("/admin/orders"), 200, "Orders")
    assert cell(orders, ours, "Total") == "1.246,75 €"
    assert cell(orders, dollars, "Total") == "6,13 $"  # the order's own currency, the store's format

    page = assert_page(site.app.get(f"/admin/orders/{ours}"), 200)
    assert [td.text for td in page.html.select("#order-lines td[data-label='Unit price']")] == ["1.234,50 €", "6,13 €"]
    assert [td.text for td in page.html.select("#order-lines td[data-label=Total]")] == ["1.234,50 €", "12,25 €"]
    assert page.html.select_one("#order-total").text == "1.246,75 €"
    other = assert_page(site.app.get(f"/admin/orders/{dollars}"), 200)
    assert other.html.select_one("#order-total").text == "6,13 $"

    products = assert_page(site.app.get("/admin/products"), 200, "Products")
    prices = [td.text.split() for td in products.html.select("#products td[data-label=Price]")]
    assert prices == [["6,13", "€", "sale"], ["1.234,50", "€"]]
    assert assert_page(site.app.get("/admin/products/1"), 200).html.select_one("#product-price").text == "1.234,50 €"

    customers = assert_page(site.app.get("/admin/customers"), 200, "Customers")
    with site.session() as s:
        zoe = s.execute(select(User.id).where(User.login == "zoe")).scalar_one()
    assert cell(customers, zoe, "Spent") == "1.246,75 €"

    dashboard = assert_page(site.app.get("/admin/"), 200, "Dashboard")
    assert dashboard.html.select_one("#dash-today-revenue").text == "1.246,75 €"

    # Three decimals, the symbol on the left: every page follows the options.
    site.set_option("store.decimals", 3)
    site.set_option("store.currency_position", "left")
    assert cell(site.app.get("/admin/orders"), ours, "Total") == "€1.246,750"
    assert site.app.get("/admin/products/2").html.select_one("#product-price").text == "€6,125"


def test_the_exports_write_plain_decimals_and_the_currency_beside_them(make_site):
    site, ours, dollars = euro_shop(make_site)
    orders = site.app.get("/admin/orders/export.csv").body.decode("utf-8-sig").splitlines()
    assert orders[0].split(",")[3:5] == ["currency", "total"]
    assert [line.split(",")[3:5] for line in orders[1:]] == [["USD", "6.13"], ["EUR", "1246.75"]]
    lines = site.app.get("/admin/orders/export.csv?lines=1").body.decode("utf-8-sig").splitlines()
    assert [line.split(",")[3:4] + line.split(",")[-2:] for line in lines[1:]] == [
        ["USD", "6.13", "6.13"], ["EUR", "1234.50", "1234.50"], ["EUR", "6.13", "12.25"]]
    products = site.app.get("/admin/products/export.csv").body.decode("utf-8-sig").splitlines()
    assert [line.split(",")[6:9] for line in products] == [
        ["regular_price", "sale_price", "currency"], ["7.25", "6.13", "EUR"], ["1234.50", "", "EUR"]]
    customers = site.app.get("/admin/customers/export.csv").body.decode("utf-8-sig").splitlines()
    assert customers[0].split(",")[8] == "total_spent" and customers[1].split(",")[8::3] == ["1246.75", "EUR"]
