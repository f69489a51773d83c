"""Throttling of credential guesses (#28): every way in of the host (REST login, token, Basic with
application passwords and consumer keys, the admin's login form) answers 429 with the error body
and ``Retry-After`` once a login (or key) from an address, or an address, went over its limit;
the real user's own address is not blocked; successes are never counted and cost no query;
windows end; the limits are site options. (OAuth: tests/oauth/test_throttle.py; several
processes guessing at once: test_throttle_processes.py.)

Client addresses come from ``X-Forwarded-For`` of a trusted proxy (127.0.0.1, the test client),
so the tests run in-process and served over HTTP alike."""
import base64

import pytest
from sqlalchemy import event, func, select

from storeplatform.core.auth import throttle
from storeplatform.core.models import LoginAttempts
from storeplatform.testing import assert_admin_page, assert_error

ATTACKER = "203.0.113.66"
OWNER = "198.51.100.7"
PASSWORD = "the-right-password"
LOGIN_URL = "/api/store/v1/auth/login"
TOKEN_URL = "/api/store/v1/auth/token"
ME_URL = "/api/store/v1/users/me"


@pytest.fixture
def site(make_site):
    site = make_site(**{"storeplatform.trusted_proxies": "127.0.0.1"})
    site.create_user("alice", "administrator", password=PASSWORD)
    site.create_user("bob", "customer", password=PASSWORD)
    site.set_option("auth.throttle_login_failures", 3)
    return site


def at(address):
    return {"X-Forwarded-For": address}


def basic(login, password, address):
    token = base64.b64encode(f"{login}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}", **at(address)}


def failures(site, login, address):
    """(the address's failures, the login's from that address) in the current window."""
    keys = throttle.throttle_keys(site.settings["storeplatform.secret"], address, login)
    with site.session() as s:
        rows = dict(s.execute(select(LoginAttempts.key, LoginAttempts.failures)
                              .where(LoginAttempts.key.in_(keys))).all())
    return tuple(rows.get(key, 0) for key in keys)


def rows(site):
    with site.session() as s:
        return s.execute(select(func.count()).select_from(LoginAttempts)).scalar_one()


def assert_throttled(res, window=900):
    body = assert_error(res, 429, "rest_too_many_attempts")
    retry_after = int(res.headers["Retry-After"])
    assert 1 <= retry_after <= window and body["data"]["retry_after"] == retry_after
    return retry_after


def login_json(site, login, password, address, url=LOGIN_URL, status="*"):
    return site.app.post_json(url, {"login": login, "password": password}, headers=at(address), status=status)


@pytest.mark.parametrize("url", [LOGIN_URL, TOKEN_URL])
def test_rest_login_and_token_are_throttled_per_login_and_address(site, url):
    for _ in range(3):
        assert_error(login_json(site, "alice", "wrong", ATTACKER, url), 401, "rest_invalid_login")
    # Over the limit: refused before the password is checked, the right one too.
    assert_throttled(login_json(site, "alice", PASSWORD, ATTACKER, url))
    assert_throttled(login_json(site, "alice", "wrong", ATTACKER, url))
    assert failures(site, "alice", ATTACKER) == (3, 3)  # refused guesses are not checked, nor counted
    # The real user, from their own address, is not locked out by the attacker.
    assert login_json(site, "alice", PASSWORD, OWNER, url).status_int == 200
    # The attacker's address may still try other logins (up to the looser per-address limit).
    assert login_json(site, "bob", PASSWORD, ATTACKER, url).status_int == 200
    assert failures(site, "alice", OWNER) == (0, 0)


def test_the_login_and_token_routes_share_one_count(site):
    assert_error(login_json(site, "alice", "wrong", ATTACKER, LOGIN_URL), 401, "rest_invalid_login")
    assert_error(login_json(site, "alice", "wrong", ATTACKER, TOKEN_URL), 401, "rest_invalid_login")
    res = site.app.get(ME_URL, headers=basic("alice", "x" * 24, ATTACKER), status=401)
    assert_error(res, 401, "rest_authentication_failed")
    assert_throttled(login_json(site, "alice", PASSWORD, ATTACKER, TOKEN_URL))


def test_the_guess_that_goes_over_the_limit_is_answered_429(site, monkeypatch):
    """A guess checked before other processes' guesses were counted is decided by the count it
    gets back: the one that goes over the limit is already 429, so however many guess at once,
    exactly the limit of wrong guesses is answered as wrong."""
    keys = throttle.throttle_keys(site.settings["storeplatform.secret"], ATTACKER, "alice")
    window_start = int(throttle.now()) - int(throttle.now()) % 900
    for _ in range(3):
        throttle.count_failures(site.registry, keys, window_start)
    # The check sees no failure yet, as in a request that passed it just before those counts.
    monkeypatch.setattr(throttle._KeptFailures, "failures", lambda self, session, keys, start: [0, 0])
    assert_throttled(login_json(site, "alice", "wrong", ATTACKER))
    assert failures(site, "alice", ATTACKER) == (4, 4)
    # A right password in flight is a success: not counted, not refused.
    assert login_json(site, "alice", PASSWORD, ATTACKER).status_int == 200
    assert failures(site, "alice", ATTACKER) == (4, 4)


def test_basic_application_passwords_are_throttled(site):
    password = site.app_password("alice")
    for guess in ("x" * 24, "short", "y" * 24):  # malformed or wrong, each a wrong credential
        res = site.app.get(ME_URL, headers=basic("alice", guess, ATTACKER), status=401)
        assert_error(res, 401, "rest_authentication_failed")
    assert_throttled(site.app.get(ME_URL, headers=basic("alice", password, ATTACKER), status=429))
    assert site.app.get(ME_URL, headers=basic("alice", password, OWNER)).json["login"] == "alice"
    # On a POST too (a transaction that writes), and on a public route.
    assert_throttled(site.app.post_json(LOGIN_URL, {"login": "bob", "password": PASSWORD},
                                        headers=basic("alice", password, ATTACKER), status=429))
    assert failures(site, "alice", ATTACKER) == (3, 3)


def test_basic_consumer_keys_are_throttled(site):
    key, secret = site.consumer_key("alice")
    for _ in range(3):
        res = site.app.get(ME_URL, headers=basic(key, "cs_" + "0" * 40, ATTACKER), status=401)
        assert_error(res, 401, "rest_authentication_failed")
    assert_throttled(site.app.get(ME_URL, headers=basic(key, secret, ATTACKER), status=429))
    assert site.app.get(ME_URL, headers=basic(key, secret, OWNER)).json["login"] == "alice"
    # Unknown keys are guesses too: the address's count grows with each.
    for n in range(3):
        res = site.app.get(ME_URL, headers=basic(f"ck_{n:040x}", secret, ATTACKER), status=401)
        assert_error(res, 401, "rest_authentication_failed")
    assert failures(site, key, ATTACKER) == (6, 3)


def test_what_is_no_guess_is_not_counted(site):
    key, secret = site.consumer_key("alice", permissions="read")
    # A key's missing permission, a malformed header, a bad bearer token: no guess of a secret.
    res = site.app.post_json(LOGIN_URL, {"login": "bob", "password": PASSWORD}, headers=basic(key, secret, ATTACKER),
                             status=403)
    assert_error(res, 403, "rest_consumer_key_permissions")
    assert_error(site.app.get(ME_URL, headers={"Authorization": "Basic !!!", **at(ATTACKER)}, status=401), 401,
                 "rest_authentication_failed")
    assert_error(site.app.get(ME_URL, headers={"Authorization": "Bearer nope", **at(ATTACKER)}, status=401), 401,
                 "rest_jwt_invalid")
    assert_error(login_json(site, "", "", ATTACKER, TOKEN_URL), 401, "rest_invalid_login")  # counted: a guess
    assert rows(site) == 2  # the empty login's guess: its address and its login


def test_the_address_limit_covers_every_login(site):
    site.set_option("auth.throttle_address_failures", 4)
    for n in range(4):
        assert_error(login_json(site, f"nobody{n}", "wrong", ATTACKER), 401, "rest_invalid_login")
    assert_throttled(login_json(site, "bob", PASSWORD, ATTACKER))
    assert_throttled(site.app.get(ME_URL, headers=basic("alice", site.app_password("alice"), ATTACKER), status=429))
    assert login_json(site, "bob", PASSWORD, OWNER).status_int == 200
    assert failures(site, "bob", ATTACKER) == (4, 0)


def test_an_ipv6_client_counts_as_its_64(site):
    assert throttle.throttled_address("2001:db8:1:2:3::4") == "2001:db8:1:2::/64"
    assert throttle.throttled_address("::ffff:192.0.2.1") == "192.0.2.1"
    assert throttle.throttled_address("192.0.2.1") == "192.0.2.1"
    assert throttle.throttled_address("unknown") == "unknown"
    for n in range(3):
        assert_error(login_json(site, "alice", "wrong", f"2001:db8:0:1::{n + 1}"), 401, "rest_invalid_login")
    assert_throttled(login_json(site, "alice", PASSWORD, "2001:db8:0:1:ffff::9"))
    assert login_json(site, "alice", PASSWORD, "2001:db8:0:2::1").status_int == 200


def test_successes_are_never_counted_and_cost_no_query(site):
    password = site.app_password("alice")
    headers = basic("alice", password, OWNER)
    site.app.get(ME_URL, headers=headers)
    seen = []

    def record(conn, cursor, statement, parameters, context, executemany):
        seen.append(statement)

    event.listen(site.engine, "before_cursor_execute", record)
    try:
        for _ in range(3):
            assert site.app.get(ME_URL, headers=headers).json["login"] == "alice"
    finally:
        event.remove(site.engine, "before_cursor_execute", record)
    # Each request reads the site's state (generations) and nothing else: no throttle query.
    statements = [s for s in seen if not s.startswith(("BEGIN", "ROLLBACK", "COMMIT"))]
    assert len(statements) == 3 and all(s.startswith("SELECT name, value, NULL FROM generations") for s in statements), seen
    for _ in range(5):
        assert login_json(site, "alice", PASSWORD, OWNER).status_int == 200
        assert login_json(site, "alice", PASSWORD, OWNER, TOKEN_URL).status_int == 200
    assert rows(site) == 0
    # A success does not reset a count either (that would let a guesser who owns one account
    # clear the address's count between guesses).
    assert_error(login_json(site, "alice", "wrong", OWNER), 401, "rest_invalid_login")
    assert login_json(site, "alice", PASSWORD, OWNER).status_int == 200
    assert failures(site, "alice", OWNER) == (1, 1)


def test_a_count_elsewhere_is_seen_at_once(site):
    """What a process keeps is good for one generation of ``throttle``: a failure counted by any
    process (here: a transaction of the test's own) is seen by the next request."""
    password = site.app_password("alice")
    assert site.app.get(ME_URL, headers=basic("alice", password, ATTACKER)).status_int == 200
    keys = throttle.throttle_keys(site.settings["storeplatform.secret"], ATTACKER, "alice")
    window_start = int(throttle.now()) - int(throttle.now()) % 900
    for _ in range(3):
        throttle.count_failures(site.registry, keys, window_start)
    assert_throttled(site.app.get(ME_URL, headers=basic("alice", password, ATTACKER), status=429))


def test_windows_end(site, monkeypatch):
    clock = [1_800_000_000.0 + 100]  # 100 s into a 900 s window
    monkeypatch.setattr(throttle, "now", lambda: clock[0])
    for _ in range(3):
        assert_error(login_json(site, "alice", "wrong", ATTACKER), 401, "rest_invalid_login")
    assert assert_throttled(login_json(site, "alice", PASSWORD, ATTACKER)) == 800
    clock[0] += 799.5
    assert assert_throttled(login_json(site, "alice", PASSWORD, ATTACKER)) == 1
    clock[0] += 0.5  # the next window
    assert login_json(site, "alice", PASSWORD, ATTACKER).status_int == 200
    for _ in range(3):
        assert_error(login_json(site, "alice", "wrong", ATTACKER), 401, "rest_invalid_login")
    assert_throttled(login_json(site, "alice", PASSWORD, ATTACKER))
    # A window of another length, as an option.
    site.set_option("auth.throttle_window", 60)
    clock[0] += 60  # windows begin at multiples of their length: the next 60 s one
    assert login_json(site, "alice", PASSWORD, ATTACKER).status_int == 200


def test_the_limits_are_options(site):
    site.set_option("auth.throttle_login_failures", 1)
    assert_error(login_json(site, "alice", "wrong", ATTACKER), 401, "rest_invalid_login")
    assert_throttled(login_json(site, "alice", PASSWORD, ATTACKER))
    site.set_option("auth.throttle_login_failures", 2)
    assert login_json(site, "alice", PASSWORD, ATTACKER).status_int == 200
    admin = site.headers_for("administrator")
    res = site.app.get("/api/store/v1/settings/security", headers={**admin, **at(OWNER)})
    options = {row["id"]: row["value"] for row in res.json if row["id"].startswith("auth.throttle_")}
    assert options == {"auth.throttle_window": 900, "auth.throttle_login_failures": 2,
                       "auth.throttle_address_failures": 100}
    res = site.app.put_json("/api/store/v1/settings/security", {"auth.throttle_login_failures": 0},
                            headers={**admin, **at(OWNER)}, status=400)
    assert_error(res, 400, "rest_invalid_param")


def test_old_windows_are_purged(site, monkeypatch):
    assert "storeplatform.purge_login_attempts" in site.periodic_task_names()
    clock = [1_800_000_000.0]
    monkeypatch.setattr(throttle, "now", lambda: clock[0])
    assert_error(login_json(site, "alice", "wrong", ATTACKER), 401, "rest_invalid_login")
    clock[0] += 900
    assert_error(login_json(site, "alice", "wrong", ATTACKER), 401, "rest_invalid_login")
    assert rows(site) == 4
    site.run_task("storeplatform.purge_login_attempts")
    assert rows(site) == 4  # the first window ended only now: kept a window longer
    clock[0] += 1
    site.run_task("storeplatform.purge_login_attempts")
    assert rows(site) == 2
    assert failures(site, "alice", ATTACKER) == (1, 1)


# --- the admin's login form -------------------------------------------------------------------

def admin_form(site, address, next_path=None):
    page = site.app.get("/admin/login" + (f"?next={next_path}" if next_path else ""), headers=at(address))
    return page.forms["login-form"]


def admin_post(site, login, password, address):
    form = admin_form(site, address)
    form["login"], form["password"] = login, password
    return form.submit(headers=at(address), status="*")


def test_the_admin_login_is_throttled(site):
    for _ in range(3):
        assert_admin_page(admin_post(site, "alice", "wrong", ATTACKER), 400, "Unknown login or wrong password.")
    res = assert_admin_page(admin_post(site, "alice", PASSWORD, ATTACKER), 429, "Too many failed logins")
    assert 1 <= int(res.headers["Retry-After"]) <= 900
    assert "storeplatform_session" not in res.headers.get("Set-Cookie", "")
    assert res.forms["login-form"]["login"].value == "alice"
    # The form, REST and Basic share the count of a login from an address.
    assert_throttled(login_json(site, "alice", PASSWORD, ATTACKER))
    res = admin_post(site, "alice", PASSWORD, OWNER)
    assert res.status_int == 303 and res.location == "http://localhost/admin/"
    # Empty fields are no guess.
    site.app.reset()  # logged out
    assert_admin_page(admin_post(site, "bob", "", ATTACKER), 400)
    assert failures(site, "bob", ATTACKER) == (3, 0)


def test_a_wrong_current_password_is_a_counted_guess(site):
    """A stolen session (here a token) must not grind the password through a self password
    change: a wrong current_password counts as a failed login of that login and address."""
    token = login_json(site, "bob", PASSWORD, ATTACKER, TOKEN_URL).json["token"]
    me = site.app.get(ME_URL, headers={"Authorization": f"Bearer {token}", **at(ATTACKER)}).json["id"]

    def change(current, address):
        return site.app.put_json(f"/api/store/v1/users/{me}", {"password": "a-new-password-1",
                                                               "current_password": current},
                                 headers={"Authorization": f"Bearer {token}", **at(address)}, status="*")

    for _ in range(3):
        res = assert_error(change("wrong", ATTACKER), 400, "rest_invalid_param")
        assert res["data"]["params"]["current_password"] == "is not your current password"
    assert failures(site, "bob", ATTACKER) == (3, 3)
    assert_throttled(change("wrong", ATTACKER))
    assert_throttled(change(PASSWORD, ATTACKER))  # the right one too, until the window ends
    assert_throttled(login_json(site, "bob", PASSWORD, ATTACKER))  # and the login it guessed
    # Not the owner's own address; a change without the password is no guess.
    assert site.app.put_json(f"/api/store/v1/users/{me}", {"name": "Bob"},
                             headers={"Authorization": f"Bearer {token}", **at(ATTACKER)}).json["name"] == "Bob"
    assert change(PASSWORD, OWNER).status_int == 200


def test_the_admin_profile_counts_a_wrong_current_password(site):
    assert admin_post(site, "alice", PASSWORD, OWNER).status_int == 303
    page = site.app.get("/admin/profile", headers=at(ATTACKER)).maybe_follow(headers=at(ATTACKER))
    for _ in range(3):
        form = page.forms["user-form"]
        form["password"], form["current_password"] = "a-new-password-1", "wrong"
        res = form.submit(headers=at(ATTACKER), status="*")
        assert res.status_int == 400 and "is not your current password" in res.text
    form = page.forms["user-form"]
    form["password"], form["current_password"] = "a-new-password-1", PASSWORD
    assert_admin_page(form.submit(headers=at(ATTACKER), status="*"), 429, "Too many")


# --- the login's next ---------------------------------------------------------------------------

INJECTED = "/admin/x%0D%0ASet-Cookie:injected=1"


def assert_no_injection(res):
    for name, value in res.headerlist:
        assert "\r" not in value and "\n" not in value and "injected" not in value, (name, value)


def test_a_next_with_cr_lf_is_a_safe_redirect_to_the_dashboard(site):
    # Not logged in: the form, without that next.
    page = site.app.get(f"/admin/login?next={INJECTED}")
    assert page.status_int == 200 and page.forms["login-form"]["next"].value == ""
    assert_no_injection(page)
    # The form posted with it (as a crafted form would).
    form = page.forms["login-form"]
    form["login"], form["password"], form["next"] = "alice", PASSWORD, "/admin/x\r\nSet-Cookie:injected=1"
    res = form.submit(status=303)
    assert res.location == "http://localhost/admin/"
    assert_no_injection(res)
    # Logged in, the login page sends the browser on: to the dashboard.
    res = site.app.get(f"/admin/login?next={INJECTED}", status=303)
    assert res.location == "http://localhost/admin/"
    assert_no_injection(res)


@pytest.mark.parametrize("next_path", [
    "/admin/x\t", "/admin/x\x7f", "/admin/x y", "/admin//evil.example", "/admin/%2F%2Fevil.example",
    "/admin/\\evil.example", "/admin/%5Cevil.example", "/admin/../api/store/v1/users/me", "/admin/%2e%2e/x",
    "//evil.example/admin/", "https://evil.example/admin/", "/admin/login", "/admin/%6cogin", "/admin/\u00e9",
    "/admin/x%0d%0aSet-Cookie:a=b", "/admin/x%00", "/api/store/v1/users/me",
])
def test_next_refuses_anything_but_an_admin_path(site, next_path):
    page = site.app.get("/admin/login")
    form = page.forms["login-form"]
    form["login"], form["password"], form["next"] = "alice", PASSWORD, next_path
    res = form.submit(status=303)
    assert res.location == "http://localhost/admin/"


def test_next_keeps_an_admin_path(site):
    page = site.app.get("/admin/login?next=/admin/settings/general%3Ftab%3D1")
    assert page.forms["login-form"]["next"].value == "/admin/settings/general?tab=1"
    form = page.forms["login-form"]
    form["login"], form["password"] = "alice", PASSWORD
    assert form.submit(status=303).location == "http://localhost/admin/settings/general?tab=1"
