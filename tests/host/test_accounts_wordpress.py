"""store/v1 users as a client written for WordPress's ``wp/v2/users`` uses them (#43): the list's
parameters (include, exclude, orderby, order, slug, roles, who, context, _fields) and an unknown
one refused naming it; POST, PUT and PATCH on a user and on ``me``; the profile fields;
application passwords with uuid, app_id, last_used and last_ip (recorded at most once a day),
read, renamed and revoked one by one or all at once; logins and e-mail addresses unique in any
case; logging in with the e-mail address. The WordPress client library itself is in
test_accounts_wordpress_client.py."""
import base64
from datetime import timedelta

import pytest
from sqlalchemy import event, select, update

from storeplatform.components.shop import credentials
from storeplatform.components.shop.models import AppPassword, User
from storeplatform.core.db.types import utcnow
from storeplatform.testing import admin_login, assert_error

API = "/api/store/v1"
USERS = f"{API}/users"
ME = f"{USERS}/me"
VIEW = {"id", "name", "url", "description", "link", "slug", "avatar_urls", "meta", "_links"}


def basic(login, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()}


def logins(res):
    return [u["login"] for u in res.json]


@pytest.fixture
def people(site):
    """An administrator's headers and five users made in this order: ann (editor), bob
    (customer), cid (author), dee (customer), eve (shop_manager)."""
    admin = site.headers_for("administrator")
    ids = {}
    for login, role, name in (("ann", "editor", "Zoe Ann"), ("bob", "customer", "Bob"), ("cid", "author", "Al Cid"),
                              ("dee", "customer", "Dee"), ("eve", "shop_manager", "Eve")):
        ids[login] = site.app.post_json(USERS, {"username": login, "email": f"{login}@example.com", "name": name,
                                                "roles": [role]}, headers=admin, status=201).json["id"]
    return admin, ids


# --- the list ----------------------------------------------------------------------------------

def test_include_exclude_slug_roles_and_who_filter_the_list(site, people):
    admin, ids = people
    get = lambda **params: site.app.get(USERS, params=params, headers=admin)  # noqa: E731
    res = get(include=f"{ids['bob']},{ids['dee']}")
    assert logins(res) == ["dee", "bob"] and res.headers["X-Total"] == "2"
    assert logins(site.app.get(f"{USERS}?include[]={ids['bob']}&include[]={ids['ann']}", headers=admin)) == ["bob", "ann"]
    assert "bob" not in logins(get(exclude=str(ids["bob"]), per_page=100))
    assert logins(get(slug="ANN,eve")) == ["eve", "ann"]  # a slug is the login lower-cased
    assert logins(get(roles="customer,author")) == ["dee", "cid", "bob"]
    # who=authors: the roles that may write posts (no customer, shop managers included)
    assert set(logins(get(who="authors", per_page=100))) == {"administrator", "ann", "cid", "eve"}
    # a role nobody has, or no role at all, matches nobody (as WordPress's roles); role= refuses it
    assert logins(get(roles="customer,emperor")) == ["dee", "bob"] and get(roles="emperor").json == []
    assert_error(site.app.get(USERS, params={"role": "emperor"}, headers=admin, status=400), 400, "rest_invalid_param")


def test_orderby_and_order(site, people):
    admin, ids = people
    get = lambda **params: logins(site.app.get(USERS, params={"per_page": 100, **params}, headers=admin))  # noqa: E731
    assert get() == ["eve", "dee", "cid", "bob", "ann", "administrator"]  # newest first, as before
    assert get(order="asc") == ["administrator", "ann", "bob", "cid", "dee", "eve"]
    assert get(orderby="name")[:3] == ["administrator", "cid", "bob"]  # Administrator, Al Cid, Bob (asc)
    assert get(orderby="slug", order="desc")[:2] == ["eve", "dee"]
    assert get(orderby="registered_date") == ["administrator", "ann", "bob", "cid", "dee", "eve"]
    include = f"{ids['dee']},{ids['ann']},{ids['eve']}"
    assert get(orderby="include", include=include) == ["dee", "ann", "eve"]
    assert get(orderby="include", include=include, order="desc") == ["eve", "ann", "dee"]
    # the order holds across pages (a page past the middle is read from the far end)
    pages = [logins(site.app.get(USERS, params={"orderby": "name", "per_page": 2, "page": p}, headers=admin))
             for p in (1, 2, 3)]
    assert sum(pages, []) == get(orderby="name")
    body = assert_error(site.app.get(USERS, params={"orderby": "include"}, headers=admin, status=400), 400,
                        "rest_invalid_param")
    assert set(body["data"]["params"]) == {"orderby"}
    assert set(assert_error(site.app.get(USERS, params={"orderby": "email", "order": "up"}, headers=admin,
                                         status=400), 400, "rest_invalid_param")["data"]["params"]) == {"orderby", "order"}


def test_an_unknown_or_misspelt_parameter_is_refused_naming_it(site, people):
    admin, ids = people
    body = assert_error(site.app.get(USERS, params={"inlcude": "1", "colour": "red", "per_page": 0}, headers=admin,
                                     status=400), 400, "rest_invalid_param")
    assert body["data"]["params"]["inlcude"] == "unknown parameter (did you mean include?)"
    assert body["data"]["params"]["colour"] == "unknown parameter"
    assert set(body["data"]["params"]) == {"inlcude", "colour", "per_page"}  # every bad one at once
    for path in (f"{USERS}/{ids['ann']}", ME, f"{USERS}/{ids['ann']}/app-passwords", f"{ME}/application-passwords"):
        assert set(assert_error(site.app.get(path, params={"contxt": "edit"}, headers=admin, status=400), 400,
                                "rest_invalid_param")["data"]["params"]) == {"contxt"}, path
    # a body's misspelt field too; the read-only fields a client sends back are ignored, as WordPress does
    body = assert_error(site.app.patch_json(f"{USERS}/{ids['ann']}", {"emial": "x@example.com"}, headers=admin,
                                            status=400), 400, "rest_invalid_param")
    assert body["data"]["params"] == {"emial": "unknown parameter (did you mean email?)"}
    user = site.app.get(f"{USERS}/{ids['ann']}", headers=admin).json
    user["nickname"] = "annie"
    assert site.app.put_json(f"{USERS}/{ids['ann']}", user, headers=admin).json["nickname"] == "annie"
    # WordPress's _embed is taken (a user has nothing to embed)
    assert site.app.get(USERS, params={"_embed": "1"}, headers=admin).status_int == 200


def test_context_and_fields_shape_the_answer(site, people):
    admin, ids = people
    view = site.app.get(f"{USERS}/{ids['ann']}", params={"context": "view"}, headers=admin).json
    assert set(view) == VIEW and view["slug"] == "ann" and "email" not in view
    assert set(view["avatar_urls"]) == {"24", "48", "96"} and view["avatar_urls"]["96"].startswith("https://")
    embed = site.app.get(USERS, params={"context": "embed", "include": ids["ann"]}, headers=admin).json[0]
    assert set(embed) == VIEW - {"meta"}
    edit = site.app.get(f"{USERS}/{ids['ann']}", headers=admin).json  # edit: the default here
    assert edit["username"] == edit["login"] == "ann" and edit["roles"] == ["editor"] and edit["email"]
    assert edit["registered_date"] == edit["date_created"] and edit["locale"] == "en_US"
    assert site.app.get(USERS, params={"_fields": "id,email", "include": ids["bob"]}, headers=admin).json == [
        {"id": ids["bob"], "email": "bob@example.com"}]
    assert set(assert_error(site.app.get(USERS, params={"context": "full"}, headers=admin, status=400), 400,
                            "rest_invalid_param")["data"]["params"]) == {"context"}


# --- create and change -------------------------------------------------------------------------

PROFILE = {"first_name": "Ann", "last_name": "Lee", "nickname": "annie", "url": "https://ann.example.com/",
           "description": "Two lines\nof bio.", "locale": "de_DE"}


def test_a_user_is_created_and_changed_with_put_patch_and_post(site):
    admin = site.headers_for("administrator")
    res = site.app.post_json(USERS, {"username": "ann", "email": "ann@example.com", "password": "pw-ann-1",
                                     "roles": ["editor"], **PROFILE}, headers=admin, status=201)
    uid = res.json["id"]
    assert res.headers["Location"].endswith(f"/users/{uid}")
    assert {key: res.json[key] for key in PROFILE} == PROFILE and res.json["role"] == "editor"
    assert site.app.get(res.headers["Location"], headers=admin).json["first_name"] == "Ann"
    for method, change in (("patch_json", {"first_name": "Anne"}), ("post_json", {"last_name": "Li"}),
                           ("put_json", {"url": "", "locale": ""})):
        getattr(site.app, method)(f"{USERS}/{uid}", change, headers=admin)
    user = site.app.get(f"{USERS}/{uid}", headers=admin).json
    assert (user["first_name"], user["last_name"], user["url"], user["locale"]) == ("Anne", "Li", "", "en_US")
    assert user["nickname"] == "annie"  # what PATCH did not send stays
    body = assert_error(site.app.patch_json(f"{USERS}/{uid}", {"url": "javascript:alert(1)", "locale": "german",
                                                               "first_name": "x" * 251, "roles": ["editor", "author"]},
                                            headers=admin, status=400), 400, "rest_invalid_param")
    assert set(body["data"]["params"]) == {"url", "locale", "first_name", "roles"}
    body = assert_error(site.app.post_json(USERS, {"email": "no-login@example.com"}, headers=admin, status=400), 400,
                        "rest_invalid_param")
    assert set(body["data"]["params"]) == {"username"}


def test_users_me_is_writable(site):
    site.create_user("ann", "editor", password="pw-ann-1")
    ann = site.headers_for("ann")
    assert site.app.patch_json(ME, {"nickname": "annie", "description": "me"}, headers=ann).json["nickname"] == "annie"
    assert site.app.post_json(ME, {"first_name": "Ann"}, headers=ann).json["first_name"] == "Ann"
    me = site.app.get(ME, headers=ann).json
    assert (me["nickname"], me["description"], me["first_name"]) == ("annie", "me", "Ann")
    assert site.app.get(ME, params={"context": "view"}, headers=ann).json.keys() == VIEW
    # one's own role stays the rules' (never through REST), one's password needs the current one
    assert_error(site.app.put_json(ME, {"roles": ["administrator"]}, headers=ann, status=403), 403,
                 "rest_cannot_edit_roles")
    assert_error(site.app.patch_json(ME, {"password": "new-pw-1"}, headers=ann, status=400), 400, "rest_invalid_param")
    assert site.app.delete(ME, headers=ann, status=403).json["data"]["status"] == 403


# --- unique logins and e-mail addresses --------------------------------------------------------

def test_email_addresses_are_unique_in_any_case(site):
    admin = site.headers_for("administrator")
    site.app.post_json(USERS, {"username": "ann", "email": "Ann@Example.com"}, headers=admin, status=201)
    body = assert_error(site.app.post_json(USERS, {"username": "ann2", "email": "ANN@example.COM"}, headers=admin,
                                           status=400), 400, "existing_user_email")
    assert set(body["data"]["params"]) == {"email"}
    bob = site.app.post_json(USERS, {"username": "bob", "email": "bob@example.com"}, headers=admin).json["id"]
    assert_error(site.app.patch_json(f"{USERS}/{bob}", {"email": "ann@example.com"}, headers=admin, status=400), 400,
                 "existing_user_email")
    # one's own address in another case is one's own; no address is no one's
    assert site.app.patch_json(f"{USERS}/{bob}", {"email": "BOB@example.com"}, headers=admin).json["email"] == \
        "BOB@example.com"
    for login in ("c1", "c2"):
        site.app.post_json(USERS, {"username": login}, headers=admin, status=201)
    # both taken: the login is named first, as WordPress checks it first
    body = assert_error(site.app.post_json(USERS, {"username": "ANN", "email": "bob@EXAMPLE.com"}, headers=admin,
                                           status=400), 400, "existing_user_login")
    assert set(body["data"]["params"]) == {"login", "email"}


def test_logins_are_unique_in_any_case_on_every_front_end(cli):
    site = cli.site
    cli("user", "create", "x_editor", "--role", "editor")
    res = cli("user", "create", "X_EDITOR", "--role", "editor", ok=False)
    assert res.returncode == 1 and "already exists" in res.stderr
    res = cli("user", "create", "other", "--role", "editor", "--email", "x@example.com")
    assert cli("user", "create", "other2", "--role", "editor", "--email", "X@EXAMPLE.COM", ok=False).returncode == 1
    assert_error(site.app.post_json(USERS, {"username": "X_Editor"}, headers=site.headers_for("administrator"),
                                    status=400), 400, "existing_user_login")


def test_the_database_refuses_a_duplicate_the_checks_did_not_see(site):
    """Two requests at once each check before the other commits: the unique index decides."""
    with site.session() as s:
        s.add(User(login="ann", role="customer", email="ann@example.com", display_name="ann"))
    with pytest.raises(Exception) as caught:
        with site.session() as s:
            s.add(User(login="ANN", role="customer", email="other@example.com", display_name="ann"))
    assert "ux_users_login_lower" in str(caught.value) or "UNIQUE" in str(caught.value).upper()
    with pytest.raises(Exception):
        with site.session() as s:
            s.add(User(login="ann2", role="customer", email="ANN@EXAMPLE.COM", display_name="ann"))
    with site.session() as s:  # empty addresses are many
        s.add_all([User(login=f"n{i}", role="customer", email="", display_name="n") for i in range(3)])


# --- logging in with the e-mail address --------------------------------------------------------

def test_logging_in_with_the_email_address_or_the_login_in_any_case(site):
    site.create_user("ann", "shop_manager", password="pw-ann-1", email="Ann@Example.com")
    for name in ("ann", "ANN", "ann@example.com", "ANN@EXAMPLE.COM"):
        res = site.app.post_json(f"{API}/auth/token", {"login": name, "password": "pw-ann-1"})
        assert res.json["token_type"] == "Bearer", name
    assert_error(site.app.post_json(f"{API}/auth/token", {"login": "ann@example.com", "password": "wrong"},
                                    status=401), 401, "rest_invalid_login")
    res = site.app.post_json(f"{API}/auth/login", {"login": "ann@example.com", "password": "pw-ann-1"})
    assert res.json["user"]["login"] == "ann"
    # an application password with the address, as WordPress takes it
    password = site.app.post_json(f"{ME}/app-passwords", {"name": "cli"}, headers=site.headers_for("ann")).json[
        "password"]
    assert site.app.get(ME, headers=basic("ANN@example.com", password)).json["login"] == "ann"
    assert_error(site.app.get(ME, headers=basic("bob@example.com", password), status=401), 401,
                 "rest_authentication_failed")
    # the admin's login page
    site.app.reset()
    admin_login(site, "ann@example.com", password="pw-ann-1")


# --- application passwords ---------------------------------------------------------------------

APP_ID = "6a3f2c4e-1b2d-4c5e-8f90-123456789abc"


def test_an_application_password_is_read_renamed_and_revoked(site):
    site.create_user("ann", "editor", password="pw")
    ann = site.headers_for("ann")
    uid = site.app.get(ME, headers=ann).json["id"]
    res = site.app.post_json(f"{USERS}/{uid}/application-passwords", {"name": "Phone", "app_id": APP_ID}, headers=ann,
                             status=201)
    created = res.json
    assert created["app_id"] == APP_ID and len(created["uuid"]) == 36 and created["last_used"] is None
    assert created["last_ip"] is None and created["created"] and len(created["password"].split()) == 6
    # the Location of the 201 answers GET (WordPress's path: by uuid; this API's: by id)
    one = site.app.get(res.headers["Location"], headers=ann).json
    assert res.headers["Location"].endswith(f"/application-passwords/{created['uuid']}")
    assert one == {key: value for key, value in created.items() if key != "password"}
    assert site.app.get(f"{USERS}/{uid}/app-passwords/{created['id']}", headers=ann).json["uuid"] == created["uuid"]
    for method, name in (("put_json", "Phone 2"), ("patch_json", "Phone 3"), ("post_json", "Tablet")):
        assert getattr(site.app, method)(f"{ME}/application-passwords/{created['uuid']}", {"name": name},
                                         headers=ann).json["name"] == name
    assert_error(site.app.patch_json(f"{ME}/app-passwords/{created['id']}", {"name": ""}, headers=ann, status=400),
                 400, "rest_invalid_param")
    assert_error(site.app.get(f"{ME}/application-passwords/{APP_ID}", headers=ann, status=404), 404,
                 "rest_application_password_not_found")
    assert_error(site.app.post_json(f"{ME}/app-passwords", {"name": "x", "app_id": "not-a-uuid"}, headers=ann,
                                    status=400), 400, "rest_invalid_param")
    site.app.post_json(f"{ME}/app-passwords", {"name": "Laptop"}, headers=ann, status=201)
    previous = site.app.delete(f"{ME}/application-passwords/{created['uuid']}", headers=ann).json
    assert previous["deleted"] is True and previous["previous"]["name"] == "Tablet"
    # every one at once (the one this request came with too)
    assert site.app.delete(f"{USERS}/{uid}/application-passwords", headers=ann).json == {"deleted": True, "count": 2}
    assert_error(site.app.get(ME, headers=ann, status=401), 401, "rest_authentication_failed")


def test_introspect_answers_the_password_of_the_request(site):
    site.create_user("ann", "editor", password="pw-ann-1")
    ann = site.headers_for("ann")
    uid = site.app.get(ME, headers=ann).json["id"]
    mine = site.app.get(f"{ME}/application-passwords/introspect", headers=ann).json
    assert mine["name"] == "test" and mine == site.app.get(f"{USERS}/{uid}/application-passwords/introspect",
                                                           headers=ann).json
    token = site.app.post_json(f"{API}/auth/token", {"login": "ann", "password": "pw-ann-1"}).json["token"]
    assert_error(site.app.get(f"{ME}/application-passwords/introspect", headers={"Authorization": "Bearer " + token},
                              status=404), 404, "rest_no_authenticated_app_password")
    admin = site.headers_for("administrator")
    assert_error(site.app.get(f"{USERS}/{uid}/application-passwords/introspect", headers=admin, status=403), 403,
                 "rest_cannot_introspect_app_password_for_non_authenticated_user")


def test_last_used_is_recorded_at_most_once_a_day(site):
    site.create_user("ann", "editor", password="pw")
    ann = site.headers_for("ann")
    writes = []

    def count(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("UPDATE APP_PASSWORDS") and "IS NULL OR" in statement:
            writes.append(statement)

    event.listen(site.engine, "before_cursor_execute", count)
    try:
        for _ in range(5):
            site.app.get(ME, headers=ann)
        assert len(writes) == 1  # the first use; the next four write nothing
        row = site.app.get(f"{ME}/app-passwords", headers=ann).json[0]
        assert row["last_used"] is not None and row["last_ip"] == "127.0.0.1"
        # a day later (the process forgot it too: a new process)
        with site.session() as s:
            s.execute(update(AppPassword).values(last_used_at=utcnow() - timedelta(days=2), last_ip="10.0.0.1"))
        credentials._USES.clear()
        site.app.get(ME, headers=ann)
        assert len(writes) == 2
        row = site.app.get(f"{ME}/app-passwords", headers=ann).json[0]
        assert row["last_ip"] == "127.0.0.1"
        # another process that did not know: one conditional statement that changes nothing
        credentials._USES.clear()
        with site.session() as s:
            s.execute(update(AppPassword).values(last_ip="10.0.0.9"))
        site.app.get(ME, headers=ann)
        assert site.app.get(f"{ME}/app-passwords", headers=ann).json[0]["last_ip"] == "10.0.0.9"
    finally:
        event.remove(site.engine, "before_cursor_execute", count)


def test_the_admins_last_used_column_tells_the_truth(site):
    site.create_user("boss", "administrator", password="pw-boss-1")
    site.create_user("ann", "editor")
    site.app.get(ME, headers=site.headers_for("ann"))
    with site.session() as s:
        ann = s.execute(select(User.id).where(User.login == "ann")).scalar_one()
    admin_login(site, "boss", password="pw-boss-1")
    page = site.app.get(f"/admin/users/{ann}").text
    used = page.split('data-label="Last used"')[1].split("</td>")[0]
    assert "never" not in used and utcnow().strftime("%Y-%m-%d") in used
