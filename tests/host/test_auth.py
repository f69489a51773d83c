"""Authentication methods and capabilities, through the public routes."""
import base64
import time

import jwt
import pytest

from storeplatform.testing import assert_error

ME = "/api/store/v1/users/me"


def basic(login, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()}


def test_app_password_authenticates_and_spaces_are_ignored(site):
    site.create_user("ann", "editor")
    password = site.app_password("ann")
    assert len(password.replace(" ", "")) == 24 and password.count(" ") == 5
    assert site.app.get(ME, headers=basic("ann", password)).json["login"] == "ann"
    assert site.app.get(ME, headers=basic("ann", password.replace(" ", ""))).json["role"] == "editor"


def test_app_password_is_stored_as_keyed_hash_only(site):
    site.create_user("ann", "editor")
    password = site.app_password("ann").replace(" ", "")
    from sqlalchemy import select

    from storeplatform.components.shop.models import AppPassword

    with site.session() as s:
        stored = s.execute(select(AppPassword.token_hash)).scalar_one()
    assert password not in stored and len(stored) == 64


@pytest.mark.parametrize("credentials", [
    ("ann", "x" * 24), ("bob", None), ("ann", "short"), ("ann", "!" * 24)])
def test_wrong_app_password_is_401(site, credentials):
    site.create_user("ann", "editor")
    site.create_user("bob", "editor")
    good = site.app_password("ann")
    login, password = credentials
    res = site.app.get(ME, headers=basic(login, password or good), status=401)
    assert_error(res, 401, "rest_authentication_failed")


def test_wrong_credentials_fail_public_routes_too(site):
    res = site.app.get("/api/store/v1/products", headers=basic("nobody", "x" * 24), status=401)
    assert_error(res, 401, "rest_authentication_failed")


def test_malformed_basic_header_is_401(site):
    res = site.app.get(ME, headers={"Authorization": "Basic !!!notbase64"}, status=401)
    assert_error(res, 401, "rest_authentication_failed")


def test_anonymous_is_401_and_missing_capability_is_403(site):
    assert_error(site.app.get("/api/store/v1/orders", status=401), 401, "rest_not_logged_in")
    res = site.app.get("/api/store/v1/orders", headers=site.headers_for("editor"), status=403)
    assert_error(res, 403, "rest_forbidden")
    assert site.app.get("/api/store/v1/orders", headers=site.headers_for("shop_manager")).json == []


@pytest.mark.in_process
def test_consumer_key_over_https(make_site):
    site = make_site(**{"storeplatform.allow_http_consumer_keys": "false"})
    site.create_user("shop", "shop_manager")
    key, secret = site.consumer_key("shop")
    assert key.startswith("ck_") and secret.startswith("cs_")
    res = site.app.get("/api/store/v1/orders", headers=basic(key, secret), extra_environ={"wsgi.url_scheme": "https"})
    assert res.json == []
    res = site.app.get("/api/store/v1/orders", headers=basic(key, secret), status=401)
    assert_error(res, 401, "rest_consumer_key_https_required")
    bad = site.app.get("/api/store/v1/orders", headers=basic(key, "cs_" + "0" * 40), status=401,
                       extra_environ={"wsgi.url_scheme": "https"})
    assert_error(bad, 401, "rest_authentication_failed")


@pytest.mark.in_process
def test_forwarded_proto_only_from_trusted_proxies(make_site):
    site = make_site(**{"storeplatform.allow_http_consumer_keys": "false",
                        "storeplatform.trusted_proxies": "10.0.0.5"})
    site.create_user("shop", "shop_manager")
    key, secret = site.consumer_key("shop")
    headers = {**basic(key, secret), "X-Forwarded-Proto": "https"}
    assert site.app.get("/api/store/v1/orders", headers=headers, extra_environ={"REMOTE_ADDR": "10.0.0.5"}).json == []
    res = site.app.get("/api/store/v1/orders", headers=headers, extra_environ={"REMOTE_ADDR": "10.0.0.6"}, status=401)
    assert_error(res, 401, "rest_consumer_key_https_required")


def test_consumer_key_permissions(site):
    site.create_user("shop", "shop_manager")
    read_key = site.consumer_key("shop", "read")
    write_key = site.consumer_key("shop", "write")
    assert site.app.get("/api/store/v1/orders", headers=basic(*read_key)).json == []
    res = site.app.post_json("/api/store/v1/products", {"name": "X"}, headers=basic(*read_key), status=403)
    assert_error(res, 403, "rest_consumer_key_permissions")
    assert_error(site.app.get("/api/store/v1/orders", headers=basic(*write_key), status=403), 403,
                 "rest_consumer_key_permissions")
    site.app.post_json("/api/store/v1/products", {"name": "X"}, headers=basic(*write_key), status=201)


def test_cookie_login_and_nonce(site):
    site.create_user("carol", "administrator", password="correct horse")
    res = site.app.post_json("/api/store/v1/auth/login", {"login": "carol", "password": "correct horse"})
    nonce = res.json["nonce"]
    assert "storeplatform_session" in site.app.cookies
    # A cookie without a nonce is anonymous.
    assert_error(site.app.get(ME, status=401), 401, "rest_not_logged_in")
    assert site.app.get(ME, headers={"X-Nonce": nonce}).json["login"] == "carol"
    assert_error(site.app.get(ME, headers={"X-Nonce": "bad"}, status=403), 403, "rest_cookie_invalid_nonce")
    fresh = site.app.get("/api/store/v1/auth/nonce").json["nonce"]
    assert site.app.get(ME, headers={"X-Nonce": fresh}).json["login"] == "carol"
    site.app.post_json("/api/store/v1/auth/logout", {}, headers={"X-Nonce": nonce})
    assert "storeplatform_session" not in site.app.cookies
    assert_error(site.app.get(ME, headers={"X-Nonce": nonce}, status=401), 401, "rest_not_logged_in")


def test_cookie_session_cannot_be_reused_after_logout(site):
    site.create_user("carol", "administrator", password="pw")
    nonce = site.app.post_json("/api/store/v1/auth/login", {"login": "carol", "password": "pw"}).json["nonce"]
    cookie = site.app.cookies["storeplatform_session"]
    site.app.post_json("/api/store/v1/auth/logout", {}, headers={"X-Nonce": nonce})
    site.app.set_cookie("storeplatform_session", cookie)
    assert_error(site.app.get(ME, headers={"X-Nonce": nonce}, status=403), 403, "rest_cookie_invalid_nonce")


def test_wrong_login_is_401(site):
    site.create_user("carol", "administrator", password="pw")
    for body in ({"login": "carol", "password": "nope"}, {"login": "nobody", "password": "pw"}):
        assert_error(site.app.post_json("/api/store/v1/auth/login", body, status=401), 401, "rest_invalid_login")
    body = assert_error(site.app.post_json("/api/store/v1/auth/login", {}, status=400), 400, "rest_invalid_param")
    assert set(body["data"]["params"]) == {"login", "password"}


def test_jwt_bearer(site):
    site.create_user("dave", "shop_manager", password="pw")
    res = site.app.post_json("/api/store/v1/auth/token", {"login": "dave", "password": "pw"})
    assert res.json["token_type"] == "Bearer" and res.json["expires_in"] == 3600
    bearer = {"Authorization": "Bearer " + res.json["token"]}
    assert site.app.get(ME, headers=bearer).json["login"] == "dave"
    assert site.app.get("/api/store/v1/orders", headers=bearer).json == []
    tampered = res.json["token"][:-2] + ("AA" if not res.json["token"].endswith("AA") else "BB")
    assert_error(site.app.get(ME, headers={"Authorization": "Bearer " + tampered}, status=401), 401,
                 "rest_jwt_invalid")
    expired = jwt.encode({"sub": "1", "iat": 1, "exp": int(time.time()) - 10, "iss": "storeplatform"},
                         "a-guessed-key-that-is-long-enough-for-hs256", algorithm="HS256")
    assert_error(site.app.get(ME, headers={"Authorization": "Bearer " + expired}, status=401), 401,
                 "rest_jwt_invalid")


def test_jwt_for_an_already_authenticated_caller(site):
    token = site.app.post_json("/api/store/v1/auth/token", {}, headers=site.headers_for("editor")).json["token"]
    assert site.app.get(ME, headers={"Authorization": "Bearer " + token}).json["role"] == "editor"
    assert_error(site.app.post_json("/api/store/v1/auth/token", {}, status=401), 401, "rest_not_logged_in")


def test_user_passwords_use_a_password_hash(site):
    # Long enough that a random digest cannot contain it by chance (two letters could).
    password = "correct-horse-battery-staple"
    site.create_user("erin", "editor", password=password)
    from sqlalchemy import select

    from storeplatform.components.shop.models import User

    with site.session() as s:
        stored = s.execute(select(User.password_hash).where(User.login == "erin")).scalar_one()
    assert stored.startswith("scrypt$") and password not in stored


def test_plugin_capabilities_are_added_to_roles(make_site):
    site = make_site(**{"storeplatform.plugins": "thirdparty"})
    caps = site.app.get(ME, headers=site.headers_for("customer")).json["capabilities"]
    assert "thirdparty_read" in caps and "manage_shop" not in caps


ROLE_CAPS = {
    "administrator": {"manage_options", "manage_shop", "edit_posts"},
    "shop_manager": {"manage_shop", "edit_posts", "edit_others_posts"},
    "editor": {"edit_posts", "edit_others_posts", "delete_others_posts"},
    "author": {"edit_posts", "publish_posts"},
    "contributor": {"edit_posts"},
    "subscriber": {"read"},
    "customer": {"read"},
}


@pytest.mark.parametrize("role", sorted(ROLE_CAPS))
def test_roles_have_their_capabilities(site, role):
    caps = set(site.app.get(ME, headers=site.headers_for(role)).json["capabilities"])
    assert ROLE_CAPS[role] <= caps
    assert ("manage_options" in caps) == (role == "administrator")
    assert ("manage_shop" in caps) == (role in ("administrator", "shop_manager"))


class FakePost:
    def __init__(self, author_id, status):
        self.author_id, self.status, self.trashed_status = author_id, status, None


@pytest.mark.parametrize("role,own,status,cap,allowed", [
    ("contributor", True, "draft", "edit_post", True),
    ("contributor", True, "publish", "edit_post", False),
    ("contributor", False, "draft", "edit_post", False),
    ("author", True, "publish", "edit_post", True),
    ("author", False, "publish", "edit_post", False),
    ("author", True, "publish", "delete_post", True),
    ("editor", False, "publish", "delete_post", True),
    ("editor", False, "private", "read_post", True),
    ("author", False, "private", "read_post", False),
    ("author", False, "draft", "read_post", False),
    ("author", True, "draft", "read_post", True),
    ("subscriber", False, "publish", "read_post", True),
    (None, False, "publish", "read_post", True),
    (None, False, "draft", "read_post", False),
    (None, False, "trash", "read_post", False),
    ("subscriber", False, "trash", "read_post", False),
    ("editor", False, "trash", "read_post", True),
])
def test_meta_capabilities(site, role, own, status, cap, allowed):
    from storeplatform.core.auth import user_can
    from storeplatform.core.auth.identity import Identity

    class U:
        id = 7

    U.role = role
    request = site.blank_request("/")
    identity = Identity(U(), "test") if role else None
    type(request).identity = property(lambda self: identity)
    try:
        post = FakePost(7 if own else 8, status)
        post.trashed_status = "publish" if status == "trash" else None
        assert user_can(request, cap, post) is allowed
    finally:
        del type(request).identity
