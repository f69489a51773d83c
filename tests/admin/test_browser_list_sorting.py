"""A list's header sorts in a real Chromium (no script: a link), and a bulk action asks first:
the Products list by price, a click again reverses it; two products ticked, moved to the trash
after the confirmation."""
from decimal import Decimal

from sqlalchemy import insert

from storeplatform.api import Product


def test_a_header_click_sorts_and_a_bulk_action_asks_first(make_site, browse):
    site = make_site()
    with site.session() as s:
        s.execute(insert(Product), [{"id": i, "name": name, "regular_price": Decimal(price), "meta": {}}
                                    for i, (name, price) in enumerate((("Mug", "12"), ("Cap", "30"), ("Pen", "2")), 1)])
    browser = browse(site)
    page = browser.page
    browser.login("manager", "shop_manager")
    browser.goto("/admin/products")

    def names():
        return page.locator("#products tbody td[data-label=Name] a").all_inner_texts()

    assert names() == ["Pen", "Cap", "Mug"]
    with page.expect_navigation():
        page.click("#products thead a[data-sort=price]")
    assert names() == ["Pen", "Mug", "Cap"]
    assert page.get_attribute("#products thead th:has(a[data-sort=price])", "aria-sort") == "ascending"
    with page.expect_navigation():
        page.click("#products thead a[data-sort=price]")
    assert names() == ["Cap", "Mug", "Pen"]
    assert page.get_attribute("#products thead th:has(a[data-sort=price])", "aria-sort") == "descending"
    assert "orderby=price&order=desc" in page.url

    page.check("#products tbody tr[data-id='1'] input[type=checkbox]")
    page.check("#products tbody tr[data-id='3'] input[type=checkbox]")
    page.select_option("#products-bulk select[name=status]", "trash")
    with page.expect_navigation():
        page.click("#products-bulk button:text('Apply')")
    assert "Nothing has changed yet." in page.inner_text("#bulk-summary")
    assert names() == [] and page.locator("#bulk-rows tbody tr").count() == 2
    with page.expect_navigation():
        page.click("#bulk-confirm button:text('Confirm')")
    assert page.inner_text(".notice") == "2 products changed to trash."
    assert names() == ["Cap"] and "orderby=price&order=desc" in page.url
