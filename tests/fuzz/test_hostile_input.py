"""Hostile input, class by class, swept over every route of the OpenAPI document the site serves
(so a route added later is swept too): each class is refused with the error body, never a 500,
and nothing reaches the database."""
import json

import pytest

from storeplatform.testing import assert_error

PLUGINS = "invoicing pricecalc events"
HUGE = "9" * 30
HUGER = "9" * 5000  # beyond Python's 4,300-digit limit for int(text)
VARIANTS = pytest.mark.parametrize("hostile", ["standard", "alternate"], indirect=True)


@pytest.fixture
def hostile(make_site, request):
    """The site; the sweeps over every route run on both variants of events/v1 (``indirect``
    parametrization with ``VARIANTS``), the other tests on the standard one."""
    site = make_site(**{"storeplatform.plugins": PLUGINS, "events.api_variant": getattr(request, "param", "standard")})
    site.variant = getattr(request, "param", "standard")
    site.set_option("invoicing.rest_api_enabled", True)
    site.admin = site.headers_for("administrator")
    site.doc = site.app.get("/api/openapi.json").json
    return site


def operations(doc, *, body=None):
    """(method, path template, operation) of every operation; ``body``: only those with or
    without a request body."""
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            if body is None or ("requestBody" in operation) == body:
                yield method.upper(), path, operation


def fill(path, value="1"):
    out = path
    while "{" in out:
        start = out.index("{")
        out = out[:start] + value + out[out.index("}", start) + 1:]
    return out


def call(site, method, path, **kwargs):
    kwargs.setdefault("headers", site.admin)
    return site.app.request("/api" + path, method=method, expect_errors=True, **kwargs)


def assert_error_body(res, status=None):
    assert res.status_int < 500, (res.status, res.text[:300])
    if status is not None:
        assert res.status_int == status, (res.status, res.text[:300])
    body = res.json
    assert set(body) == {"code", "message", "data"} and body["data"]["status"] == res.status_int, body
    return body


@VARIANTS
def test_other_media_types_are_415_on_every_body_route(hostile):
    swept = 0
    for method, path, _ in operations(hostile.doc, body=True):
        for content_type, payload in [("multipart/form-data", b"x"), ("multipart/form-data; boundary=zz", b"--zz\r\nx"),
                                      ("text/xml", b"<a/>")]:
            res = call(hostile, method, fill(path), body=payload, headers={**hostile.admin, "Content-Type": content_type})
            body = assert_error_body(res)
            # A route may refuse the caller or the item before it reads the body; never a 500.
            if res.status_int not in (401, 403, 404):
                assert body["code"] == "rest_unsupported_media_type", (method, path, body)
            swept += 1
    assert swept >= 3


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "nul\u0000"])
@VARIANTS
def test_unstorable_text_is_refused_on_every_body_route(hostile, text):
    for method, path, operation in operations(hostile.doc, body=True):
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        body = {name: text for name in schema.get("properties", {})} or {"x": text}
        payload = json.dumps(body).encode()  # ensure_ascii: the surrogate travels as \ud800
        res = call(hostile, method, fill(path), body=payload, headers={**hostile.admin, "Content-Type": "application/json"})
        got = assert_error_body(res)
        if res.status_int not in (401, 403, 404):
            assert got["code"] == "rest_invalid_json", (method, path, got)
        # The key itself can be the bad text too.
        res = call(hostile, method, fill(path), body=json.dumps({text: 1}).encode(),
                   headers={**hostile.admin, "Content-Type": "application/json"})
        assert_error_body(res)


@VARIANTS
def test_huge_path_ids_are_not_found_on_every_id_route(hostile):
    for method, path, operation in operations(hostile.doc):
        integer_params = [p["name"] for p in operation.get("parameters", [])
                          if p["in"] == "path" and p["schema"].get("type") == "integer"]
        if not integer_params:
            continue
        for value in (HUGE, HUGER, "0"):
            res = call(hostile, method, fill(path, value), json={} if method in ("POST", "PUT") else None)
            assert_error_body(res)
            assert res.status_int in (400, 404, 401, 403), (method, path, res.status)


@VARIANTS
def test_huge_integers_in_queries_are_invalid_params_on_every_route(hostile):
    for method, path, operation in operations(hostile.doc):
        for param in operation.get("parameters", []):
            if param["in"] != "query" or param["schema"].get("type") != "integer":
                continue
            for value in (HUGE, HUGER, "-" + HUGE, "1.5", "x"):
                res = call(hostile, method, fill(path) + f"?{param['name']}={value}")
                body = assert_error_body(res)
                if res.status_int == 400:
                    assert body["code"] == "rest_invalid_param" and param["name"] in body["data"]["params"], body


@VARIANTS
def test_huge_integers_in_bodies_are_invalid_params_on_every_route(hostile):
    for method, path, operation in operations(hostile.doc, body=True):
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        for name, prop in schema.get("properties", {}).items():
            if prop.get("type") != "integer":
                continue
            for value in (int(HUGE), -int(HUGE)):
                res = call(hostile, method, fill(path), body=json.dumps({name: value}).encode(),
                           headers={**hostile.admin, "Content-Type": "application/json"})
                assert_error_body(res)
            res = call(hostile, method, fill(path), body=('{"%s": %s}' % (name, HUGER)).encode(),
                       headers={**hostile.admin, "Content-Type": "application/json"})
            assert_error_body(res, 400) if res.status_int not in (401, 403, 404) else assert_error_body(res)


def test_a_nul_in_the_path_is_an_invalid_url(hostile):
    assert_error(hostile.app.get("/api/store/v1/products/%00", status=400), 400, "rest_invalid_url")


def test_repeated_query_parameters_keep_their_last_value(hostile):
    res = hostile.app.get("/api/store/v1/products?per_page=5&per_page=2", headers=hostile.admin)
    assert res.headers["X-Total"] == "0"
    assert "per_page" not in res.headers.get("Link", "")


def test_money_travels_exactly_and_is_never_rounded(hostile):
    made = hostile.app.post_json("/api/store/v1/products", {"name": "Big", "regular_price": "999999999999.9999"},
                                 headers=hostile.admin, status=201)
    assert b'"regular_price":999999999999.9999' in made.body
    read = hostile.app.get(f"/api/store/v1/products/{made.json['id']}", headers=hostile.admin)
    assert b'"regular_price":999999999999.9999' in read.body
    res = hostile.app.post_json("/api/store/v1/products", {"name": "Fine", "regular_price": 1.23456},
                                headers=hostile.admin, status=400)
    assert_error(res, 400, "rest_invalid_param")
    assert "regular_price" in res.json["data"]["params"]


def test_ids_are_never_given_twice(hostile):
    product = hostile.app.post_json("/api/store/v1/products", {"name": "P", "regular_price": "2"},
                                    headers=hostile.admin).json["id"]
    order = {"line_items": [{"product_id": product}]}
    first = hostile.app.post_json("/api/store/v1/orders", order, headers=hostile.admin).json["id"]
    hostile.app.delete(f"/api/store/v1/orders/{first}", headers=hostile.admin)
    second = hostile.app.post_json("/api/store/v1/orders", order, headers=hostile.admin).json["id"]
    assert second > first


def test_an_order_for_a_missing_customer_names_every_bad_reference(hostile):
    res = hostile.app.post_json("/api/store/v1/orders", {"customer_id": 2**31 + 5, "line_items": [{"product_id": 77}]},
                                headers=hostile.admin, status=400)
    assert_error(res, 400, "rest_invalid_param")
    assert set(res.json["data"]["params"]) == {"customer_id", "line_items.0.product_id"}


def test_case_insensitive_search_beyond_ascii(hostile):
    for name in ("Zoë Øl", "ÅRHUS Ölhalle"):
        hostile.app.post_json("/api/store/v1/products", {"name": name}, headers=hostile.admin, status=201)
    for term, expected in [("zoë", ["Zoë Øl"]), ("århus", ["ÅRHUS Ölhalle"]), ("ÖLHALLE", ["ÅRHUS Ölhalle"]),
                           ("øl", ["Zoë Øl"])]:
        found = hostile.app.get("/api/store/v1/products", params={"search": term}, headers=hostile.admin).json
        assert [p["name"] for p in found] == expected, term


@pytest.mark.in_process
def test_behind_a_trusted_proxy_the_clients_scheme_counts(make_site):
    site = make_site(**{"storeplatform.allow_http_consumer_keys": "false",
                        "storeplatform.trusted_proxies": "10.0.0.0/8, 192.0.2.1"})
    site.create_user("shop", "shop_manager")
    key, secret = site.consumer_key("shop")
    import base64
    auth = {"Authorization": "Basic " + base64.b64encode(f"{key}:{secret}".encode()).decode()}
    for proxy in ("10.1.2.3", "192.0.2.1"):
        res = site.app.get("/api/store/v1/products", headers={**auth, "X-Forwarded-Proto": "https"},
                           extra_environ={"REMOTE_ADDR": proxy})
        assert res.status_int == 200
    made = site.app.post_json("/api/store/v1/products", {"name": "P"}, headers={**auth, "X-Forwarded-Proto": "https"},
                              extra_environ={"REMOTE_ADDR": "10.1.2.3"}, status=201)
    assert made.headers["Location"].startswith("https://")
    res = site.app.get("/api/store/v1/products", headers={**auth, "X-Forwarded-Proto": "https"},
                       extra_environ={"REMOTE_ADDR": "192.0.2.2"}, status=401)
    assert_error(res, 401, "rest_consumer_key_https_required")


@pytest.mark.parametrize("path", ["/", "/?x=%FF", "/?invoicing_download=%FF&key=a", "/api/store/v1/products?x=%FF",
                                  "/api/?q=%C0%AF"])
def test_a_query_string_that_is_not_utf8_is_refused_everywhere(hostile, path):
    res = hostile.app.get(path, expect_errors=True)
    if path == "/":  # the site's landing answer (its links, for a client), beside the refusals below
        assert res.status_int == 200 and res.json["rest_index"].endswith("/api/"), res.text[:300]
        return
    assert_error_body(res)
    assert_error(res, 400, "rest_invalid_url")


def test_digits_of_other_scripts_name_no_row(hostile):
    product = hostile.app.post_json("/api/store/v1/products", {"name": "P"}, headers=hostile.admin).json["id"]
    assert product == 1
    for text in ("%D9%A1", "%C2%B9"):  # Arabic-Indic one, superscript one
        res = hostile.app.get(f"/api/store/v1/products/{text}", headers=hostile.admin, expect_errors=True)
        assert res.status_int == 404, res.text


def test_an_order_total_beyond_the_money_column_is_refused_not_rounded(hostile):
    product = hostile.app.post_json("/api/store/v1/products", {"name": "Dear", "regular_price": "999999999999.9999"},
                                    headers=hostile.admin).json["id"]
    res = hostile.app.post_json("/api/store/v1/orders", {"line_items": [{"product_id": product, "quantity": 100000}]},
                                headers=hostile.admin, status=400)
    assert "line_items.0.quantity" in assert_error(res, 400, "rest_invalid_param")["data"]["params"]
    res = hostile.app.post_json("/api/store/v1/orders", {"line_items": [{"product_id": product, "quantity": 99}]},
                                headers=hostile.admin, status=201)
    assert b'"total":98999999999999.9901' in res.body
    read = hostile.app.get(f"/api/store/v1/orders/{res.json['id']}", headers=hostile.admin)
    assert b'"total":98999999999999.9901' in read.body


def test_every_bad_parameter_of_an_order_is_listed_at_once(hostile):
    priced = hostile.app.post_json("/api/store/v1/products", {"name": "P", "regular_price": "2"},
                                   headers=hostile.admin).json["id"]
    body = {"customer_id": 999, "currency": "euro",
            "line_items": [{"product_id": 4242, "quantity": 1}, {"product_id": priced, "quantity": 0},
                           {"product_id": priced, "quantity": 1}]}
    res = hostile.app.post_json("/api/store/v1/orders", body, headers=hostile.admin, status=400)
    params = assert_error(res, 400, "rest_invalid_param")["data"]["params"]
    assert set(params) == {"customer_id", "currency", "line_items.0.product_id", "line_items.1.quantity"}


# --- class 4: references, swept per route --------------------------------------------------

def references(schema, path=()):
    """(path, marker) of every reference (``x-references``, set by the host's ``RowId``) in a
    JSON schema; a path of property names, ``"0"`` standing for an array's first item."""
    if "x-references" in schema:
        yield path, schema["x-references"]
    for name, prop in schema.get("properties", {}).items():
        yield from references(prop, (*path, name))
    if isinstance(schema.get("items"), dict):
        yield from references(schema["items"], (*path, "0"))


def placed(path, value):
    """A body holding ``value`` at ``path`` and nothing else."""
    if not path:
        return value
    return [placed(path[1:], value)] if path[0] == "0" else {path[0]: placed(path[1:], value)}


def every_row(site):
    """Every row of every table, to show that a refused request wrote nothing."""
    from sqlalchemy import select

    from storeplatform.api import Base

    with site.session() as s:
        return {table.name: sorted(map(repr, s.execute(select(table)).all())) for table in Base.metadata.sorted_tables}


@VARIANTS
def test_references_to_no_row_are_bad_params_on_every_route(hostile):
    admin = hostile.admin
    # One item of each kind, so that the routes of one item find theirs and check the body.
    app = hostile.app
    variable = app.post_json("/api/store/v1/products", {"name": "Shirt", "type": "variable"}, headers=admin).json["id"]
    app.post_json("/api/store/v1/products", {"name": "Simple", "regular_price": "2"}, headers=admin)
    for collection, body in [("venues", {"name": "Hall"}), ("organizers", {"name": "Society"}),
                             ("events", {"title": "Concert"})]:
        app.post_json(f"/api/events/v1/{collection}", body, headers=admin, status=201)
    # Routes whose references are looked up after the other fields (their spec names an error
    # code of their own): the rest of a valid body, so that the reference alone is wrong.
    app.post_json(f"/api/pricecalc/v1/products/{variable}/calculator",
                  {"calculator_type": "area", "settings": {"pricing_unit": "sq ft"}}, headers=admin, status=200)
    valid_rest = {("POST", "/pricecalc/v1/calculate"): {"product_id": variable,
                                                         "measurements": {"length": 2, "width": 3}}}
    before = every_row(hostile)
    swept = set()
    for method, path, operation in operations(hostile.doc, body=True):
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        marked = list(references(schema))
        if not marked:
            continue
        if "{id}" in path:
            listed = call(hostile, "GET", path[:path.index("/{id}")])
            ids = [item["id"] for item in listed.json] if listed.status_int == 200 else []
            target = fill(path, str(ids[-1] if ids else variable))
        else:
            target = path
        for field_path, marker in marked:
            field = ".".join(field_path)
            # An id in a list of ids may be named by the list (``categories``).
            names = {field, ".".join(field_path[:-1])} if field_path[-1] == "0" else {field}
            for value in ([] if marker["zero_is_none"] else [0]) + [2**31 - 2, 2**63 - 1, 10**30]:
                own_code = marker["error"] != "rest_invalid_param"
                assert not own_code or (method, path) in valid_rest, f"give the sweep a valid body of {method} {path}"
                sent = {**valid_rest.get((method, path), {}), **placed(field_path, value)}
                res = call(hostile, method, target, body=json.dumps(sent).encode(),
                           headers={**admin, "Content-Type": "application/json"})
                body = assert_error_body(res)
                what = (method, target, field, value, res.status, body)
                if body["code"] == "rest_invalid_param":
                    assert res.status_int == 400 and names & set(body["data"]["params"]), what
                else:
                    # The route's own code for a missing row, where its spec names one.
                    assert body["code"] == marker["error"] and res.status_int in (400, 404), what
            swept.add((method, path, field))
    assert every_row(hostile) == before
    venue, organizer = ("venue", "organizer") if hostile.variant == "alternate" else ("venue_id", "organizer_id")
    # The references the platform has today are all found (a route added later is swept too).
    assert {("POST", "/store/v1/orders", "customer_id"), ("POST", "/store/v1/orders", "line_items.0.product_id"),
            ("POST", "/store/v1/products", "parent_id"), ("PUT", "/store/v1/products/{id}", "parent_id"),
            # The alternate variant of events/v1 names them venue and organizer.
            ("POST", "/events/v1/events", venue), ("POST", "/events/v1/events", organizer),
            ("POST", "/events/v1/events", "categories.0"), ("PUT", "/events/v1/events/{id}", "categories.0"),
            ("POST", "/pricecalc/v1/calculate", "product_id"),
            ("POST", "/pricecalc/v1/calculate", "variation_id")} <= swept, swept
