"""The admin framework through its pages (WebTest): login and logout with the cookie session,
the capability gate, the form token on every unsafe method, the error pages, and a plugin's
page declared through the plugin API."""
from sqlalchemy import func, select

from storeplatform.components.shop.models import AuthSession
from storeplatform.testing import assert_error

from .helpers import PASSWORD, assert_page, login, token
from .notes_plugin import NotesPlugin


def notes_site(make_site):
    return make_site(plugins=[NotesPlugin()])


def sessions(site):
    with site.session() as s:
        return s.execute(select(func.count()).select_from(AuthSession)).scalar()


def timezone(site):
    return site.app.get("/api/store/v1/settings/general", headers=site.headers_for("administrator")).json


def stored_timezone(site):
    rows = site.app.get("/api/store/v1/settings", headers=site.headers_for("administrator")).json
    return next(o["value"] for section in rows["sections"].values() for o in section if o["id"] == "site.timezone")


def test_anonymous_pages_redirect_to_the_login_page(make_site):
    site = notes_site(make_site)
    res = site.app.get("/admin/notes", status=303)
    assert res.location == "http://localhost/admin/login?next=/admin/notes"
    assert site.app.get("/admin", status=303).location == "http://localhost/admin/"
    assert site.app.get("/admin/", status=303).location == "http://localhost/admin/login?next=/admin/"
    page = assert_page(site.app.get("/admin/login"), 200, "Log in")
    assert page.forms["login-form"].action == "http://localhost/admin/login"


def test_login_dashboard_and_logout(make_site):
    site = notes_site(make_site)
    res = login(site, "boss", "administrator")
    assert res.location == "http://localhost/admin/"
    assert "storeplatform_session=" in res.headers["Set-Cookie"] and "HttpOnly" in res.headers["Set-Cookie"]
    dashboard = assert_page(res.follow(), 200, "Dashboard")
    # The navigation: the pages the user may see, in their order.
    assert dashboard.text.index(">Notes</a>") < dashboard.text.index(">Vault</a>")
    assert sessions(site) == 1
    # Logging out takes the form token; the session row goes.
    assert_page(site.app.post("/admin/logout", status=403), 403, "did not come from this site")
    res = site.app.post("/admin/logout", {"csrf_token": token(dashboard)}, status=303)
    assert res.location == "http://localhost/admin/login"
    assert sessions(site) == 0
    assert site.app.get("/admin/", status=303).location.startswith("http://localhost/admin/login")


def test_login_goes_back_to_the_page_asked_for_and_never_to_another_site(make_site):
    site = notes_site(make_site)
    site.create_user("boss", "administrator", password=PASSWORD)
    for next_path, landing in (("/admin/notes", "http://localhost/admin/notes"),
                               ("https://evil.example/", "http://localhost/admin/"),
                               ("//evil.example/admin/", "http://localhost/admin/"),
                               ("/admin//evil.example", "http://localhost/admin/"),
                               ("/admin/notes\x00", "http://localhost/admin/"),
                               ("/admin/login", "http://localhost/admin/"),
                               ("/api/store/v1/users/me", "http://localhost/admin/")):
        page = site.app.get("/admin/login", params={"next": next_path})
        form = page.forms["login-form"]
        form["login"], form["password"] = "boss", PASSWORD
        assert form.submit(status=303).location == landing, next_path
        site.app.reset()


def test_a_wrong_password_shows_the_form_again_and_starts_no_session(make_site):
    site = notes_site(make_site)
    site.create_user("boss", "administrator", password=PASSWORD)
    res = login(site, "boss", password="wrong", status=400)
    assert_page(res, 400, "Unknown login or wrong password.")
    assert 'value="boss"' in res.text and "wrong" not in res.text.replace("wrong password", "")
    assert login(site, "nobody", password="x", status=400).status_int == 400
    assert sessions(site) == 0
    # Empty and huge fields are the same refusal, not an error.
    page = site.app.get("/admin/login")
    form = page.forms["login-form"]
    form["login"], form["password"] = "x" * 5000, "y" * 100_000
    assert_page(form.submit(status=400), 400, "Unknown login or wrong password.")


def test_the_login_form_needs_its_token(make_site):
    site = notes_site(make_site)
    site.create_user("boss", "administrator", password=PASSWORD)
    # No token, a token without its cookie, another cookie's token: all refused.
    assert_page(site.app.post("/admin/login", {"login": "boss", "password": PASSWORD}, status=403), 403,
                "did not come from this site")
    page = site.app.get("/admin/login")
    good = page.forms["login-form"]["csrf_token"].value
    site.app.reset()
    site.app.post("/admin/login", {"login": "boss", "password": PASSWORD, "csrf_token": good}, status=403)
    site.app.get("/admin/login")
    site.app.post("/admin/login", {"login": "boss", "password": PASSWORD, "csrf_token": good}, status=403)
    assert sessions(site) == 0


def test_capabilities_gate_each_page(make_site):
    site = notes_site(make_site)
    login(site, "manager", "shop_manager")
    dashboard = assert_page(site.app.get("/admin/"), 200)
    assert ">Notes</a>" in dashboard.text and ">Vault</a>" not in dashboard.text
    assert_page(site.app.get("/admin/notes"), 200, "Notes")
    assert_page(site.app.get("/admin/vault", status=403), 403, "may not use this page")
    site.app.reset()
    # A customer may log in but has no page: the dashboard itself is a 403 page.
    login(site, "client", "customer")
    assert_page(site.app.get("/admin/", status=403), 403, "may not use the admin")
    assert_page(site.app.get("/admin/notes", status=403), 403)


def test_unsafe_methods_need_the_form_token_and_nothing_is_half_saved(make_site):
    site = notes_site(make_site)
    page = login(site, "boss", "administrator").follow()
    good = token(page)
    before = stored_timezone(site)
    for bad in ({}, {"csrf_token": ""}, {"csrf_token": "0" * 20}, {"csrf_token": good[:-1]}):
        res = site.app.post("/admin/notes", {"timezone": "Europe/Vienna", "second": "ok", **bad}, status=403)
        assert_page(res, 403, "did not come from this site")
    assert stored_timezone(site) == before
    # A valid first field with a bad second one: the form again, both values kept, nothing stored.
    res = site.app.post("/admin/notes", {"timezone": "Europe/Vienna", "second": "no", "csrf_token": good}, status=400)
    assert_page(res, 400, '<p class="field-error" id="error-second">must be ok</p>')
    assert 'value="Europe/Vienna"' in res.text and "error-timezone" not in res.text
    assert stored_timezone(site) == before
    # The header works as well as the field (scripts of a page send it).
    res = site.app.post("/admin/notes", {"timezone": "Europe/Vienna", "second": "ok"},
                        headers={"X-CSRF-Token": good}, status=303)
    assert res.location == "http://localhost/admin/notes"
    assert stored_timezone(site) == "Europe/Vienna"
    # The notice is shown once.
    assert_page(res.follow(), 200, "Saved.")
    assert "Saved." not in site.app.get("/admin/notes").text


def test_the_form_token_is_the_rest_nonce_of_the_session(make_site):
    site = notes_site(make_site)
    page = login(site, "boss", "administrator").follow()
    me = site.app.get("/api/store/v1/users/me", headers={"X-Nonce": token(page)}).json
    assert me["login"] == "boss"
    assert_error(site.app.get("/api/store/v1/users/me", headers={"X-Nonce": "0" * 20}, status=403), 403,
                 "rest_cookie_invalid_nonce")


def test_admin_pages_know_only_the_cookie_session(make_site):
    site = notes_site(make_site)
    # Basic credentials that the REST API accepts do not log anyone into the admin.
    headers = site.headers_for("administrator")
    assert site.app.get("/api/store/v1/users/me", headers=headers).json["role"] == "administrator"
    assert site.app.get("/admin/notes", headers=headers, status=303).location.startswith("http://localhost/admin/login")
    res = site.app.post("/admin/notes", {"timezone": "Europe/Vienna", "second": "ok"}, headers=headers, status=303)
    assert res.location.startswith("http://localhost/admin/login")
    # A session cookie that names no session is nobody.
    site.app.set_cookie("storeplatform_session", "x" * 43)
    assert site.app.get("/admin/", status=303).location.startswith("http://localhost/admin/login")


def test_error_pages_are_html_under_admin_and_json_elsewhere(make_site):
    site = notes_site(make_site)
    assert_page(site.app.get("/admin/nothing/here", status=404), 404, "There is no such page here.")
    assert_error(site.app.get("/api/nothing", status=404), 404, "rest_no_route")
    res = assert_page(site.app.put("/admin/login", status=405), 405)
    assert "GET" in res.headers["Allow"] and "POST" in res.headers["Allow"]
    assert_page(site.app.get("/admin/%ff%fe", status=400), 400, "not valid UTF-8")
    login(site, "boss", "administrator")
    assert_page(site.app.get("/admin/notes/99999999999999999999", status=500), 500, "the error was logged")
    assert_page(site.app.get("/admin/notes/abc", status=404), 404)


def test_bad_form_bodies_are_refused_whole(make_site):
    site = notes_site(make_site)
    page = login(site, "boss", "administrator").follow()
    before = stored_timezone(site)
    good = token(page)
    for body in (b"timezone=Europe%2FVienna&second=ok&csrf_token=" + good.encode() + b"&x=%ff%fe",
                 b"timezone=Europe%2FVi%00enna&second=ok&csrf_token=" + good.encode()):
        res = site.app.post("/admin/notes", body, content_type="application/x-www-form-urlencoded", status=400)
        assert_page(res, 400)
    huge = {"timezone": "9" * 200_000, "second": "ok", "csrf_token": good}
    assert_page(site.app.post("/admin/notes", huge, status=400), 400, "longer than")
    assert stored_timezone(site) == before


def test_static_files_are_served_by_the_app(make_site):
    site = notes_site(make_site)
    css = site.app.get("/admin/static/admin/admin.css")
    assert css.content_type == "text/css" and ".bar" in css.text
    page = site.app.get("/admin/login")
    assert 'href="http://localhost/admin/static/admin/admin.css"' in page.text


def test_a_site_behind_a_base_path_keeps_it_in_every_link(make_site):
    site = notes_site(make_site)
    site.create_user("boss", "administrator", password=PASSWORD)
    env = {"SCRIPT_NAME": "/shop"}
    res = site.app.get("/admin/notes", params={"a": "1 2"}, extra_environ=env, status=303)
    assert res.location == "http://localhost/shop/admin/login?next=/admin/notes%3Fa%3D1%2B2"
    page = site.app.get("/admin/login", params={"next": "/admin/notes?a=1+2"}, extra_environ=env)
    assert 'action="http://localhost/shop/admin/login"' in page.text
    form = page.forms["login-form"]
    form["login"], form["password"] = "boss", PASSWORD
    assert form.submit(extra_environ=env, status=303).location == "http://localhost/shop/admin/notes?a=1+2"
