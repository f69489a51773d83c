"""The Users pages in a real Chromium at phone and desktop width: find a user, change their
role, issue an application password (shown once) and see it work, end their sessions."""
import base64


def test_find_a_user_change_the_role_and_issue_an_application_password(make_site, browse):
    site = make_site()
    for i in range(12):
        site.create_user(f"customer{i:02d}", "customer")
    ann = site.create_user("ann", "customer", email="ann@shop.example")
    browser = browse(site)
    page = browser.page
    browser.login("admin", "administrator")
    browser.goto("/admin/users")
    assert page.inner_text("h1") == "Users"
    browser.screenshot("users-list")

    page.fill("#users-search", "shop.example")
    with page.expect_navigation():
        page.click("#users-filter button[type=submit]")
    assert page.inner_text("#users-total") == "1 user found."
    with page.expect_navigation():
        page.click("#users >> text=ann")
    assert page.url == browser.url(f"/admin/users/{ann}")
    browser.screenshot("users-user")

    page.select_option("#field-role", "shop_manager")
    with page.expect_navigation():
        page.click("#user-form button[type=submit]")
    assert "ann saved." in page.inner_text("p.notice")
    assert site.app.get(f"/api/store/v1/users/{ann}", headers=site.headers_for("administrator")).json["role"] == \
        "shop_manager"

    page.fill("#field-app-password-name", "accounting export")
    with page.expect_navigation():
        page.click("#app-password-form button[type=submit]")
    password = page.inner_text("#new-app-password code")
    browser.screenshot("users-app-password-shown")
    auth = base64.b64encode(f"ann:{password}".encode()).decode()
    assert site.app.get("/api/store/v1/users/me", headers={"Authorization": "Basic " + auth}).json["login"] == "ann"

    page.fill("#field-email", "not an address")
    with page.expect_navigation():
        page.click("#user-form button[type=submit]")
    assert "is not an email address" in page.inner_text("#error-email")
    browser.screenshot("users-refused")
