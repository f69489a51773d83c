"""Every answer says nosniff and its referrer policy; every admin answer, pages, redirects, error
pages and its static files alike, refuses to be framed and allows only the site's own scripts and
styles. A view that sets one of these itself keeps its own."""
import pytest

from storeplatform.testing import admin_login

EVERY = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin"}


def assert_every(res):
    for name, value in EVERY.items():
        assert res.headers.get(name) == value, (res.request.path, name)


def assert_admin(res):
    assert_every(res)
    assert res.headers["X-Frame-Options"] == "DENY"
    csp = dict(part.strip().split(" ", 1) for part in res.headers["Content-Security-Policy"].split(";"))
    assert csp["frame-ancestors"] == "'none'"
    assert csp["script-src"] == "'self'" and csp["style-src"] == "'self'"
    assert csp["default-src"] == "'self'"


@pytest.fixture
def shop(make_site):
    return make_site(**{"storeplatform.plugins": "events invoicing"})


def test_admin_pages_refuse_frames_and_foreign_scripts(shop):
    app = shop.app
    assert_admin(app.get("/admin/login"))
    assert_admin(app.get("/admin/", status=303))  # the redirect to the login page
    assert_admin(app.get("/admin/no-such-page", status=404))
    admin_login(shop, "boss", role="administrator")
    for path in ("/admin/", "/admin/webhooks", "/admin/checkin", "/admin/invoices", "/admin/settings/general"):
        assert_admin(app.get(path))
    assert_admin(app.get("/admin/static/admin/admin.css"))


def test_a_customers_403_page_has_them_too(shop):
    admin_login(shop, "ann", role="customer")
    assert_admin(shop.app.get("/admin/", status=403))


def test_every_rest_answer_has_nosniff_and_a_referrer_policy(shop):
    app = shop.app
    res = app.get("/api/")
    assert_every(res)
    assert "X-Frame-Options" not in res.headers and "Content-Security-Policy" not in res.headers
    assert_every(app.get("/api/store/v1/nothing-here", status=404))
    assert_every(app.post_json("/api/store/v1/auth/login", {"login": "x", "password": "y"}, status=401))
    assert_every(app.get("/healthz"))
    assert_every(app.get("/api/store/v1/products", headers=shop.headers_for("administrator")))
