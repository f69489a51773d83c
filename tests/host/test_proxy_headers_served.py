"""Through the real servers over sockets (``pserve development.ini``: waitress, 8 threads, the
embedded consumer; ``pserve config/production.ini``: gunicorn, 4 workers): the site's
``storeplatform.trusted_proxies`` alone decides whether a proxy's ``X-Forwarded-Proto`` (the
scheme: HTTPS-only consumer keys, links, ``Location``, the cookie's ``Secure``), ``X-Forwarded-For``
(the client address: the invoicing storefront's download limit) and ``X-Request-ID`` are believed.
Neither server strips them (waitress did unless its own ``trusted_proxy`` was set) nor believes
them itself (gunicorn did from 127.0.0.1), and a server section naming the server's own proxy
settings stops start-up with one line."""
import base64
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from storeplatform.testing import TestDatabase as Database, cli_environ, queue_url, run_cli, wait_for
from storeplatform.testing_served import bound_port

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PASSWORD = "proxy-test-password"
PRODUCTS = "/api/store/v1/products"
DOWNLOAD = "/?invoicing_download=1&key=order_nothing"  # answered 404 (a wrong link) until the limit


def _basic(login, password):
    return "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()


def _server_section(text):
    return text.split("[server:main]", 1)[1].split("\n[", 1)[0]


def _site_ini(tmp_path, shipped, trusted_proxies, server_lines=""):
    """The shipped ini with its [server:main] as shipped (plus ``server_lines``); in [app:main]
    ``storeplatform.trusted_proxies`` as given, consumer keys over HTTPS only, and a queue name
    of its own (the run's Redis is shared)."""
    text = (ROOT / shipped).read_text()
    app, server = text.split("[server:main]", 1)
    app = re.sub(r"^storeplatform\.(trusted_proxies|allow_http_consumer_keys) *=.*\n", "", app, flags=re.M)
    app = app.replace("[app:main]\n", "[app:main]\n"
                      f"huey.name = sp-proxy-{uuid.uuid4().hex[:8]}\n"
                      "storeplatform.allow_http_consumer_keys = false\n"
                      f"storeplatform.trusted_proxies = {trusted_proxies}\n", 1)
    server = server.replace("\n", "\n" + server_lines, 1) if server_lines else server
    ini = tmp_path / f"site-{uuid.uuid4().hex[:6]}.ini"
    ini.write_text(app + "[server:main]" + server)
    if not server_lines:
        assert _server_section(ini.read_text()) == _server_section(text)
    return ini


def _cli(ini, env, *args):
    """A set-up command, in-process (the servers are what this file starts as processes)."""
    proc = run_cli("-c", str(ini), *args, environ=env)
    assert proc.returncode == 0, (args, proc.stderr)
    return proc.stdout.strip()


class _Server:
    """``pserve INI http_port=N`` on 127.0.0.1, its output in a file, stopped with SIGTERM (and its
    process group killed if anything is left)."""

    def __init__(self, ini, env, tmp_path):
        self.log = tmp_path / f"{ini.stem}.log"
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen([BIN / "pserve", ini, "http_port=0"], env=env, cwd=tmp_path,
                                         stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.port = None

    def _bound(self):
        # Port 0: the one the server bound itself, read back from its socket (a port found free
        # and let go may be taken by anything before the server binds it).
        if self.port is None:
            self.port = bound_port(self.proc, output=self.log.read_text)
        return self.port

    def wait_ready(self):
        self._bound()

        def ready():
            assert self.proc.poll() is None, self.log.read_text()
            try:
                return self.request("GET", "/readyz")[0] == 200
            except OSError:
                return False

        wait_for(ready, timeout=90, interval=0.2)

    def request(self, method, path, headers=None, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", self._bound(), timeout=30)
        try:
            headers = dict(headers or {})
            if body is not None:
                body = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
            conn.request(method, path, body=body, headers=headers)
            res = conn.getresponse()
            return res.status, res.headers, res.read()
        finally:
            conn.close()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(10)


def _fresh_rate_window():
    """The download limit counts per minute: start a sequence with at least 5 s of it left."""
    left = 60 - time.time() % 60
    if left < 5:
        time.sleep(left + 0.2)


def _code(body):
    data = json.loads(body)
    return data.get("code") if isinstance(data, dict) else data


def _check_trusted(server, creds):
    """127.0.0.1 is a trusted proxy: its X-Forwarded-* headers are the client's."""
    ck = creds["consumer_key"]
    https = {"X-Forwarded-Proto": "https"}
    base = f"https://127.0.0.1:{server.port}"
    status, headers, body = server.request("GET", "/api/store/v1/orders", {**https, "Authorization": ck})
    assert status == 200, body
    status, headers, body = server.request("POST", PRODUCTS, {**https, "Authorization": ck}, {"name": "Over TLS"})
    assert status == 201, body
    assert headers["Location"].startswith(f"{base}{PRODUCTS}/"), headers["Location"]
    server.request("POST", PRODUCTS, {**https, "Authorization": ck}, {"name": "Over TLS too"})
    status, headers, body = server.request("GET", PRODUCTS + "?per_page=1", {**https, "Authorization": ck})
    assert status == 200 and 'rel="next"' in headers["Link"], headers["Link"]
    assert re.findall(r"<([a-z]+)://", headers["Link"]) == ["https"], headers["Link"]
    index = json.loads(server.request("GET", "/api/", https)[2])
    assert index["url"] == base and "http://" not in json.dumps(index), index
    status, headers, body = server.request("POST", "/api/store/v1/auth/login", https,
                                           {"login": "admin", "password": PASSWORD})
    assert status == 200, body
    cookie = headers["Set-Cookie"]
    assert cookie.startswith("storeplatform_session=") and "; secure" in cookie.lower(), cookie
    assert server.request("GET", "/healthz", {"X-Request-ID": "proxy-given-1"})[1]["X-Request-ID"] == "proxy-given-1"
    # The proxy saying nothing, or only in headers no server maps to X-Forwarded-Proto (a header
    # name with "_" is dropped by both servers; nobody reads Forwarded): plain HTTP.
    for unsaid in ({}, {"X_Forwarded_Proto": "https"}, {"Forwarded": "for=192.0.2.60;proto=https"}):
        status, headers, body = server.request("GET", "/api/store/v1/orders", {**unsaid, "Authorization": ck})
        assert (status, _code(body)) == (401, "rest_consumer_key_https_required"), (unsaid, body)
    # X-Forwarded-For: each client its own download limit (2 a minute), not the proxy's.
    _fresh_rate_window()
    first, second = {"X-Forwarded-For": "203.0.113.7"}, {"X-Forwarded-For": "198.51.100.1, 203.0.113.8"}
    assert [server.request("GET", DOWNLOAD, first)[0] for _ in range(3)] == [404, 404, 429]
    assert [server.request("GET", DOWNLOAD, second)[0] for _ in range(2)] == [404, 404]


def _check_untrusted(server, creds):
    """No trusted proxy: the same headers from 127.0.0.1 change nothing."""
    ck = creds["consumer_key"]
    https = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
    base = f"http://127.0.0.1:{server.port}"
    status, headers, body = server.request("GET", "/api/store/v1/orders", {**https, "Authorization": ck})
    assert (status, _code(body)) == (401, "rest_consumer_key_https_required"), body
    status, headers, body = server.request("POST", PRODUCTS, {**https, "Authorization": creds["admin"]},
                                           {"name": "Plain"})
    assert status == 201, body
    assert headers["Location"].startswith(f"{base}{PRODUCTS}/"), headers["Location"]
    status, headers, body = server.request("GET", PRODUCTS + "?per_page=1", {**https, "Authorization": creds["admin"]})
    assert status == 200 and set(re.findall(r"<([a-z]+)://", headers["Link"])) == {"http"}, headers["Link"]
    assert json.loads(server.request("GET", "/api/", https)[2])["url"] == base
    status, headers, body = server.request("POST", "/api/store/v1/auth/login", https,
                                           {"login": "admin", "password": PASSWORD})
    assert status == 200 and "secure" not in headers["Set-Cookie"].lower(), headers["Set-Cookie"]
    assert server.request("GET", "/healthz", {"X-Request-ID": "proxy-given-2"})[1]["X-Request-ID"] != "proxy-given-2"
    # Every client claims an address of its own: the limit counts the peer, 127.0.0.1.
    _fresh_rate_window()
    statuses = [server.request("GET", DOWNLOAD, {"X-Forwarded-For": f"203.0.113.{n}"})[0] for n in (10, 11, 12)]
    assert statuses == [404, 404, 429]


@pytest.mark.parametrize("shipped", [pytest.param("development.ini", marks=pytest.mark.embedded_defaults),
                                     pytest.param("config/production.ini", marks=pytest.mark.production_topology)],
                         ids=["waitress", "gunicorn"])
def test_the_sites_trusted_proxies_alone_decide_under_the_real_server(shipped, tmp_path):
    database = Database(tmp_path)
    env = cli_environ()
    env.update(STOREPLATFORM_DATABASE_URL=database.url, STOREPLATFORM_HUEY_URL=queue_url(tmp_path),
               STOREPLATFORM_SECRET=database.secret)
    servers = []
    try:
        trusted = _site_ini(tmp_path, shipped, "127.0.0.1")
        _cli(trusted, env, "migrate")
        _cli(trusted, env, "user", "create", "admin", "--role", "administrator", "--password", PASSWORD)
        _cli(trusted, env, "option", "set", "invoicing.download_rate_limit", "2")
        password = _cli(trusted, env, "user", "app-password", "admin")
        key = _cli(trusted, env, "consumer-key", "create", "admin")
        creds = {"admin": _basic("admin", password), "consumer_key": _basic(*key.split())}

        for trusted_proxies, check in (("127.0.0.1", _check_trusted), ("", _check_untrusted)):
            server = _Server(_site_ini(tmp_path, shipped, trusted_proxies), env, tmp_path)
            servers.append(server)
            server.wait_ready()
            check(server, creds)
            server.stop()
            log = server.log.read_text()
            assert "Traceback" not in log, log

        # The server's own proxy settings are refused, with one line.
        own = "trusted_proxy = 127.0.0.1\n" if "development" in shipped else "forwarded_allow_ips = 127.0.0.1\n"
        proc = subprocess.run([BIN / "pserve", _site_ini(tmp_path, shipped, "", own), "http_port=0"],
                              env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 1, (proc.returncode, proc.stderr)
        line = proc.stderr.strip().splitlines()[-1]
        assert line.startswith("storeplatform: error: the server section sets ") and proc.stderr.count("error:") == 1, \
            proc.stderr
        assert "storeplatform.trusted_proxies" in line and "Traceback" not in proc.stderr, proc.stderr
    finally:
        for server in servers:
            server.stop()
        database.drop()
