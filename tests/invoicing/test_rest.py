"""The three REST routes and the schema index: fields, headers, errors, authentication."""
import base64
import re
from datetime import datetime

import pytest

from storeplatform.testing import assert_error, count_queries

from .conftest import API, pdf_text


def test_metadata_fields(shop):
    order = shop.order("completed")
    body = shop.meta(order["id"]).json
    assert set(body) == {"order_id", "document_type", "invoice_number", "display_number", "generated_date",
                         "file_size", "pdf_url", "regenerate_url"}
    year = datetime.now().year
    assert body["order_id"] == order["id"]
    assert body["document_type"] == "invoice"
    assert body["invoice_number"] == 1
    assert body["display_number"] == f"INV-{year}-00001"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", body["generated_date"])
    assert body["pdf_url"] == f"http://localhost/?invoicing_download={order['id']}&key={order['order_key']}"
    assert body["regenerate_url"] == f"http://localhost{API}/documents/{order['id']}/regenerate"
    pdf = shop.app.get(f"{API}/documents/{order['id']}/pdf", headers=shop.headers_for("shop_manager"))
    assert body["file_size"] == len(pdf.body) == int(pdf.headers["Content-Length"])


def test_generated_date_carries_the_site_time_zone(shop):
    shop.set_option("site.timezone", "Asia/Kolkata")
    order = shop.order("completed")
    assert shop.meta(order["id"]).json["generated_date"].endswith("+05:30")


def test_kept_metadata_follows_the_time_zone_and_the_address_asked_for(shop):
    order = shop.order("completed")
    first = shop.meta(order["id"]).json
    assert first["generated_date"].endswith("+00:00")
    shop.set_option("site.timezone", "Asia/Kolkata")
    assert shop.meta(order["id"]).json["generated_date"].endswith("+05:30")
    other = shop.app.get(f"{API}/documents/{order['id']}", headers=shop.headers_for("shop_manager"),
                         extra_environ={"HTTP_HOST": "shop.example:8080"}).json
    assert other["pdf_url"].startswith("http://shop.example:8080/?")
    assert other["regenerate_url"] == f"http://shop.example:8080{API}/documents/{order['id']}/regenerate"
    assert shop.meta(order["id"]).json["pdf_url"] == first["pdf_url"]


def test_pdf_headers_and_body(shop):
    order = shop.order("processing")
    display = shop.meta(order["id"]).json["display_number"]
    res = shop.app.get(f"{API}/documents/{order['id']}/pdf", headers=shop.headers_for("administrator"))
    assert res.headers["Content-Type"] == "application/pdf"
    assert res.headers["Content-Disposition"] == f'attachment; filename="invoice-{display}.pdf"'
    assert res.headers["Content-Length"] == str(len(res.body))
    assert res.body.startswith(b"%PDF-")
    assert display in pdf_text(res.body)


def test_unknown_order_and_order_without_pdf_are_404(shop):
    headers = shop.headers_for("shop_manager")
    for path in ("/documents/999", "/documents/999/pdf"):
        assert_error(shop.app.get(API + path, headers=headers, status=404), 404, "invoicing_order_not_found")
    assert_error(shop.regen(999, status=404), 404, "invoicing_order_not_found")
    pending = shop.order("pending")
    for path in (f"/documents/{pending['id']}", f"/documents/{pending['id']}/pdf"):
        assert_error(shop.app.get(API + path, headers=headers, status=404), 404, "invoicing_document_not_found")


def test_ids_beyond_the_order_column_are_unknown_orders(shop):
    headers = shop.headers_for("shop_manager")
    for order_id in (0, 2**31, 10**17):
        for path in (f"/documents/{order_id}", f"/documents/{order_id}/pdf"):
            assert_error(shop.app.get(API + path, headers=headers, status=404), 404, "invoicing_order_not_found")
        assert_error(shop.regen(order_id, status=404), 404, "invoicing_order_not_found")


def test_non_numeric_order_id_is_no_route(shop):
    res = shop.app.get(f"{API}/documents/abc", headers=shop.headers_for("shop_manager"), status=404)
    assert_error(res, 404, "rest_no_route")


def test_regenerate_creates_the_first_pdf(shop):
    order = shop.order("pending")
    body = shop.regen(order["id"]).json
    assert body["document_type"] == "invoice" and body["invoice_number"] == 1
    assert shop.meta(order["id"]).json == body


def test_regenerate_keeps_the_number_and_renews_the_pdf(shop):
    order = shop.order("completed")
    before = shop.meta(order["id"]).json
    shop.app.put_json(f"/api/store/v1/orders/{order['id']}",
                      {"billing": {"first_name": "Дмитрий", "last_name": "Соколов"}},
                      headers=shop.headers_for("administrator"))
    after = shop.regen(order["id"], {}).json
    assert after["invoice_number"] == before["invoice_number"]
    assert after["display_number"] == before["display_number"]
    assert after["generated_date"] >= before["generated_date"]
    pdf = shop.app.get(f"{API}/documents/{order['id']}/pdf", headers=shop.headers_for("shop_manager")).body
    assert "Дмитрий Соколов" in pdf_text(pdf) and len(pdf) == after["file_size"]


def test_regenerate_force_type_makes_that_document_with_its_own_number(shop):
    order = shop.order("completed")
    body = shop.regen(order["id"], {"force_type": "packing-slip"}).json
    year = datetime.now().year
    assert body["document_type"] == "packing-slip"
    assert body["invoice_number"] == 1 and body["display_number"] == f"PS-{year}-00001"
    # The document generated last is the one the order's routes serve.
    assert shop.meta(order["id"]).json["document_type"] == "packing-slip"
    again = shop.regen(order["id"], {"force_type": "invoice"}).json
    assert again["display_number"] == f"INV-{year}-00001"


def test_refunded_order_gets_a_credit_note(shop):
    order = shop.order("completed")
    shop.set_status(order["id"], "refunded")
    body = shop.meta(order["id"]).json
    assert body["document_type"] == "credit-note"
    assert body["display_number"] == f"CN-{datetime.now().year}-00001"
    assert shop.regen(order["id"]).json["document_type"] == "credit-note"


def test_default_type_option_gives_receipts(shop):
    shop.set_option("invoicing.default_type", "receipt")
    order = shop.order("completed")
    assert shop.meta(order["id"]).json["display_number"].startswith("RCT-")


@pytest.mark.parametrize("status", ["cancelled", "failed"])
def test_regenerate_cancelled_or_failed_needs_force_type(shop, status):
    order = shop.order("completed")
    before = shop.meta(order["id"]).json
    shop.set_status(order["id"], status)
    body = assert_error(shop.regen(order["id"], status=422), 422, "invoicing_order_not_billable")
    assert body["data"]["order_status"] == status
    assert shop.meta(order["id"]).json == before  # nothing regenerated
    forced = shop.regen(order["id"], {"force_type": "invoice"}).json
    assert forced["invoice_number"] == before["invoice_number"]


def test_a_null_force_type_means_resolve_it(shop):
    """docs/decisions.md: JSON null, like an absent field, means "resolve the type"."""
    order = shop.order("completed")
    before = shop.meta(order["id"]).json
    body = shop.regen(order["id"], {"force_type": None}).json
    assert (body["document_type"], body["display_number"]) == ("invoice", before["display_number"])
    shop.set_status(order["id"], "refunded")
    assert shop.regen(order["id"], {"force_type": None}).json["document_type"] == "credit-note"
    shop.set_status(order["id"], "cancelled")
    assert_error(shop.regen(order["id"], {"force_type": None}, status=422), 422, "invoicing_order_not_billable")


@pytest.mark.parametrize("body", [{"force_type": "bill"}, {"force_type": 5}, {"force_type": ""},
                                  {"force_type": ["invoice"]}])
def test_invalid_force_type_is_400(shop, body):
    order = shop.order("completed")
    res = assert_error(shop.regen(order["id"], body, status=400), 400, "rest_invalid_param")
    assert list(res["data"]["params"]) == ["force_type"]


def test_malformed_body_is_400(shop):
    order = shop.order("completed")
    res = shop.app.post(f"{API}/documents/{order['id']}/regenerate", "{nope",
                        headers={**shop.headers_for("shop_manager"), "Content-Type": "application/json"},
                        status=400)
    assert_error(res, 400, "rest_invalid_json")


ROUTES = [("get", "/documents/{id}"), ("get", "/documents/{id}/pdf"), ("post", "/documents/{id}/regenerate"),
          ("get", "/"), ("get", "")]


@pytest.mark.parametrize("method,path", ROUTES)
def test_anonymous_is_401_and_without_capability_403(shop, method, path):
    order = shop.order("completed")
    url = API + path.format(id=order["id"])
    assert_error(getattr(shop.app, method)(url, status=401), 401, "rest_not_logged_in")
    for role in ("editor", "customer"):
        res = getattr(shop.app, method)(url, headers=shop.headers_for(role), status=403)
        assert_error(res, 403, "rest_forbidden")


def _consumer_key_headers(shop, role):
    shop.headers_for(role)  # makes the user
    key, secret = shop.consumer_key(role, "read_write")
    return {"Authorization": "Basic " + base64.b64encode(f"{key}:{secret}".encode()).decode()}


def _cookie_headers(shop, role):
    shop.create_user(f"{role}-cookie", role, password="pw-" + role)
    res = shop.app.post_json("/api/store/v1/auth/login", {"login": f"{role}-cookie", "password": "pw-" + role})
    return {"X-Nonce": res.json["nonce"]}


def _jwt_headers(shop, role):
    shop.create_user(f"{role}-jwt", role, password="pw-" + role)
    res = shop.app.post_json("/api/store/v1/auth/token", {"login": f"{role}-jwt", "password": "pw-" + role})
    token = res.json.get("token") or res.json.get("access_token")
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("method", ["app_password", "consumer_key", "cookie", "jwt"])
def test_every_host_auth_method(shop, method):
    order = shop.order("completed")
    make = {"app_password": lambda s, r: s.headers_for(r), "consumer_key": _consumer_key_headers,
            "cookie": _cookie_headers, "jwt": _jwt_headers}[method]
    manager = make(shop, "shop_manager")
    urls = [f"{API}/documents/{order['id']}", f"{API}/documents/{order['id']}/pdf", f"{API}/"]
    for url in urls:
        assert shop.app.get(url, headers=manager).status_int == 200
    assert shop.app.post(f"{API}/documents/{order['id']}/regenerate", headers=manager).json["order_id"] == order["id"]
    shop.app.reset()
    editor = make(shop, "editor")
    for url in urls:
        assert_error(shop.app.get(url, headers=editor, status=403), 403, "rest_forbidden")
    res = shop.app.post(f"{API}/documents/{order['id']}/regenerate", headers=editor, status=403)
    assert_error(res, 403, "rest_forbidden")


def test_wrong_credentials_are_401(shop):
    order = shop.order("completed")
    bad = {"Authorization": "Basic " + base64.b64encode(b"shop_manager:abcdabcdabcdabcdabcdabcd").decode()}
    res = shop.app.get(f"{API}/documents/{order['id']}", headers=bad, status=401)
    assert_error(res, 401, "rest_authentication_failed")


def test_disabled_api_reveals_nothing(make_shop):
    shop = make_shop(rest=False)
    order = shop.order("completed")
    headers = shop.headers_for("administrator")
    unknown = assert_error(shop.app.get("/api/nothing/v1/", status=404), 404, "rest_no_route")
    for method, path in ROUTES + [("get", "/documents/999"), ("get", "/nothing")]:
        url = API + path.format(id=order["id"])
        for h in (headers, {}):
            res = getattr(shop.app, method)(url, headers=h, status=404)
            assert assert_error(res, 404, "rest_no_route") == unknown
    assert "invoicing/v1" not in shop.app.get("/api/").json["namespaces"]
    shop.set_option("invoicing.rest_api_enabled", True)
    assert shop.app.get(f"{API}/documents/{order['id']}", headers=headers).json["order_id"] == order["id"]
    assert "invoicing/v1" in shop.app.get("/api/").json["namespaces"]


def test_schema_index_describes_the_routes(shop):
    index = shop.app.get(API + "/", headers=shop.headers_for("shop_manager")).json
    assert index["namespace"] == "invoicing/v1"
    routes = index["routes"]
    assert set(routes) == {"/invoicing/v1/documents/{order_id}", "/invoicing/v1/documents/{order_id}/pdf",
                           "/invoicing/v1/documents/{order_id}/regenerate"}
    regen = routes["/invoicing/v1/documents/{order_id}/regenerate"]["endpoints"][0]
    assert regen["methods"] == ["POST"] and regen["permission"] == "manage_shop"
    assert regen["args"]["order_id"] == {"type": "integer", "required": True, "location": "path"}
    assert regen["args"]["force_type"]["enum"] == ["invoice", "receipt", "credit-note", "packing-slip"]
    assert regen["args"]["force_type"]["required"] is False
    meta = routes["/invoicing/v1/documents/{order_id}"]["endpoints"][0]
    assert meta["methods"] == ["GET"] and meta["permission"] == "manage_shop"
    assert set(meta["response"]["properties"]) == {"order_id", "document_type", "invoice_number", "display_number",
                                                  "generated_date", "file_size", "pdf_url", "regenerate_url"}


def test_metadata_runs_a_constant_number_of_queries(shop):
    small = shop.order("completed")
    products = shop.products()
    big = shop.order("completed", lines=[(products[i % 3], i + 1) for i in range(20)])
    shop.regen(big["id"], {"force_type": "packing-slip"})
    headers = shop.headers_for("shop_manager")
    counts = []
    for order_id in (small["id"], big["id"]):
        shop.app.get(f"{API}/documents/{order_id}", headers=headers)
        with count_queries(shop.engine) as n:
            shop.app.get(f"{API}/documents/{order_id}", headers=headers)
        counts.append(n())
    assert counts[0] == counts[1] <= 4, counts



def test_regenerate_runs_a_constant_number_of_queries(shop):
    """The order, its line items and its documents are read with one statement, and the PDF
    written with one, whatever the number of lines and documents; a first document adds only
    its numbering."""
    products = shop.products()
    small = shop.order("pending")
    big = shop.order("pending", lines=[(products[i % 3], i + 1) for i in range(20)])
    shop.regen(big["id"], {"force_type": "packing-slip"})
    shop.regen(big["id"], {"force_type": "receipt"})
    headers = shop.headers_for("shop_manager")
    shop.app.post(f"{API}/documents/{small['id']}/regenerate", headers=headers)  # the route's first call
    first, again = [], []
    for order in (shop.order("pending"), big):
        with count_queries(shop.engine) as n:
            body = shop.app.post(f"{API}/documents/{order['id']}/regenerate", headers=headers).json
        first.append(n())
        with count_queries(shop.engine) as n:
            assert shop.app.post(f"{API}/documents/{order['id']}/regenerate", headers=headers).json[
                "invoice_number"] == body["invoice_number"]
        again.append(n())
    # The site state, the load, the order's note, the UPDATE; on PostgreSQL the lock of the two
    # generations written (the note is the store's, the document the invoicing's) in name order.
    written = 4 + (shop.engine.dialect.name == "postgresql")
    assert again[0] == again[1] <= written, again
    assert first[0] == first[1] <= written + 3, first  # and the counter's INSERT and UPDATE, the document's INSERT
    with count_queries(shop.engine) as n:
        shop.regen(999, status=404)
    assert n() <= 2


def test_no_cross_origin_headers_are_added(shop):
    order = shop.order("completed")
    res = shop.meta(order["id"])
    assert not [h for h in res.headers if h.lower().startswith("access-control-")]


def test_deleting_an_order_deletes_its_documents(shop):
    order = shop.order("completed")
    shop.regen(order["id"], {"force_type": "packing-slip"})
    shop.app.delete(f"/api/store/v1/orders/{order['id']}", headers=shop.headers_for("administrator"))
    assert shop.documents() == []
    assert_error(shop.meta(order["id"], status=404), 404, "invoicing_order_not_found")


def test_metadata_kept_per_process_follows_changes_made_elsewhere(make_shop):
    """Two sites on one database stand for two processes: what one commits, the other's next
    metadata answer shows; while nothing changes, the answer reads no document row."""
    one, other = make_shop(), make_shop()
    other.site.create_user("other_manager", "shop_manager")
    order = one.order("completed")
    first = one.meta(order["id"]).json
    with count_queries(one.engine) as n:
        assert one.meta(order["id"]).json == first
    assert n() == 1  # the generations with the options; identity and document kept
    other.app.post_json(f"{API}/documents/{order['id']}/regenerate", {"force_type": "packing-slip"},
                        headers=other.site.headers_for("other_manager"))
    assert one.meta(order["id"]).json["document_type"] == "packing-slip"
    with other.site.session() as s:
        from storeplatform.api import Order

        s.delete(s.get(Order, order["id"]))
    assert_error(one.meta(order["id"], status=404), 404, "invoicing_order_not_found")


def test_a_kept_pdf_is_the_regenerated_one(make_shop):
    one, other = make_shop(), make_shop()
    other.site.create_user("other_manager", "shop_manager")
    order = one.order("completed")
    headers = one.site.headers_for("shop_manager")
    first = one.app.get(f"{API}/documents/{order['id']}/pdf", headers=headers)
    assert first.body == one.app.get(f"{API}/documents/{order['id']}/pdf", headers=headers).body
    other.app.post_json(f"{API}/documents/{order['id']}/regenerate", {"force_type": "packing-slip"},
                        headers=other.site.headers_for("other_manager"))
    second = one.app.get(f"{API}/documents/{order['id']}/pdf", headers=headers)
    assert "PACKING SLIP" in pdf_text(second.body).upper() and second.body != first.body
