"""REST conventions: one error body, schema index, pagination, create answers."""
import pytest

from storeplatform.testing import assert_error


def test_root_index_lists_namespaces(site):
    res = site.app.get("/api/")
    assert res.json["namespaces"] == ["audit/v1", "store/v1"]
    assert site.app.get("/api").json["namespaces"] == ["audit/v1", "store/v1"]


def test_unknown_route_under_prefix_is_rest_no_route(site):
    assert_error(site.app.get("/api/nope/v1/things", status=404), 404, "rest_no_route")
    assert_error(site.app.get("/api/store/v1/nothing", status=404), 404, "rest_no_route")


def test_non_numeric_id_is_no_route(site):
    assert_error(site.app.get("/api/store/v1/products/abc", status=404), 404, "rest_no_route")


def test_method_not_allowed_has_error_body_and_allow(site):
    res = site.app.patch_json("/api/store/v1/products", {}, status=405)
    assert_error(res, 405, "rest_method_not_allowed")
    assert "GET" in res.headers["Allow"] and "POST" in res.headers["Allow"]


def test_malformed_json_is_400(site):
    res = site.app.post("/api/store/v1/products", "{not json", headers={
        **site.headers_for("administrator"), "Content-Type": "application/json"}, status=400)
    assert_error(res, 400, "rest_invalid_json")


def test_json_body_must_be_object(site):
    res = site.app.post("/api/store/v1/products", "[1, 2]", headers={
        **site.headers_for("administrator"), "Content-Type": "application/json"}, status=400)
    assert_error(res, 400, "rest_invalid_json")


def test_nan_is_not_json(site):
    res = site.app.post("/api/store/v1/products", '{"name": "x", "regular_price": NaN}', headers={
        **site.headers_for("administrator"), "Content-Type": "application/json"}, status=400)
    assert_error(res, 400, "rest_invalid_json")


def test_validation_error_names_each_parameter(site):
    res = site.app.post_json("/api/store/v1/products", {"type": "banana", "regular_price": "abc"},
                             headers=site.headers_for("administrator"), status=400)
    body = assert_error(res, 400, "rest_invalid_param")
    assert set(body["data"]["params"]) == {"name", "type", "regular_price"}


@pytest.mark.parametrize("query", ["per_page=0", "per_page=101", "per_page=x", "page=0", "page=-1"])
def test_out_of_range_pagination_is_rejected(site, query):
    body = assert_error(site.app.get(f"/api/store/v1/products?{query}", status=400), 400, "rest_invalid_param")
    assert list(body["data"]["params"]) == [query.split("=")[0]]


def test_pagination_headers_and_links(site):
    headers = site.headers_for("administrator")
    for i in range(25):
        site.app.post_json("/api/store/v1/products", {"name": f"P{i}", "regular_price": "1.00"}, headers=headers)
    res = site.app.get("/api/store/v1/products?per_page=10&page=2")
    assert res.headers["X-Total"] == "25"
    assert res.headers["X-TotalPages"] == "3"
    link = res.headers["Link"]
    assert 'per_page=10&page=1>; rel="prev"' in link
    assert 'per_page=10&page=3>; rel="next"' in link
    assert len(res.json) == 10
    last = site.app.get("/api/store/v1/products?per_page=10&page=3")
    assert len(last.json) == 5 and 'rel="next"' not in last.headers["Link"]
    first = site.app.get("/api/store/v1/products")
    assert len(first.json) == 10 and "Link" in first.headers and 'rel="prev"' not in first.headers["Link"]


def test_create_answers_201_with_location(site):
    res = site.app.post_json("/api/store/v1/products", {"name": "Lamp", "regular_price": "12.50"},
                             headers=site.headers_for("shop_manager"), status=201)
    assert res.headers["Location"].endswith(f"/api/store/v1/products/{res.json['id']}")
    assert site.app.get(res.headers["Location"]).json["name"] == "Lamp"


def test_unhandled_error_is_generic_500(make_site):
    site = make_site(**{"storeplatform.plugins": "thirdparty"})

    def boom(request):
        raise RuntimeError("secret detail")

    site.config.add_route("boom", "/api/store/v1/boom")
    site.config.add_view(boom, route_name="boom")
    site.config.commit()
    from webtest import TestApp

    app = TestApp(site.config.make_wsgi_app())
    res = app.get("/api/store/v1/boom", status=500)
    assert_error(res, 500, "rest_internal_error")
    assert "secret" not in res.text and "Traceback" not in res.text


def test_namespace_schema_index_is_generated_from_schemas(site):
    res = site.app.get("/api/store/v1/")
    routes = res.json["routes"]
    products = routes["/store/v1/products"]
    assert products["methods"] == ["GET", "POST"]
    get = next(e for e in products["endpoints"] if e["methods"] == ["GET"])
    assert get["args"]["per_page"] == {"type": "integer", "required": False, "location": "query", "default": 10,
                                       "description": "Maximum number of items to be returned in result set.",
                                       "minimum": 1, "maximum": 100}
    post = next(e for e in products["endpoints"] if e["methods"] == ["POST"])
    assert post["args"]["name"]["required"] is True
    assert post["args"]["type"]["enum"] == ["simple", "variable", "variation"]
    assert post["permission"] == "manage_shop"
    one = routes["/store/v1/products/{id}"]
    assert one["methods"] == ["DELETE", "GET", "PUT"]
    assert one["endpoints"][0]["args"]["id"] == {"type": "integer", "required": True, "location": "path"}


def test_third_party_route_in_another_namespace_appears_in_its_index(make_site):
    site = make_site(**{"storeplatform.plugins": "thirdparty"})
    assert site.app.get("/api/store/v1/thirdparty/ping").json == {"pong": True}
    assert "/store/v1/thirdparty/ping" in site.app.get("/api/store/v1/").json["routes"]


def test_third_party_plugin_loads_only_when_listed(site):
    assert_error(site.app.get("/api/store/v1/thirdparty/ping", status=404), 404, "rest_no_route")
    assert "/store/v1/thirdparty/ping" not in site.app.get("/api/store/v1/").json["routes"]


def test_rest_prefix_is_configurable(make_site):
    site = make_site(**{"storeplatform.rest_prefix": "/wp-json"})
    assert site.app.get("/wp-json/").json["namespaces"] == ["audit/v1", "store/v1"]
    assert_error(site.app.get("/api/", status=404), 404, "rest_no_route")


@pytest.mark.parametrize("url,status,code", [
    ("/api/store/v1/products?search=%FF", 400, "rest_invalid_url"),
    ("/api/%FF/x", 400, "rest_invalid_url"),
    ("/api/store/v1/products?search=a%00b", 400, "rest_invalid_param"),
    ("/api/store/v1/products?page=99999999999", 400, "rest_invalid_param"),
    ("/api/store/v1/products/99999999999999999999999", 404, "rest_product_invalid_id"),
    ("/api/store/v1/products/2147483648", 404, "rest_product_invalid_id"),
])
def test_hostile_urls_get_error_bodies(site, url, status, code):
    assert_error(site.app.get(url, status=status), status, code)


@pytest.mark.parametrize("raw,status,code", [
    (b"[" * 100000, 400, "rest_invalid_json"),
    (b"\xff\xfe", 400, "rest_invalid_json"),
    (b'{"name": "a\\u0000b"}', 400, "rest_invalid_json"),
    (b'{"name": "' + b"x" * (3 * 1024 * 1024) + b'"}', 413, "rest_request_too_large"),
])
def test_hostile_bodies_get_error_bodies(site, raw, status, code):
    res = site.app.post("/api/store/v1/products", raw, headers={
        **site.headers_for("administrator"), "Content-Type": "application/json"}, status=status)
    assert_error(res, status, code)


@pytest.mark.parametrize("declared,status,code", [
    ("100", 400, "rest_bad_request"),  # the body ends before its Content-Length
    (str(3 * 1024 * 1024), 413, "rest_request_too_large"),  # refused before it is read
])
def test_a_body_unlike_its_content_length_gets_an_error_body(site, declared, status, code):
    import io
    import json

    from webob import Request

    request = Request.blank("/api/store/v1/products", method="POST",
                            headers={**site.headers_for("administrator"), "Content-Type": "application/json"})
    request.environ["wsgi.input"] = io.BytesIO(b'{"name": "Desk"}')
    request.environ["CONTENT_LENGTH"] = declared
    res = request.get_response(site.wsgi)
    assert res.status_code == status and json.loads(res.body)["code"] == code


def test_out_of_range_numbers_are_invalid_params(site):
    h = site.headers_for("administrator")
    body = assert_error(site.app.post_json("/api/store/v1/products", {"name": "x", "regular_price": "1e400"},
                                           headers=h, status=400), 400, "rest_invalid_param")
    assert list(body["data"]["params"]) == ["regular_price"]
    body = assert_error(site.app.post_json("/api/store/v1/orders", {"line_items": [{"product_id": 10**20}]},
                                           headers=h, status=400), 400, "rest_invalid_param")
    assert list(body["data"]["params"]) == ["line_items.0.product_id"]


def test_the_rest_root_and_openapi_refuse_other_methods_with_allow(site):
    for path in ("/api/", "/api", "/api/openapi.json"):
        for method in ("post", "put", "patch", "delete"):
            res = getattr(site.app, method)(path, status=405)
            assert res.headers["Allow"] == "GET, HEAD"
            assert_error(res, 405, "rest_method_not_allowed")
