"""A site owner's first hour (#31): the start-up output of `python3 dev.py serve` ends with the
ready line, the admin's address, the demo logins and commands that work when pasted; the site's
root answers a landing page (HTML for a browser, the REST links for a client) and /favicon.ico
an icon; ``site.url`` follows the port actually served unless the owner set it."""
import base64
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from storeplatform.core.rest.urls import site_url
from storeplatform.core.startup import SERVED_MARK, follow_served_address, served_address
from storeplatform.core.models import Option
from storeplatform.testing import free_port

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
READY = "storeplatform is ready at "
# The start-up of a fresh site: migrations, demo data, the app, the embedded worker.
START_TIMEOUT = 120


# --- over a socket --------------------------------------------------------------------------

def fetch(url, method="GET", headers=None):
    """(status, headers, body) of one request over a socket, no redirect followed."""
    match = re.fullmatch(r"http://([^/:]+):(\d+)(/.*)", url)
    assert match, url
    conn = http.client.HTTPConnection(match.group(1), int(match.group(2)), timeout=30)
    try:
        conn.request(method, match.group(3), headers=headers or {})
        res = conn.getresponse()
        return res.status, {k.lower(): v for k, v in res.getheaders()}, res.read()
    finally:
        conn.close()


def wait_for_ready(server, timeout=START_TIMEOUT):
    deadline = time.monotonic() + timeout
    while READY not in server.text():
        if server.proc.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"no ready line ({server.proc.poll()}):\n{server.tail(60)}")
        time.sleep(0.2)
    time.sleep(0.5)  # the rest of the summary is printed at once; let it reach the file
    return server.text().splitlines()


def summary(lines):
    """The block from the ready line on: {label: text} of its lines."""
    start = next(i for i, line in enumerate(lines) if line.startswith(READY))
    block = lines[start:]
    fields = {}
    for line in block[1:]:
        label, _, text = line.strip().partition(":")
        fields[label] = text.strip()
    return start, block, fields


def run_pasted(command, env):
    """A printed command as a site owner pastes it in the shell, from the checkout."""
    done = subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (command, done.stdout, done.stderr)
    return done.stdout.strip()


@pytest.mark.embedded_defaults
def test_dev_serve_ends_with_the_ready_block_and_its_addresses_and_commands_work(tmp_path):
    from served.helpers import Served, backend

    port = free_port()
    with backend(tmp_path) as site:
        env = site.environ()
        # What `python3 dev.py serve http_port=N` runs once the environment is installed (dev.py's
        # install step is tests/host/test_dev.py's; here it would run pip on the shared .venv).
        server = Served("dev.py serve", [sys.executable, "-c", "import dev, sys; dev.start(sys.argv[1:])",
                                         f"http_port={port}"], env, ROOT, tmp_path / "serve.log")
        try:
            lines = wait_for_ready(server)
            start, block, fields = summary(lines)
            base = f"http://127.0.0.1:{port}"
            # The set-up steps said one line each, first; the server's own lines; the ready block last.
            assert lines[0].startswith("database: ") and "migration(s) applied" in lines[0], lines[:3]
            assert lines[1] == "demo data: loaded"
            assert not any("alembic" in line for line in lines), "\n".join(lines)
            assert any(f"Serving on {base}" in line for line in lines[:start])
            assert block[0] == f"{READY}{base}/ (Ctrl+C stops it)"
            assert block[-1].startswith("  off:"), block  # nothing after the block
            assert fields["admin"] == f"{base}/admin/"
            assert fields["REST API"] == f"{base}/api/  (OpenAPI: {base}/api/openapi.json)"
            assert fields["logins"] == ("admin (administrator), manager (shop_manager), editor (editor), "
                                        "customer (customer), password demo-password")
            # The printed addresses answer, over a socket.
            rest_root, openapi = re.fullmatch(r"(\S+)  \(OpenAPI: (\S+)\)", fields["REST API"]).groups()
            status, headers, _ = fetch(fields["admin"])
            assert status == 303 and headers["location"].startswith(f"{base}/admin/login")
            status, headers, body = fetch(f"{base}/admin/login")
            assert status == 200 and headers["content-type"].startswith("text/html") and b"Log in" in body
            status, _, body = fetch(rest_root)
            assert status == 200 and "store/v1" in json.loads(body)["namespaces"]
            status, _, body = fetch(openapi)
            assert status == 200 and json.loads(body)["openapi"].startswith("3.1")
            site_root = block[0][len(READY):].split()[0]
            assert site_root == f"{base}/"
            status, headers, body = fetch(site_root, headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
            assert status == 200 and headers["content-type"].startswith("text/html")
            assert f'href="{base}/admin/"'.encode() in body
            status, headers, body = fetch(site_root)
            assert status == 200 and json.loads(body)["rest_index"] == rest_root
            status, headers, body = fetch(f"{base}/favicon.ico")
            assert status == 200 and headers["content-type"] == "image/x-icon" and body[:4] == b"\x00\x00\x01\x00"

            # The commands work when pasted, from the checkout, as printed.
            issue = fields["an application password for REST clients"]
            # The server runs in the checkout, as the README has it: the virtualenv's script, the ini there.
            assert issue == ".venv/bin/storeplatform -c development.ini user app-password admin"
            password = run_pasted(issue, env)
            assert len(password.replace(" ", "")) == 24
            status, _, body = fetch(f"{base}/api/store/v1/users/me", headers={
                "Authorization": "Basic " + base64.b64encode(f"admin:{password}".encode()).decode()})
            assert status == 200 and json.loads(body)["login"] == "admin"
            if shutil.which("curl"):
                me = json.loads(run_pasted(fields["REST as admin"], env))
                assert me["login"] == "admin"
            turn_on = fields["off"].split("turn it on with ", 1)[1]
            assert run_pasted(turn_on, env) == "true"
            # site.url names the port served (the worker's and the CLI's links).
            get_url = issue.replace("user app-password admin", "option get site.url")
            assert run_pasted(get_url, env) == base
        finally:
            server.stop()
        assert server.proc.returncode in (0, -15), server.tail()

        # The owner sets the site's address: a server on another port keeps it, and says so.
        run_pasted(issue.replace("user app-password admin", "option set site.url https://shop.example.com"), env)
        other = free_port()
        again = Served("pserve", [BIN / "pserve", ROOT / "development.ini", f"http_port={other}"], env, ROOT,
                       tmp_path / "pserve.log")
        try:
            _, block, fields = summary(wait_for_ready(again))
            assert block[0] == f"{READY}http://127.0.0.1:{other}/ (Ctrl+C stops it)"
            assert fields["site.url"].startswith("https://shop.example.com (set by the site's owner")
            assert run_pasted(get_url, env) == "https://shop.example.com"
        finally:
            again.stop()


# --- site.url follows the served port (the rule, in-process) -------------------------------

def stored(site):
    with site.session() as s:
        return {row.key: row.value for row in s.execute(select(Option)).scalars()}


def outside_a_request(site):
    with site.session() as s:
        return site_url(s)


def test_site_url_follows_the_served_port_until_the_owner_sets_it(site):
    assert outside_a_request(site) == "http://127.0.0.1:6543"  # the declared default
    assert follow_served_address(site.registry, "http://127.0.0.1:6601") == ("http://127.0.0.1:6601", True)
    assert outside_a_request(site) == "http://127.0.0.1:6601"
    assert stored(site)[SERVED_MARK] == "http://127.0.0.1:6601"
    # A restart on another port: what a server wrote follows it.
    follow_served_address(site.registry, "http://127.0.0.1:7000")
    assert outside_a_request(site) == "http://127.0.0.1:7000"
    # The owner's value (REST, the admin, the CLI: set_option) is kept by every later start.
    site.set_option("site.url", "https://shop.example.com")
    assert follow_served_address(site.registry, "http://127.0.0.1:6601") == ("https://shop.example.com", False)
    assert outside_a_request(site) == "https://shop.example.com"
    # Not a site option: the settings never show the mark.
    assert SERVED_MARK not in site.app.get(site.url("/store/v1/settings/general"),
                                           headers=site.headers_for("administrator")).text


def test_a_stored_default_is_not_the_owners_choice(site):
    # Saving the General settings stores every option of the section, site.url's default too.
    site.set_option("site.url", "http://127.0.0.1:6543")
    follow_served_address(site.registry, "http://127.0.0.1:6601")
    assert outside_a_request(site) == "http://127.0.0.1:6601"


@pytest.mark.parametrize("host, port, url", [
    ("127.0.0.1", 6601, "http://127.0.0.1:6601"), ("0.0.0.0", 80, "http://127.0.0.1:80"),
    ("::", 8080, "http://[::1]:8080"), ("::1", 8080, "http://[::1]:8080"), ("localhost", "6543", "http://localhost:6543"),
])
def test_the_served_address(host, port, url):
    assert served_address(host, port) == url


# --- the landing page and the icon (WebTest) ------------------------------------------------

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


def test_the_root_answers_a_browser_with_a_landing_page(site):
    res = site.app.get("/", headers=BROWSER)
    assert res.status_int == 200 and res.content_type == "text/html"
    page = res.html
    assert page.select_one("h1").text == "Storeplatform Demo Store"
    hrefs = {a["href"] for a in page.select("a")}
    assert {"http://localhost/admin/", "http://localhost/api/", "http://localhost/api/openapi.json",
            "http://localhost/api/store/v1/"} <= hrefs
    assert page.select_one("link[rel=icon]")["href"] == "http://localhost/favicon.ico"
    # The site's own styles only, never framed; the answer depends on Accept.
    assert "default-src 'self'" in res.headers["Content-Security-Policy"]
    assert res.headers["X-Frame-Options"] == "DENY" and res.headers["X-Content-Type-Options"] == "nosniff"
    assert "Accept" in res.headers["Vary"]
    assert "style=" not in res.text and "<script" not in res.text


@pytest.mark.parametrize("accept", [None, "*/*", "application/json", "image/png"])
def test_the_root_answers_a_client_with_the_rest_links(site, accept):
    res = site.app.get("/", headers={"Accept": accept} if accept else {})
    assert res.status_int == 200 and res.content_type == "application/json"
    assert res.json == {
        "name": "Storeplatform Demo Store", "url": "http://localhost/", "admin": "http://localhost/admin/",
        "rest_index": "http://localhost/api/", "openapi": "http://localhost/api/openapi.json",
        "namespaces": {"audit/v1": "http://localhost/api/audit/v1/", "store/v1": "http://localhost/api/store/v1/"}}
    assert res.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.in_process  # a script name is set in the WSGI environ, which a socket does not carry
def test_the_root_follows_the_base_url_and_head(site):
    res = site.app.get("/", headers=BROWSER, extra_environ={"SCRIPT_NAME": "/shop"})
    assert 'href="http://localhost/shop/admin/"' in res.text
    head = site.app.head("/", headers=BROWSER)
    assert head.status_int == 200 and head.body == b""


def test_hostile_accept_headers_and_query_strings(site):
    for accept in (";;;", "text/html;q=abc", "text/html;q=0", "*/*;q=0", "a" * 5000):
        res = site.app.get("/", headers={"Accept": accept})
        assert res.status_int == 200 and res.content_type == "application/json", accept
    res = site.app.get("/?x=%ff", headers=BROWSER, status=400)
    assert res.json["code"] == "rest_invalid_url"


def test_other_paths_and_methods_keep_the_rest_errors(site):
    for path in ("/nope", "/index.html", "/admin.php"):
        res = site.app.get(path, status=404, headers=BROWSER)
        assert res.json["code"] == "rest_no_route" and res.json["data"]["status"] == 404
    res = site.app.post("/", status=404)
    assert res.json["code"] == "rest_no_route"


def test_the_storefront_link_at_the_root_is_still_invoicings(make_site):
    site = make_site(**{"storeplatform.plugins": "invoicing"})
    res = site.app.get("/", {"invoicing_download": "1", "key": "nope"}, status=404, headers=BROWSER)
    assert res.json["code"] == "invoicing_invalid_link"
    assert site.app.get("/", headers=BROWSER).content_type == "text/html"


def test_the_favicon_is_a_cacheable_icon(site):
    res = site.app.get("/favicon.ico")
    assert res.content_type == "image/x-icon" and res.body[:4] == b"\x00\x00\x01\x00"
    assert "max-age=86400" in res.headers["Cache-Control"] and "public" in res.headers["Cache-Control"]
    refused = site.app.post("/favicon.ico", status=405)
    assert refused.json["code"] == "rest_method_not_allowed" and refused.headers["Allow"] == "GET, HEAD"
    # The admin's pages name it too (their layout's head), from the admin's static folder.
    login = site.app.get("/admin/login")
    icon = login.html.select_one("link[rel=icon]")["href"]
    assert site.app.get(icon).body == res.body


# --- the README points inside the repository ------------------------------------------------

def test_the_readme_names_only_what_the_repository_has():
    text = (ROOT / "README.md").read_text()
    assert "shared/specs" not in text and "../" not in text
    links = re.findall(r"\]\(([^)#]+)\)", text)
    assert "docs/events.md" in links and "docs/examples/webhook_receiver.py" in links
    for link in links:
        assert not link.startswith(("http:", "https:")), link
        assert (ROOT / link).exists(), link
    # The two set-up commands, and the API's own descriptions.
    assert "    python3 dev.py serve\n" in text and "    python3 dev.py test\n" in text
    assert "{rest_root}/openapi.json" in text and "GET {rest_root}/<namespace>/" in text


# --- the summary's logins and commands (in-process) ----------------------------------------

def test_the_summary_names_only_demo_users_that_still_have_the_demo_password(site):
    from storeplatform.core.auth.passwords import hash_password
    from storeplatform.core.startup import ready_summary
    from storeplatform.components.shop.demo import load_demo
    from storeplatform.components.shop.models import User

    ini = str(ROOT / "development.ini")
    lines = ready_summary(site.registry, "http://127.0.0.1:6601", ini)
    assert lines[0] == f"{READY}http://127.0.0.1:6601/ (Ctrl+C stops it)"
    assert not any("logins" in line or "app-password" in line for line in lines)  # no demo users: none named
    with site.session() as s:
        load_demo(s)
    with site.session() as s:
        admin = s.execute(select(User).where(User.login == "admin")).scalar_one()
        admin.password_hash = hash_password("the owner's own password")
        s.execute(select(User).where(User.login == "editor")).scalar_one().disabled = True
    lines = ready_summary(site.registry, "http://127.0.0.1:6601", ini)
    [logins] = [line for line in lines if line.startswith("  logins:")]
    assert logins == "  logins:    manager (shop_manager), customer (customer), password demo-password"
    [issue] = [line for line in lines if "app-password" in line and "curl" not in line]
    assert issue.endswith("-c development.ini user app-password manager")
    # The owner's address is named when it is not the served one.
    site.set_option("site.url", "https://shop.example.com")
    lines = ready_summary(site.registry, "http://127.0.0.1:6601", ini, "https://shop.example.com")
    assert any(line.startswith("  site.url:  https://shop.example.com (set by the site's owner") for line in lines)


@pytest.mark.skipif(Path.cwd() != ROOT, reason="the block's commands are relative to the checkout")
def test_the_readme_shows_the_block_the_server_prints(make_site):
    from storeplatform.core.startup import ready_summary
    from storeplatform.components.shop.demo import load_demo

    site = make_site(**{"storeplatform.plugins": "invoicing", "mail.enabled": "true"})  # as development.ini
    with site.session() as s:
        load_demo(s)
    printed = ready_summary(site.registry, "http://127.0.0.1:6543", str(ROOT / "development.ini"))
    readme = (ROOT / "README.md").read_text().splitlines()
    start = readme.index("    " + printed[0])
    assert [line[4:] for line in readme[start:start + len(printed)]] == printed
