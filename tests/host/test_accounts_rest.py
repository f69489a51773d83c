"""store/v1 users (#28): list, create, read, update, delete, each user's application passwords and
sessions, in the host's REST conventions (pagination, one error body, schema index, OpenAPI),
with the rules of storeplatform.components.shop.accounts: who may see, change, promote and delete whom."""
import base64
from urllib.parse import urlencode

import pytest
from sqlalchemy import select

from storeplatform.components.shop.models import Order, Post, User
from storeplatform.testing import assert_error, count_queries

API = "/api/store/v1"
USERS = f"{API}/users"
ME = f"{USERS}/me"


def basic(login, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()}


def user_id(site, login):
    with site.session() as s:
        return s.execute(select(User.id).where(User.login == login)).scalar_one()


def no_secret_in(text):
    assert "scrypt$" not in text and "password_hash" not in text and "token_hash" not in text


# --- list ------------------------------------------------------------------------------------

def test_administrators_list_users_with_the_hosts_pagination(site):
    admin = site.headers_for("administrator")
    for i in range(12):
        site.create_user(f"user{i:02d}", "customer", password="pw")
    res = site.app.get(USERS, params={"per_page": 5, "page": 2}, headers=admin)
    assert res.headers["X-Total"] == "13" and res.headers["X-TotalPages"] == "3"
    assert 'rel="prev"' in res.headers["Link"] and 'rel="next"' in res.headers["Link"]
    assert [u["login"] for u in res.json] == ["user06", "user05", "user04", "user03", "user02"]  # newest first
    # context=edit, the default here: this API's fields and WordPress's (#43)
    assert set(res.json[0]) == {"id", "login", "email", "name", "role", "capabilities", "disabled", "date_created",
                                "_links", "username", "first_name", "last_name", "nickname", "url", "description",
                                "link", "locale", "slug", "roles", "extra_capabilities", "registered_date",
                                "avatar_urls", "meta"}
    no_secret_in(res.text)
    assert_error(site.app.get(USERS, params={"per_page": 101}, headers=admin, status=400), 400, "rest_invalid_param",
                 params={"per_page": "101 is greater than maximum value 100"})


def test_the_list_filters_by_search_and_role(site):
    admin = site.headers_for("administrator")
    site.create_user("zoe", "customer", email="zoe@shop.example")
    site.create_user("ann", "editor", email="ann@example.com")
    site.create_user("bob_100%", "customer")
    assert [u["login"] for u in site.app.get(USERS, params={"search": "SHOP.EX"}, headers=admin).json] == ["zoe"]
    assert [u["login"] for u in site.app.get(USERS, params={"role": "editor"}, headers=admin).json] == ["ann"]
    # LIKE's wildcards are text like any other
    assert [u["login"] for u in site.app.get(USERS, params={"search": "0%"}, headers=admin).json] == ["bob_100%"]
    assert site.app.get(USERS, params={"search": "_"}, headers=admin).json[0]["login"] == "bob_100%"
    body = assert_error(site.app.get(USERS, params={"role": "emperor"}, headers=admin, status=400), 400,
                        "rest_invalid_param")
    assert set(body["data"]["params"]) == {"role"} and "unknown role" in body["data"]["params"]["role"]


def test_the_list_costs_the_same_queries_whatever_its_length(site):
    admin = site.headers_for("administrator")
    site.app.get(USERS, headers=admin)
    with count_queries(site.engine) as few:
        assert len(site.app.get(USERS, headers=admin).json) == 1
    for i in range(30):
        site.create_user(f"user{i:02d}", "editor")
    site.app.get(USERS, headers=admin)  # the caller's identity is read again once users changed
    with count_queries(site.engine) as many:
        assert len(site.app.get(USERS, params={"per_page": 100}, headers=admin).json) == 31
    assert many() == few()


@pytest.mark.parametrize("role,status,code", [
    ("shop_manager", 200, None), ("editor", 403, "rest_forbidden"), ("customer", 403, "rest_forbidden"),
    (None, 401, "rest_not_logged_in")])
def test_who_may_list_users(site, role, status, code):
    res = site.app.get(USERS, headers=site.headers_for(role) if role else {}, status=status)
    if code:
        assert_error(res, status, code)


# --- create ----------------------------------------------------------------------------------

def test_an_administrator_creates_a_user_who_can_log_in(site):
    admin = site.headers_for("administrator")
    res = site.app.post_json(USERS, {"login": "new.user@x", "email": "n@example.com", "name": "Nu",
                                     "password": "a-password", "role": "editor"}, headers=admin, status=201)
    assert res.headers["Location"].endswith(f"/store/v1/users/{res.json['id']}")
    assert (res.json["login"], res.json["role"], res.json["name"], res.json["disabled"]) == \
        ("new.user@x", "editor", "Nu", False)
    no_secret_in(res.text)
    token = site.app.post_json(f"{API}/auth/token", {"login": "new.user@x", "password": "a-password"}).json["token"]
    assert site.app.get(ME, headers={"Authorization": "Bearer " + token}).json["role"] == "editor"
    # A customer by default; a name defaults to the login.
    plain = site.app.post_json(USERS, {"login": "plain"}, headers=admin, status=201).json
    assert (plain["role"], plain["name"], plain["email"]) == ("customer", "plain", "")


def test_bad_fields_are_reported_together(site):
    admin = site.headers_for("administrator")
    body = assert_error(site.app.post_json(USERS, {"login": "has space", "email": "not-an-email", "name": 5,
                                                   "role": "emperor", "password": ""},
                                           headers=admin, status=400), 400, "rest_invalid_param")
    assert set(body["data"]["params"]) == {"login", "email", "name", "role", "password"}
    for login in ("ck_abc", "CK_abc", "x" * 61, "Łukasz", "a:b", "", "-start", 12):
        res = site.app.post_json(USERS, {"login": login}, headers=admin, status=400)
        assert set(assert_error(res, 400, "rest_invalid_param")["data"]["params"]) == {"login"}, login
    for email in ("a@b", "@example.com", "a\x01@example.com", "x" * 200 + "@example.com"):
        res = site.app.post_json(USERS, {"login": "ok", "email": email}, headers=admin, status=400)
        assert set(assert_error(res, 400, "rest_invalid_param")["data"]["params"]) == {"email"}, email
    assert_error(site.app.post_json(USERS, {"login": "ok", "name": "a\ud800"}, headers=admin, status=400), 400,
                 "rest_invalid_json")
    assert_error(site.app.post_json(USERS, ["ok"], headers=admin, status=400), 400, "rest_invalid_json")
    site.app.post_json(USERS, {"login": "ok"}, headers=admin, status=201)
    # WordPress's code for a taken login (#43), any case
    for taken in ("ok", "OK"):
        body = assert_error(site.app.post_json(USERS, {"login": taken}, headers=admin, status=400), 400,
                            "existing_user_login")
        assert "already exists" in body["data"]["params"]["login"]


def test_a_shop_manager_creates_customers_only(site):
    manager = site.headers_for("shop_manager")
    assert site.app.post_json(USERS, {"login": "buyer"}, headers=manager, status=201).json["role"] == "customer"
    assert_error(site.app.post_json(USERS, {"login": "ed", "role": "editor"}, headers=manager, status=403), 403,
                 "rest_cannot_create_user")
    assert_error(site.app.post_json(USERS, {"login": "ed"}, headers=site.headers_for("editor"), status=403), 403,
                 "rest_forbidden")


def test_plugin_roles_are_roles(make_site):
    from storeplatform.api import hookimpl

    class Roles:
        @hookimpl
        def storeplatform_role_capabilities(self):
            return {"wholesale": {"read"}}

    site = make_site(plugins=[Roles()])
    admin = site.headers_for("administrator")
    assert site.app.post_json(USERS, {"login": "bulk", "role": "wholesale"}, headers=admin).json["role"] == "wholesale"
    assert [u["login"] for u in site.app.get(USERS, params={"role": "wholesale"}, headers=admin).json] == ["bulk"]


# --- read ------------------------------------------------------------------------------------

def test_customers_see_themselves_and_nobody_else(site):
    one = site.headers_for("customer")
    site.create_user("other", "customer")
    me = site.app.get(ME, headers=one).json
    # One shape for a user: users/me is users/{id} of oneself (and the login's "user").
    assert site.app.get(f"{USERS}/{me['id']}", headers=one).json == me
    assert me["login"] == "customer" and me["disabled"] is False and me["date_created"]
    # Another user is not found, as if there were none (existence is not told).
    for target in (user_id(site, "other"), 999999, 99999999999999):
        assert_error(site.app.get(f"{USERS}/{target}", headers=one, status=404), 404, "rest_user_invalid_id")
    assert_error(site.app.get(f"{USERS}/{me['id']}", status=401), 401, "rest_not_logged_in")
    assert site.app.get(f"{USERS}/{user_id(site, 'other')}", headers=site.headers_for("shop_manager")).json[
        "login"] == "other"


# --- update ----------------------------------------------------------------------------------

def test_changing_ones_own_password_needs_the_current_one(site):
    uid = site.create_user("ann", "customer", password="first-password")
    headers = basic("ann", site.app_password("ann"))
    for body, problem in [({"password": "second-password"}, "needed"),
                          ({"password": "second-password", "current_password": "wrong"}, "not your current")]:
        res = assert_error(site.app.put_json(f"{USERS}/{uid}", body, headers=headers, status=400), 400,
                           "rest_invalid_param")
        assert problem in res["data"]["params"]["current_password"]
    site.app.put_json(f"{USERS}/{uid}", {"password": "second-password", "current_password": "first-password",
                                         "name": "Ann"}, headers=headers)
    site.app.post_json(f"{API}/auth/token", {"login": "ann", "password": "second-password"})
    # An administrator changing someone else's password needs none.
    site.app.put_json(f"{USERS}/{uid}", {"password": "third-password"}, headers=site.headers_for("administrator"))
    site.app.post_json(f"{API}/auth/token", {"login": "ann", "password": "third-password"})


def test_nobody_without_promote_users_changes_a_role(site):
    site.headers_for("customer")
    uid = user_id(site, "customer")
    for role in ("customer", "editor", "shop_manager"):
        headers = site.headers_for(role)
        own = site.app.get(ME, headers=headers).json["id"]
        assert_error(site.app.put_json(f"{USERS}/{own}", {"role": "administrator"}, headers=headers, status=403),
                     403, "rest_cannot_edit_roles")
    manager = site.headers_for("shop_manager")
    assert_error(site.app.put_json(f"{USERS}/{uid}", {"role": "editor"}, headers=manager, status=403), 403,
                 "rest_cannot_edit_roles")
    with site.session() as s:
        assert s.get(User, uid).role == "customer"
    # Sending the role one has already changes nothing and is no promotion.
    assert site.app.put_json(f"{USERS}/{uid}", {"role": "customer", "name": "C"}, headers=manager).json["name"] == "C"


def test_a_shop_manager_edits_customers_only(site):
    manager = site.headers_for("shop_manager")
    site.headers_for("customer"), site.headers_for("editor")
    customer, editor = user_id(site, "customer"), user_id(site, "editor")
    res = site.app.put_json(f"{USERS}/{customer}", {"email": "c@example.org", "disabled": True}, headers=manager)
    assert (res.json["email"], res.json["disabled"]) == ("c@example.org", True)
    for body in ({"email": "e@example.org"}, {"password": "x" * 10}, {"disabled": True}):
        assert_error(site.app.put_json(f"{USERS}/{editor}", body, headers=manager, status=403), 403, "rest_cannot_edit")
    assert_error(site.app.delete(f"{USERS}/{customer}", headers=manager, status=403), 403, "rest_forbidden")
    assert_error(site.app.get(f"{USERS}/{editor}/app-passwords", headers=manager, status=403), 403,
                 "rest_cannot_edit")
    assert_error(site.app.delete(f"{USERS}/{editor}/sessions", headers=manager, status=403), 403,
                 "rest_cannot_edit")


def test_an_administrator_cannot_demote_disable_or_delete_themselves(site):
    admin = site.headers_for("administrator")
    site.create_user("second", "administrator")
    own = site.app.get(ME, headers=admin).json["id"]
    for body in ({"role": "editor"}, {"disabled": True}):
        assert_error(site.app.put_json(f"{USERS}/{own}", body, headers=admin, status=403), 403,
                     "rest_user_cannot_change_self")
    assert_error(site.app.delete(f"{USERS}/{own}", headers=admin, status=403), 403, "rest_user_cannot_change_self")
    # Another administrator may.
    second = user_id(site, "second")
    assert site.app.put_json(f"{USERS}/{second}", {"role": "editor"}, headers=admin).json["role"] == "editor"


def test_a_promotion_is_kept_and_bad_values_are_params(site):
    admin = site.headers_for("administrator")
    uid = site.create_user("ann", "customer")
    assert site.app.put_json(f"{USERS}/{uid}", {"role": "shop_manager"}, headers=admin).json["role"] == "shop_manager"
    body = assert_error(site.app.put_json(f"{USERS}/{uid}", {"role": "king", "disabled": "maybe", "email": "x"},
                                          headers=admin, status=400), 400, "rest_invalid_param")
    assert set(body["data"]["params"]) == {"role", "disabled", "email"}
    # The login is for ever: a new one is refused, naming it (#43: nothing sent is silently ignored)
    body = assert_error(site.app.put_json(f"{USERS}/{uid}", {"login": "renamed"}, headers=admin, status=400), 400,
                        "rest_invalid_param")
    assert body["data"]["params"] == {"login": "the login cannot be changed"}
    assert site.app.put_json(f"{USERS}/{uid}", {"login": "ann", "id": uid}, headers=admin).json["login"] == "ann"


# --- delete ----------------------------------------------------------------------------------

def make_content(site, author_id, customer_id):
    from storeplatform.components.shop.orders import create_order
    from storeplatform.components.shop.models import Product

    with site.session() as s:
        s.add_all([Post(post_type="page", title="One", author_id=author_id),
                   Post(post_type="page", title="Two", author_id=author_id)])
        product = Product(name="Mug", regular_price=5, meta={})
        s.add(product)
        s.flush()
        order = create_order(s, line_items=[{"product_id": product.id, "quantity": 1}],
                             billing={"first_name": "Dave", "email": "dave@example.com"}, customer_id=customer_id)
        return order.id


def test_deleting_a_user_moves_their_posts_to_reassign_and_keeps_orders_as_guest_orders(site):
    admin = site.headers_for("administrator")
    dave, erin = site.create_user("dave", "author"), site.create_user("erin", "editor")
    order_id = make_content(site, dave, dave)
    res = site.app.delete(f"{USERS}/{dave}?reassign={erin}&force=true", headers=admin).json
    assert (res["deleted"], res["previous"]["login"], res["posts"], res["reassigned_to"], res["orders"]) == \
        (True, "dave", 2, erin, 1)
    with site.session() as s:
        assert [p.author_id for p in s.execute(select(Post)).scalars()] == [erin, erin]
        order = s.get(Order, order_id)
        assert order.customer_id is None and order.billing["first_name"] == "Dave"
        assert s.get(User, dave) is None
    assert_error(site.app.get(f"{USERS}/{dave}", headers=admin, status=404), 404, "rest_user_invalid_id")


def test_without_reassign_the_posts_stay_without_an_author(site):
    admin = site.headers_for("administrator")
    dave = site.create_user("dave", "author")
    make_content(site, dave, None)
    res = site.app.delete(f"{USERS}/{dave}", headers=admin).json
    assert (res["posts"], res["reassigned_to"], res["orders"]) == (2, 0, 0)
    with site.session() as s:
        assert [p.author_id for p in s.execute(select(Post)).scalars()] == [None, None]


def test_bad_deletes_change_nothing(site):
    admin = site.headers_for("administrator")
    dave = site.create_user("dave", "author")
    for params, field in [({"reassign": 99999}, "reassign"), ({"reassign": dave}, "reassign"),
                          ({"reassign": "x"}, "reassign"), ({"reassign": "9" * 30}, "reassign"),
                          ({"force": "false"}, "force")]:
        body = assert_error(site.app.delete(f"{USERS}/{dave}?{urlencode(params)}", headers=admin, status=400), 400,
                            "rest_invalid_param")
        assert set(body["data"]["params"]) == {field}, params
    assert_error(site.app.delete(f"{USERS}/99999", headers=admin, status=404), 404, "rest_user_invalid_id")
    assert site.app.get(f"{USERS}/{dave}", headers=admin).json["login"] == "dave"


# --- application passwords and sessions ------------------------------------------------------

def test_own_application_passwords_list_create_and_revoke(site):
    site.create_user("ann", "customer", password="pw")
    token = site.app.post_json(f"{API}/auth/token", {"login": "ann", "password": "pw"}).json["token"]
    bearer = {"Authorization": "Bearer " + token}
    created = site.app.post_json(f"{ME}/app-passwords", {"name": "phone"}, headers=bearer, status=201)
    password = created.json["password"]
    assert len(password.replace(" ", "")) == 24 and created.json["name"] == "phone"
    assert created.headers["Location"].endswith(f"/users/{user_id(site, 'ann')}/app-passwords/{created.json['id']}")
    listed = site.app.get(f"{ME}/app-passwords", headers=bearer)
    assert [item["name"] for item in listed.json] == ["phone"] and "password" not in listed.json[0]
    no_secret_in(listed.text)
    assert password.replace(" ", "") not in listed.text
    assert site.app.get(ME, headers=basic("ann", password)).json["login"] == "ann"
    same = site.app.get(f"{USERS}/{user_id(site, 'ann')}/app-passwords", headers=bearer).json
    assert [(item["id"], item["uuid"]) for item in same] == [(item["id"], item["uuid"]) for item in listed.json]
    assert same[0]["last_used"] is not None and listed.json[0]["last_used"] is None  # used since (#43)
    res = site.app.delete(f"{ME}/app-passwords/{created.json['id']}", headers=bearer).json
    assert res["deleted"] is True and res["previous"]["name"] == "phone"
    assert_error(site.app.get(ME, headers=basic("ann", password), status=401), 401, "rest_authentication_failed")
    assert_error(site.app.delete(f"{ME}/app-passwords/{created.json['id']}", headers=bearer, status=404), 404,
                 "rest_application_password_not_found")
    body = assert_error(site.app.post_json(f"{ME}/app-passwords", {"name": ""}, headers=bearer, status=400), 400,
                        "rest_invalid_param")
    assert set(body["data"]["params"]) == {"name"}


def test_application_passwords_of_others(site):
    admin = site.headers_for("administrator")
    customer = site.headers_for("customer")
    site.create_user("other", "customer")
    other = user_id(site, "other")
    made = site.app.post_json(f"{USERS}/{other}/app-passwords", {"name": "by admin"}, headers=admin).json
    assert site.app.get(ME, headers=basic("other", made["password"])).json["login"] == "other"
    # A customer sees no other user's passwords (nor that the user exists) and revokes none.
    assert_error(site.app.get(f"{USERS}/{other}/app-passwords", headers=customer, status=404), 404,
                 "rest_user_invalid_id")
    assert_error(site.app.delete(f"{USERS}/{other}/app-passwords/{made['id']}", headers=customer, status=404),
                 404, "rest_user_invalid_id")
    # Through one's own routes another user's password is not found.
    assert_error(site.app.delete(f"{ME}/app-passwords/{made['id']}", headers=customer, status=404), 404,
                 "rest_application_password_not_found")
    # A shop manager manages customers' passwords.
    manager = site.headers_for("shop_manager")
    assert len(site.app.get(f"{USERS}/{other}/app-passwords", headers=manager).json) == 1
    site.app.delete(f"{USERS}/{other}/app-passwords/{made['id']}", headers=manager)
    assert_error(site.app.get(ME, headers=basic("other", made["password"]), status=401), 401,
                 "rest_authentication_failed")


def test_anonymous_callers_have_no_me(site):
    for method, path in [("GET", f"{ME}/app-passwords"), ("POST", f"{ME}/app-passwords"),
                         ("DELETE", f"{ME}/sessions"), ("DELETE", f"{ME}/app-passwords/1")]:
        assert_error(site.app.request(path, method=method, expect_errors=True), 401, "rest_not_logged_in")


# --- the host's conventions ------------------------------------------------------------------

def test_the_routes_are_in_the_schema_index_and_the_openapi_document(site):
    admin = site.headers_for("administrator")
    routes = site.app.get(f"{API}/", headers=admin).json["routes"]
    for path in ("/store/v1/users", "/store/v1/users/{id}", "/store/v1/users/{id}/app-passwords",
                 "/store/v1/users/{id}/app-passwords/{password_id}", "/store/v1/users/{id}/sessions",
                 "/store/v1/users/me/app-passwords", "/store/v1/users/me/app-passwords/{password_id}",
                 "/store/v1/users/me/sessions"):
        assert path in routes, path
    assert routes["/store/v1/users"]["methods"] == ["GET", "POST"]
    assert routes["/store/v1/users/{id}"]["methods"] == ["DELETE", "GET", "PATCH", "POST", "PUT"]
    paths = site.app.get("/api/openapi.json", headers=admin).json["paths"]
    create = paths["/store/v1/users"]["post"]
    # login or WordPress's username: one of them (the view says which is missing)
    assert {"login", "username"} <= set(create["requestBody"]["content"]["application/json"]["schema"]["properties"])
    assert "GET /store/v1/users/{id}" in create["responses"]["201"]["links"]
    login = create["requestBody"]["content"]["application/json"]["schema"]["properties"]["login"]
    assert (login["minLength"], login["maxLength"]) == (1, 60) and login["pattern"].startswith("^")
    reassign = next(p for p in paths["/store/v1/users/{id}"]["delete"]["parameters"] if p["name"] == "reassign")
    assert reassign["schema"]["x-references"]["to"] == "users"


def test_a_wrong_method_is_405_with_allow(site):
    res = site.app.patch_json(USERS, {}, headers=site.headers_for("administrator"), status=405)
    assert_error(res, 405, "rest_method_not_allowed")
    assert res.headers["Allow"] == "GET, HEAD, POST"
