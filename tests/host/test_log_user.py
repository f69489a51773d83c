"""Every log record made during a request names its user once its credentials are checked (#40):
``user`` (the login; ``-`` for an anonymous request or outside one) beside ``request_id``, on the
view's own records and on the access record, written by both shipped formats (development.ini's
text, production.ini's JSON); a thread's next request does not inherit it."""
import configparser
import json
import logging
from pathlib import Path

from pyramid.response import Response
from webtest import TestApp

from storeplatform.core.logs import JsonFormatter, TextFormatter
from storeplatform.testing import admin_login

ROOT = Path(__file__).resolve().parents[2]


def logging_site(make_site):
    site = make_site()

    def noisy(request):
        request.identity  # an admin page or a plugin's view may ask; REST has asked already
        logging.getLogger("storeplatform.test").warning("inside the view")
        return Response("ok")

    for name, path in (("noisy", "/api/store/v1/noisy"), ("admin-noisy", "/admin/noisy")):
        site.config.add_route(name, path)
        site.config.add_view(noisy, route_name=name)
    site.config.commit()
    site.app = TestApp(site.config.make_wsgi_app(), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    return site


def made(caplog, request_id):
    return {(r.name, r.user) for r in caplog.records if getattr(r, "request_id", None) == request_id}


def test_the_records_of_an_authenticated_request_name_its_user(make_site, caplog):
    caplog.set_level(logging.INFO)
    site = logging_site(make_site)
    # The password's first use sends the task that records it (on memory://, run in this thread
    # after the commit, its records under this request's id): the request measured is the next.
    site.app.get("/api/store/v1/noisy", headers=site.headers_for("editor"))
    res = site.app.get("/api/store/v1/noisy", headers=site.headers_for("editor"))
    assert made(caplog, res.headers["X-Request-ID"]) == {("storeplatform.test", "editor"),
                                                         ("storeplatform.access", "editor")}
    # The same thread's next request, anonymous: none of its records names the last user.
    res = site.app.get("/api/store/v1/noisy")
    assert made(caplog, res.headers["X-Request-ID"]) == {("storeplatform.test", "-"), ("storeplatform.access", "-")}
    # A page of the admin: the user of its session cookie.
    admin_login(site, "boss", "administrator")
    res = site.app.get("/admin/noisy")
    assert made(caplog, res.headers["X-Request-ID"]) == {("storeplatform.test", "boss"),
                                                         ("storeplatform.access", "boss")}
    # Outside a request.
    logging.getLogger("storeplatform.test").warning("between requests")
    assert caplog.records[-1].user == "-" and caplog.records[-1].request_id == "-"


def test_a_refused_credential_names_no_user(make_site, caplog):
    caplog.set_level(logging.INFO)
    site = logging_site(make_site)
    res = site.app.get("/api/store/v1/noisy", headers={"Authorization": "Basic ZWRpdG9yOndyb25n"}, status=401)
    assert made(caplog, res.headers["X-Request-ID"]) == {("storeplatform.access", "-")}


def test_both_shipped_formats_write_the_user():
    ini = configparser.RawConfigParser()
    ini.read(ROOT / "development.ini")
    text = TextFormatter(ini["formatter_generic"]["format"])
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "hello", None, None)
    assert text.format(record).endswith("[x][MainThread][-][-] hello")  # before the site's record factory
    record.request_id, record.user = "abc123", "alice"
    assert text.format(record).endswith("[x][MainThread][abc123][alice] hello")
    production = configparser.RawConfigParser()
    production.read(ROOT / "config" / "production.ini")
    assert production["formatter_json"]["class"] == "storeplatform.core.logs.JsonFormatter"
    assert json.loads(JsonFormatter().format(record))["user"] == "alice"
    record.user = "-"
    assert "user" not in json.loads(JsonFormatter().format(record))
