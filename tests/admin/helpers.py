"""WebTest helpers of the admin tests: log in through the login form, read the page's form token."""
import re

PASSWORD = "demo-password"


def admin_site(make_site, *plugins, **settings):
    return make_site(plugins=list(plugins), **settings)


def login(site, login, role=None, password=PASSWORD, status=303):
    """Log in through the form (the user is made first unless it exists); returns the answer."""
    if role is not None:
        site.create_user(login, role, password=password)
    page = site.app.get("/admin/login")
    form = page.forms[0]
    form["login"], form["password"] = login, password
    return form.submit(status=status)


def token(page):
    """The form token of a rendered admin page."""
    return re.search(r'<meta name="csrf-token" content="([0-9a-f]*)">', page.text).group(1)


def assert_page(res, status, text=None):
    """An admin answer: HTML with that status, the text in it, never JSON or a traceback."""
    assert res.status_int == status, (res.status, res.text[:400])
    assert res.content_type == "text/html", res.content_type
    assert "Traceback" not in res.text
    if text is not None:
        assert text in res.text, res.text[-1500:]
    return res
