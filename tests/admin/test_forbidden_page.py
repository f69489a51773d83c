"""The admin's 403 page leads somewhere the user may go: the staff back to their dashboard; a
customer (no admin page at all, so the dashboard is the same 403) to the site's home page and a
way to log out, both of which work."""
from .helpers import assert_page, login, token


def test_a_customer_gets_links_that_work(make_site):
    site = make_site()
    login(site, "zoe", role="customer")
    page = assert_page(site.app.get("/admin/", status=403), 403, "may not use the admin")
    assert "Back to the dashboard" not in page.text
    home = page.html.select_one("#error-home")["href"]
    assert home == "http://localhost/"
    # The home page answers (the site's landing page), not another 403.
    landing = site.app.get(home, headers={"Accept": "text/html"})
    assert landing.status_int == 200 and landing.content_type == "text/html"
    # Log out from the 403 page itself: its form carries the token, and the login page follows.
    form = page.forms["error-logout"]
    out = form.submit(status=303)
    assert out.location == "http://localhost/admin/login"
    assert_page(site.app.get("/admin/login"), 200, "Log in")
    # Logged out: the admin asks for a login again.
    assert site.app.get("/admin/", status=303).location.startswith("http://localhost/admin/login")


def test_a_customer_on_any_admin_page_gets_the_same_way_out(make_site):
    site = make_site()
    login(site, "zoe", role="customer")
    page = assert_page(site.app.get("/admin/users", status=403), 403)
    assert page.html.select_one("#error-home") is not None and page.forms.get("error-logout") is not None


def test_the_staff_keep_the_dashboard_link(make_site):
    site = make_site()
    login(site, "writer", role="author")
    # An author with some page (their profile) but not this one: the dashboard works for them.
    page = assert_page(site.app.get("/admin/settings", status=403), 403)
    link = page.html.find("a", string="Back to the dashboard")
    assert link is not None
    assert_page(site.app.get(link["href"]), 200)
    assert page.forms.get("error-logout") is None


def test_an_expired_form_token_of_a_customer_still_offers_the_way_out(make_site):
    site = make_site()
    login(site, "zoe", role="customer")
    page = site.app.get("/admin/", status=403)
    # A forged log-out (bad token) is refused with the same page, which still has a good form.
    refused = assert_page(site.app.post("/admin/logout", {"csrf_token": "0" * 64}, status=403), 403)
    assert refused.forms["error-logout"]["csrf_token"].value == token(page)
    refused.forms["error-logout"].submit(status=303)


def test_the_forbidden_page_in_chromium(make_site, browse):
    site = make_site()
    browser = browse(site)
    page = browser.page
    browser.login("zoe", "customer")
    browser.goto("/admin/")
    assert page.inner_text("h1") == "Forbidden"
    browser.screenshot("forbidden-customer")
    with page.expect_navigation():
        page.click("#error-home")
    assert page.url == browser.url("/")
    assert page.inner_text("h1") == "Storeplatform Demo Store"  # the landing page, the site's title
    browser.screenshot("landing")
    browser.goto("/admin/")
    with page.expect_navigation():
        page.click("#error-logout button")
    assert page.url.startswith(browser.url("/admin/login"))
