"""The admin's Products pages (WebTest): the list (search by name or SKU, status, paging, its
total a count the database keeps), the CSV export, and a product's page whose form saves as
REST's product update does (its schema and rules, errors beside the fields, nothing saved)."""
from decimal import Decimal

import pytest
from sqlalchemy import insert, select

from storeplatform.api import Product
from storeplatform.testing import count_queries

from .helpers import assert_page, login, token


def catalogue(make_site, n=0):
    site = make_site()
    login(site, "boss", role="shop_manager")
    with site.session() as s:
        s.execute(insert(Product), [
            {"name": f"Poster {i:03d}", "sku": f"P-{i:03d}", "status": "draft" if i % 10 == 0 else "publish",
             "regular_price": Decimal("20"), "meta": {}} for i in range(1, n + 1)])
    return site


def names(page):
    return [a.text for a in page.html.select("#products tbody td[data-label=Name] a")]


def product(site, product_id):
    with site.session() as s:
        item = s.get(Product, product_id)
        s.expunge(item)
        return item


def test_the_list_searches_filters_and_pages(make_site):
    site = catalogue(make_site, 60)
    page = assert_page(site.app.get("/admin/products"), 200, "1–50 of 60 products.")
    assert names(page)[0] == "Poster 060"
    assert_page(page.click("Next"), 200, "51–60 of 60 products.")
    drafts = site.app.get("/admin/products", {"status": "draft"})
    assert drafts.html.select_one(".list-total").text == "1–6 of 6 products found."
    assert names(site.app.get("/admin/products", {"search": "p-00"})) == [f"Poster {i:03d}" for i in range(9, 0, -1)]
    assert names(site.app.get("/admin/products", {"search": "poster 05", "status": "draft"})) == ["Poster 050"]
    for query in ("page=0", "page=abc", "status=gone", "per_page=1000", "search=%FF"):
        assert_page(site.app.get("/admin/products?" + query, status=400), 400)
    for path in ("/admin/products/999999", "/admin/products/" + "9" * 25, "/admin/products/x"):
        assert_page(site.app.get(path, status=404), 404)


def test_a_page_costs_the_same_statements_with_3_or_30_products(make_site):
    site = catalogue(make_site, 3)
    site.app.get("/admin/products")
    with count_queries(site.engine) as few:
        site.app.get("/admin/products")
    with site.session() as s:
        s.execute(insert(Product), [{"name": f"More {i}", "meta": {}, "regular_price": Decimal(1)} for i in range(27)])
    with count_queries(site.engine) as many:
        site.app.get("/admin/products?status=publish")
    assert few() == many()


def test_the_export(make_site):
    site = catalogue(make_site, 2)
    body = site.app.get("/admin/products/export.csv?status=publish").body.decode("utf-8-sig")
    lines = body.split("\r\n")
    assert lines[0] == ("id,name,sku,type,status,parent_id,regular_price,sale_price,currency,sale_from,sale_to,"
                        "created,modified")
    assert [line.split(",")[1:9] for line in lines[1:3]] == [
        ["Poster 002", "P-002", "simple", "publish", "", "20.00", "", "USD"],
        ["Poster 001", "P-001", "simple", "publish", "", "20.00", "", "USD"]]


def test_the_form_saves_through_rests_rules(make_site):
    site = catalogue(make_site, 2)
    with site.session() as s:
        first, second = s.execute(select(Product.id).order_by(Product.id)).scalars().all()
    page = assert_page(site.app.get(f"/admin/products/{first}"), 200, "Poster 001")
    form = page.forms["product-form"]
    form["name"] = "Poster, large"
    form["regular_price"] = "24.90"
    form["sale_price"] = "19.5"
    form["status"] = "draft"
    saved = assert_page(form.submit().follow(), 200, "Poster, large saved.")
    item = product(site, first)
    assert (item.name, item.regular_price, item.sale_price, item.status) == (
        "Poster, large", Decimal("24.9000"), Decimal("19.5000"), "draft")
    assert saved.html.select_one("#product-price").text == "$19.50"
    # Refused as REST refuses: every field at once, beside each; nothing saved.
    bad = site.app.post(f"/admin/products/{first}", {
        "csrf_token": token(saved), "name": "", "sku": "P-002", "regular_price": "1.23456", "status": "gone",
        "sale_from": "yesterday"}, status=400)
    assert_page(bad, 400, "Nothing was saved")
    errors = {p["id"]: p.text for p in bad.html.select(".field-error")}
    assert set(errors) == {"error-name", "error-sku", "error-regular_price", "error-status", "error-sale_from"}
    assert errors["error-sku"] == "another product has this SKU"
    assert bad.html.select_one("#field-regular_price")["value"] == "1.23456"  # what was typed, shown again
    assert product(site, first).name == "Poster, large"
    rest = site.app.put_json(f"/api/store/v1/products/{first}", {"sku": "P-002"},
                             headers=site.headers_for("administrator"), status=400)
    assert rest.json["data"]["params"]["sku"] == errors["error-sku"]
    assert product(site, second).sku == "P-002"


def test_a_product_is_made_from_the_admin_as_rest_makes_it(make_site):
    site = catalogue(make_site, 1)
    page = assert_page(site.app.get("/admin/products/new"), 200, "New product")
    refused = site.app.post("/admin/products/new", {"csrf_token": token(page), "name": "", "sku": "P-001",
                                                     "regular_price": "abc", "status": "publish"}, status=400)
    assert_page(refused, 400, "Nothing was saved")
    for field in ("name", "sku", "regular_price"):
        assert f'id="error-{field}"' in refused.text, field
    assert "another product has this SKU" in refused.text
    made = site.app.post("/admin/products/new", {"csrf_token": token(page), "name": "Canvas bag", "sku": "",
                                                  "regular_price": "12.90", "sale_price": "", "status": "draft"},
                         status=303)
    product_id = int(made.location.rsplit("/", 1)[1])
    shown = site.app.get(f"/api/store/v1/products/{product_id}", headers=site.headers_for("administrator")).json
    assert (shown["name"], shown["sku"], shown["status"], Decimal(str(shown["regular_price"]))) == \
        ("Canvas bag", "", "draft", Decimal("12.90"))


def test_a_product_in_the_trash_leaves_the_lists_and_comes_back(make_site):
    site = catalogue(make_site, 3)
    admin = site.headers_for("administrator")
    first = site.app.get("/api/store/v1/products", headers=admin).json[-1]["id"]
    page = site.app.get(f"/admin/products/{first}")
    site.app.post(f"/admin/products/{first}/trash", {"csrf_token": token(page)}, status=303)
    assert first not in [p["id"] for p in site.app.get("/api/store/v1/products", headers=admin).json]
    assert [p["id"] for p in site.app.get("/api/store/v1/products?status=trash", headers=admin).json] == [first]
    listing = site.app.get("/admin/products")
    assert "Poster 001" not in names(listing) and "2 products" in listing.text
    assert names(site.app.get("/admin/products?status=trash")) == ["Poster 001"]
    refused = site.app.post_json("/api/store/v1/orders", {"line_items": [{"product_id": first, "quantity": 1}]},
                                 headers=admin, status=400).json
    assert refused["data"]["params"] == {"line_items.0.product_id": f"product {first} is in the trash"}
    site.app.post(f"/admin/products/{first}", {"csrf_token": token(page), "status": "publish"}, status=303)
    assert "Poster 001" in names(site.app.get("/admin/products"))
