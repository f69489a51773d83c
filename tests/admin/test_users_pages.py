"""The admin's Users pages (WebTest): the list with search, role and paging; a user's page
(profile, password, role, disabling, sessions, application passwords); a new user; deleting one.
They change users through ``storeplatform.components.shop.accounts``, as REST and the CLI do: the same errors,
beside the fields, and nothing half-saved; what they end is ended at the very next request."""
import base64

from sqlalchemy import func, select

from storeplatform.components.shop.models import AppPassword, AuthSession, Post, User

from .helpers import PASSWORD, assert_page, login, token


def user_id(site, login_name):
    with site.session() as s:
        return s.execute(select(User.id).where(User.login == login_name)).scalar_one()


def row(site, login_name):
    with site.session() as s:
        user = s.execute(select(User).where(User.login == login_name)).scalar_one()
        s.expunge(user)
        return user


def row_or_none(site, login_name):
    with site.session() as s:
        return s.execute(select(User.id).where(User.login == login_name)).scalar_one_or_none()


def post(page, path, **fields):
    """POST a form of ``page`` by hand (a button the page does not show, forged values)."""
    return page.test_app.post(path, {"csrf_token": token(page), **fields}, expect_errors=True)


def test_the_list_searches_filters_by_role_and_pages(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    for i in range(55):
        site.create_user(f"cust{i:02d}", "customer", email=f"c{i}@shop.example")
    site.create_user("ed", "editor", email="editor@news.example")
    page = assert_page(site.app.get("/admin/users"), 200, "Users")
    assert page.html.select_one("#users-total").text.strip() == "57 users."
    assert len(page.html.select("#users tbody tr")) == 50
    second = assert_page(page.click("Next"), 200, "Users")
    assert len(second.html.select("#users tbody tr")) == 7
    assert "Page 2 of 2" in second.text
    found = site.app.get("/admin/users", {"search": "NEWS.example"})
    assert [a.text for a in found.html.select("#users tbody td[data-label=Login] a")] == ["ed"]
    editors = site.app.get("/admin/users", {"role": "editor"})
    assert [a.text for a in editors.html.select("#users tbody td[data-label=Login] a")] == ["ed"]
    # Nonsense in the query is ignored, never a 500.
    assert_page(site.app.get("/admin/users", {"page": "99999999999", "role": "nope", "search": "%_\\"}), 200, "Users")


def test_only_who_may_list_users_sees_the_list(make_site):
    site = make_site()
    login(site, "writer", role="author")
    assert_page(site.app.get("/admin/users", status=403), 403)
    nav = site.app.get("/admin/").html.select(".menu nav a")
    assert [a.text for a in nav] == ["Your profile"]
    # Their own page, through "Your profile"; nobody else's.
    own = site.app.get("/admin/profile", status=303).follow()
    assert_page(own, 200, "Your profile")
    other = site.create_user("someone", "customer")
    assert_page(site.app.get(f"/admin/users/{other}", status=404), 404)


def test_an_administrator_edits_a_user_and_a_new_password_ends_their_sessions(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    ann = site.create_user("ann", "shop_manager", password=PASSWORD)
    # Ann's own logins: a cookie session and a JWT.
    other = make_site()
    assert login(other, "ann").status_int == 303
    jwt = site.app.post_json("/api/store/v1/auth/token", {"login": "ann", "password": PASSWORD}).json["token"]
    bearer = {"Authorization": f"Bearer {jwt}"}
    assert site.app.get("/api/store/v1/users/me", headers=bearer).json["login"] == "ann"

    page = site.app.get(f"/admin/users/{ann}")
    form = page.forms["user-form"]
    form["name"], form["email"], form["password"] = "Ann Lee", "ann@shop.example", "a new password 1"
    saved = form.submit(status=303)
    assert "Every session and token issued before has ended." in saved.follow().html.select_one(".notice").text
    stored = row(site, "ann")
    assert (stored.display_name, stored.email) == ("Ann Lee", "ann@shop.example")
    # At the very next request: the old JWT and the old admin cookie are refused.
    assert site.app.get("/api/store/v1/users/me", headers=bearer, status=401).json["code"] == "rest_jwt_invalid"
    assert other.app.get("/admin/", status=303).location.startswith("http://localhost/admin/login")
    with site.session() as s:
        assert s.execute(select(func.count()).select_from(AuthSession).where(AuthSession.user_id == ann)).scalar() == 0
    assert login(other, "ann", password="a new password 1").status_int == 303


def test_bad_fields_are_shown_beside_them_and_nothing_is_saved(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    ann = site.create_user("ann", "customer")
    page = site.app.get(f"/admin/users/{ann}")
    form = page.forms["user-form"]
    form["email"], form["name"] = "not an address", "Ann\x07"
    res = form.submit(status=400)
    assert res.html.select_one("#error-email").text.startswith("'not an address' is not an email address")
    assert "control characters" in res.html.select_one("#error-name").text
    assert res.forms["user-form"]["email"].value == "not an address"  # what was typed stays
    assert row(site, "ann").email == "ann@example.com"


def test_own_password_needs_the_current_one_and_own_role_cannot_change(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    me = user_id(site, "boss")
    page = site.app.get(f"/admin/users/{me}")
    assert "field-role" not in page.text  # never one's own role
    form = page.forms["user-form"]
    form["password"], form["current_password"] = "another password", "wrong"
    res = form.submit(status=400)
    assert res.html.select_one("#error-current_password").text == "is not your current password"
    form = res.forms["user-form"]
    form["password"], form["current_password"] = "another password", PASSWORD
    form.submit(status=303)
    # The session that changed it ended too (the password ends every session issued before).
    assert site.app.get("/admin/", status=303).location.startswith("http://localhost/admin/login")
    assert login(site, "boss", password="another password").status_int == 303
    # There is no button to disable oneself; a forged one is refused as a rule, above the
    # form, not a 500.
    page = site.app.get(f"/admin/users/{me}")
    assert "disable-form" not in page.forms
    res = post(page, f"/admin/users/{me}/disable")
    assert res.status_int == 403
    assert "your own" in res.html.select_one("#user-problem").text.lower()
    assert row(site, "boss").disabled is False


def test_roles_disable_enable_and_the_last_administrator(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    ann = site.create_user("ann", "customer", password=PASSWORD)
    page = site.app.get(f"/admin/users/{ann}")
    form = page.forms["user-form"]
    form["role"] = "shop_manager"
    form.submit(status=303)
    assert row(site, "ann").role == "shop_manager"

    auth = {"Authorization": "Basic " + base64.b64encode(f"ann:{site.app_password('ann')}".encode()).decode()}
    assert site.app.get("/api/store/v1/users/me", headers=auth).status_int == 200
    page = site.app.get(f"/admin/users/{ann}")
    page.forms["disable-form"].submit(status=303)
    assert row(site, "ann").disabled is True
    assert site.app.get("/api/store/v1/users/me", headers=auth, status=401)
    assert site.app.get(f"/admin/users/{ann}").html.select_one("#user-status").text == "disabled"
    site.app.get(f"/admin/users/{ann}").forms["enable-form"].submit(status=303)
    assert row(site, "ann").disabled is False
    # Enabling brings no revoked password back.
    assert site.app.get("/api/store/v1/users/me", headers=auth, status=401)

    # Another administrator demotes boss: boss's own session ends with the new role.
    other = make_site()
    site.create_user("second", "administrator", password=PASSWORD)
    login(other, "second")
    form = other.app.get(f"/admin/users/{user_id(site, 'boss')}").forms["user-form"]
    form["role"] = "editor"
    form.submit(status=303)
    assert row(site, "boss").role == "editor"
    assert site.app.get("/admin/", status=303).location.startswith("http://localhost/admin/login")


def test_application_passwords_are_shown_once_and_revoked_at_the_next_request(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    ann = site.create_user("ann", "shop_manager")
    page = site.app.get(f"/admin/users/{ann}")
    form = page.forms["app-password-form"]
    form["app_password_name"] = "accounting"
    shown = form.submit(status=200)
    assert shown.headers["Cache-Control"] == "no-store"
    password = shown.html.select_one("#new-app-password code").text
    assert len(password.replace(" ", "")) == 24
    auth = {"Authorization": "Basic " + base64.b64encode(f"ann:{password}".encode()).decode()}
    assert site.app.get("/api/store/v1/users/me", headers=auth).json["login"] == "ann"
    page = site.app.get(f"/admin/users/{ann}")
    assert password not in page.text  # shown once
    assert [td.text for td in page.html.select("#app-passwords td[data-label=Name]")] == ["accounting"]
    with site.session() as s:
        key_id = s.execute(select(AppPassword.id)).scalar_one()
    post(page, f"/admin/users/{ann}/app-passwords/{key_id}/revoke")
    assert site.app.get("/api/store/v1/users/me", headers=auth, status=401)
    # A blank name is refused beside its field.
    page = site.app.get(f"/admin/users/{ann}")
    res = page.forms["app-password-form"].submit(status=400)
    assert res.html.select_one("#error-app-password-name").text == "must not be empty"
    # Another user's password id is not this user's.
    res = post(page, f"/admin/users/{ann}/app-passwords/{key_id + 100}/revoke")
    assert res.status_int == 404


def test_end_sessions_logs_the_user_out_everywhere(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    ann = site.create_user("ann", "editor", password=PASSWORD)
    phone, laptop = make_site(), make_site()
    login(phone, "ann")
    login(laptop, "ann")
    page = site.app.get(f"/admin/users/{ann}")
    done = page.forms["end-sessions-form"].submit(status=303).follow()
    assert "(2 browser sessions)" in done.html.select_one(".notice").text
    for browser in (phone, laptop):
        assert browser.app.get("/admin/", status=303).location.startswith("http://localhost/admin/login")


def test_a_new_user_and_a_shop_manager_creates_customers_only(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    page = site.app.get("/admin/users/new")
    form = page.forms["user-new-form"]
    form["login"], form["email"], form["role"], form["password"] = "zoe", "zoe@x.example", "editor", "pw zoe 12345"
    done = form.submit(status=303).follow()
    assert_page(done, 200, "User zoe")
    assert row(site, "zoe").role == "editor"
    form = site.app.get("/admin/users/new").forms["user-new-form"]
    form["login"] = "zoe"
    res = form.submit(status=400)
    assert res.html.select_one("#error-login").text.startswith("Sorry, that username already exists!")  # #43

    # A shop manager creates customers only: the only role offered, and a forged one refused.
    manager = make_site()
    login(manager, "mgr", role="shop_manager")
    page = manager.app.get("/admin/users/new")
    assert [o.text for o in page.html.select("#field-role option")] == ["customer"]
    res = post(page, "/admin/users/new", login="sneaky", role="administrator", password="pw 123456789")
    assert res.status_int == 403
    assert res.html.select_one("#user-problem").text == "Sorry, you may create users with the role customer only."
    assert row_or_none(site, "sneaky") is None
    form = page.forms["user-new-form"]
    form["login"] = "buyer"
    form.submit(status=303)
    assert row(site, "buyer").role == "customer"
    # ... and edits customers only: an editor's page shows no form.
    assert "user-form" not in manager.app.get(f"/admin/users/{user_id(site, 'zoe')}").forms


def test_delete_gives_posts_to_another_user_and_keeps_orders(make_site):
    site = make_site()
    login(site, "boss", role="administrator")
    ann = site.create_user("ann", "author")
    ed = site.create_user("ed", "editor")
    with site.session() as s:
        s.add_all([Post(post_type="post", title="One", author_id=ann), Post(post_type="post", title="Two", author_id=ann)])
    page = site.app.get(f"/admin/users/{ann}/delete")
    assert_page(page, 200, "Delete user ann")
    form = page.forms["delete-form"]
    form["reassign"] = str(ed)
    done = form.submit(status=303).follow()
    assert "User ann deleted; 2 posts given to user ed, 0 orders kept as guest orders." in done.text
    with site.session() as s:
        assert s.execute(select(func.count()).select_from(Post).where(Post.author_id == ed)).scalar() == 2
        assert s.get(User, ann) is None
    # A forged reassignment to nobody that exists is refused beside the field.
    cat = site.create_user("cat", "customer")
    page = site.app.get(f"/admin/users/{cat}/delete")
    res = post(page, f"/admin/users/{cat}/delete", reassign="999999")
    assert res.status_int == 400 and "choose a user of this site" in res.text
    assert row(site, "cat") is not None
