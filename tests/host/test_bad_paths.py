"""A path that is not UTF-8 (issue #26): a 400 on every route (the JSON error body, the admin's
HTML page under /admin), in-process and as the site is really served (waitress, bytes written on
a socket), and its access record is still written, with the undecodable bytes shown as ``\\xNN``."""
import http.client
import logging
import socket

import pytest

from storeplatform.testing import assert_admin_page, assert_error
from storeplatform.testing_browser import live_server

PLUGINS = {"storeplatform.plugins": "events pricecalc"}
# (method, path as sent, path in the access record, admin page or not)
CASES = [
    ("GET", "/api/store/v1/products/%FF", "/api/store/v1/products/\\xff", False),
    ("PUT", "/api/store/v1/products/%FF", "/api/store/v1/products/\\xff", False),
    ("GET", "/api/events/v1/events/%ff", "/api/events/v1/events/\\xff", False),
    # A POST whose transaction depends on its route (pricecalc's read_only calculation): the
    # route is looked up before the error views run (storeplatform.db), on PostgreSQL.
    ("POST", "/api/pricecalc/v1/products/1/calculate%C3", "/api/pricecalc/v1/products/1/calculate\\xc3", False),
    ("POST", "/api/pricecalc/v1/%FF/calculate", "/api/pricecalc/v1/\\xff/calculate", False),
    ("GET", "/admin/%ff", "/admin/\\xff", True),
    ("POST", "/admin/settings/%FE", "/admin/settings/\\xfe", True),
    ("GET", "/elsewhere/caf%E9", "/elsewhere/caf\\xe9", False),
    ("GET", "/%FF", "/\\xff", False),
]


def _access_records(caplog):
    return [r for r in caplog.records if r.name == "storeplatform.access"]


@pytest.fixture
def access_log(caplog):
    caplog.set_level(logging.INFO, logger="storeplatform.access")
    return caplog


@pytest.mark.parametrize("method,path,logged,admin", CASES)
def test_a_path_that_is_not_utf8_is_a_400_in_process(make_site, access_log, method, path, logged, admin):
    site = make_site(**PLUGINS)
    res = site.app.request(path, method=method, body=b'{"fields": {}}' if method != "GET" else b"",
                           headers={"Content-Type": "application/json"}, expect_errors=True)
    if admin:
        assert_admin_page(res, 400, "not valid UTF-8")
    else:
        assert_error(res, 400, "rest_invalid_url")
    records = _access_records(access_log)
    assert [(r.method, r.path, r.status, r.request_id) for r in records] == [
        (method, logged, 400, res.headers["X-Request-ID"])]


def _raw_request(base_url, request_line):
    """Send one request with exactly these bytes in its request line; the parsed answer."""
    host, port = base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(request_line + b"\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 2\r\nConnection: close\r\n\r\n{}")
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, response.getheader("Content-Type"), response.getheader("X-Request-ID"), response.read()


@pytest.mark.parametrize("method,path,logged,admin", CASES)
def test_a_path_that_is_not_utf8_is_a_400_under_waitress(make_site, access_log, method, path, logged, admin):
    site = make_site(**PLUGINS)
    with live_server(site.wsgi) as base_url:
        status, content_type, request_id, body = _raw_request(base_url, f"{method} {path} HTTP/1.1".encode())
        # The same bytes raw in the request line (not percent-encoded) break HTTP's grammar: the
        # server refuses them itself (waitress's "Bad URI", as gunicorn does), the site never
        # sees them, so there is no access record.
        raw = path.encode()
        for escape in ("%FF", "%ff", "%C3", "%FE", "%E9"):
            raw = raw.replace(escape.encode(), bytes([int(escape[1:], 16)]))
        assert _raw_request(base_url, method.encode() + b" " + raw + b" HTTP/1.1")[0] == 400
    assert status == 400, body[:300]
    if admin:
        assert content_type.startswith("text/html") and b"not valid UTF-8" in body, body[:300]
    else:
        assert content_type.startswith("application/json"), (content_type, body[:300])
        assert b'"code":"rest_invalid_url"' in body and b'"data":{"status":400}' in body, body
    records = _access_records(access_log)
    assert [(r.method, r.path, r.status, r.request_id) for r in records] == [(method, logged, 400, request_id)]
