"""The admin in a real Chromium over real HTTP: log in, the dashboard, log out; a customer's 403."""
from .notes_plugin import NotesPlugin


def test_log_in_see_the_dashboard_and_log_out(make_site, browse):
    site = make_site(plugins=[NotesPlugin()])
    browser = browse(site)
    page = browser.page
    browser.goto("/admin/notes")
    assert page.url == browser.url("/admin/login?next=/admin/notes")
    browser.screenshot("login")
    browser.login("admin", "administrator")
    # Back to the page that was asked for, then the dashboard from the navigation.
    assert page.url == browser.url("/admin/notes")
    browser.goto("/admin/")
    assert page.inner_text("h1") == "Dashboard"
    assert page.inner_text(".cards").split("\n") == ["Notes", "Orders", "Vault", "Products", "Customers", "Settings",
                                                     "Users", "Audit log", "Mail log", "Your profile"]
    browser.screenshot("dashboard")
    assert page.is_visible(".menu nav >> text=Vault")  # the side navigation at desktop width
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: the navigation is behind "Menu"
    assert not page.is_visible(".menu nav >> text=Vault")
    page.click(".menu summary")
    assert page.is_visible(".menu nav >> text=Vault")
    browser.screenshot("dashboard-menu")
    with page.expect_navigation():
        page.click(".logout button")
    assert page.url == browser.url("/admin/login")
    browser.goto("/admin/")
    assert page.url == browser.url("/admin/login?next=/admin/")


def test_a_wrong_password_and_a_customer(make_site, browse):
    site = make_site(plugins=[NotesPlugin()])
    browser = browse(site)
    page = browser.page
    browser.user("admin", "administrator")
    browser.goto("/admin/login")
    page.fill("input[name=login]", "admin")
    page.fill("input[name=password]", "wrong")
    with page.expect_navigation():
        page.click("#login-form button[type=submit]")
    assert page.inner_text("p.error") == "Unknown login or wrong password."
    browser.screenshot("login-refused")
    browser.login("customer")
    response = browser.goto("/admin/")
    assert response.status == 403
    assert page.inner_text("h1") == "Forbidden"
    assert page.inner_text("p.error") == "You are logged in, but your account may not use the admin."
    browser.screenshot("forbidden")
