"""Ending means ending (#28): a password change, a role change, disabling or deleting a user and
"end sessions" refuse every cookie session and JWT issued before at the very next request, on
every process (two sites on one database stand for two processes), the identities a process
keeps between requests included; disabling and deleting also end application passwords and
consumer keys, which survive the rest (as in WordPress); revoking one ends it alone."""
import base64

import jwt
import pytest
from sqlalchemy import select

from storeplatform.core.auth.tokens import keyed_hash
from storeplatform.components.shop.models import AppPassword, AuthSession, ConsumerKey, User
from storeplatform.testing import assert_error, statements_run

API = "/api/store/v1"
ME = f"{API}/users/me"
PASSWORD = "old-password-1"


def basic(login, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()}


class Credentials:
    """Every kind of credential of one user, issued on ``site``: a JWT, a cookie session with
    its nonce (in the site's WebTest cookie jar), an application password and a consumer key."""

    def __init__(self, site, login="dave", role="editor"):
        self.site, self.login = site, login
        self.id = site.create_user(login, role, password=PASSWORD)
        token = site.app.post_json(f"{API}/auth/token", {"login": login, "password": PASSWORD}).json["token"]
        self.jwt = {"Authorization": "Bearer " + token}
        self.cookie = {"X-Nonce": site.app.post_json(f"{API}/auth/login",
                                                     {"login": login, "password": PASSWORD}).json["nonce"]}
        self.app_password = basic(login, site.app_password(login))
        self.consumer_key = basic(*site.consumer_key(login))

    def each(self):
        return {"jwt": self.jwt, "cookie": self.cookie, "app_password": self.app_password,
                "consumer_key": self.consumer_key}

    def all_answer(self, app=None):
        """Every credential answers users/me (and is kept by the process from now on)."""
        app = app or self.site.app
        for name, headers in self.each().items():
            assert app.get(ME, headers=headers).json["login"] == self.login, name


def assert_session_and_token_ended(app, creds):
    assert_error(app.get(ME, headers=creds.jwt, status=401), 401, "rest_jwt_invalid")
    # An ended cookie session answers what any unknown session answers: with its nonce 403,
    # alone anonymous; and it gets no new nonce.
    assert_error(app.get(ME, headers=creds.cookie, status=403), 403, "rest_cookie_invalid_nonce")
    assert_error(app.get(ME, status=401), 401, "rest_not_logged_in")
    assert_error(app.get(f"{API}/auth/nonce", status=401), 401, "rest_not_logged_in")


def assert_keys_ended(app, creds):
    assert_error(app.get(ME, headers=creds.app_password, status=401), 401, "rest_authentication_failed")
    assert_error(app.get(ME, headers=creds.consumer_key, status=401), 401, "rest_authentication_failed")


# How each change is made, through REST by an administrator (or the user), and whether the
# user's application passwords and consumer keys survive it.
CHANGES = {
    "password": (lambda app, admin, creds: app.put_json(f"{API}/users/{creds.id}", {"password": "new-password-2"},
                                                        headers=admin), True),
    "own password": (lambda app, admin, creds: app.put_json(
        f"{API}/users/{creds.id}", {"password": "new-password-2", "current_password": PASSWORD},
        headers=creds.app_password), True),
    "role": (lambda app, admin, creds: app.put_json(f"{API}/users/{creds.id}", {"role": "author"}, headers=admin),
             True),
    "end sessions": (lambda app, admin, creds: app.delete(f"{API}/users/{creds.id}/sessions", headers=admin), True),
    "own end sessions": (lambda app, admin, creds: app.delete(f"{API}/users/me/sessions",
                                                              headers=creds.app_password), True),
    "disable": (lambda app, admin, creds: app.put_json(f"{API}/users/{creds.id}", {"disabled": True},
                                                       headers=admin), False),
    "delete": (lambda app, admin, creds: app.delete(f"{API}/users/{creds.id}", headers=admin), False),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_change_ends_what_was_issued_before_at_the_next_request(site, change):
    """On one process: the identities it kept from the requests before are refused at once."""
    make, keys_survive = CHANGES[change]
    admin = site.headers_for("administrator")
    creds = Credentials(site)
    creds.all_answer()
    with statements_run(site.engine) as seen:
        creds.all_answer()
    # Kept: no credential's rows were read again (the state statement alone, per request).
    assert not [s for s in seen if "users" in s or "auth_sessions" in s or "app_passwords" in s
                or "consumer_keys" in s], seen
    assert make(site.app, admin, creds).status_int == 200
    assert_session_and_token_ended(site.app, creds)
    if keys_survive:
        assert site.app.get(ME, headers=creds.app_password).json["login"] == "dave"
        assert site.app.get(ME, headers=creds.consumer_key).json["login"] == "dave"
    else:
        assert_keys_ended(site.app, creds)


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_change_made_through_one_process_ends_them_on_another(make_site, change):
    one, other = make_site(), make_site()
    make, keys_survive = CHANGES[change]
    creds = Credentials(one)
    creds.all_answer()
    admin = other.headers_for("administrator")
    assert make(other.app, admin, creds).status_int == 200
    assert_session_and_token_ended(one.app, creds)
    if keys_survive:
        for headers in (creds.app_password, creds.consumer_key):
            assert one.app.get(ME, headers=headers).json["role"] == ("author" if change == "role" else "editor")
    else:
        assert_keys_ended(one.app, creds)


def test_a_new_password_ends_the_old_one_and_logs_in(site):
    creds = Credentials(site)
    site.app.put_json(f"{API}/users/{creds.id}", {"password": "new-password-2"},
                      headers=site.headers_for("administrator"))
    assert_error(site.app.post_json(f"{API}/auth/token", {"login": "dave", "password": PASSWORD}, status=401),
                 401, "rest_invalid_login")
    token = site.app.post_json(f"{API}/auth/token", {"login": "dave", "password": "new-password-2"}).json["token"]
    assert site.app.get(ME, headers={"Authorization": "Bearer " + token}).json["login"] == "dave"
    nonce = site.app.post_json(f"{API}/auth/login", {"login": "dave", "password": "new-password-2"}).json["nonce"]
    assert site.app.get(ME, headers={"X-Nonce": nonce}).json["login"] == "dave"


def test_end_sessions_deletes_the_session_rows_and_raises_the_version(site):
    creds = Credentials(site)
    with site.session() as s:
        before = s.get(User, creds.id).auth_version
        assert s.execute(select(AuthSession).where(AuthSession.user_id == creds.id)).scalars().all()
    answer = site.app.delete(f"{API}/users/me/sessions", headers=creds.jwt).json
    assert answer == {"ended": True, "sessions": 1}
    with site.session() as s:
        assert s.get(User, creds.id).auth_version == before + 1
        assert s.execute(select(AuthSession).where(AuthSession.user_id == creds.id)).scalars().all() == []
    # A token issued after it carries the new version and is good.
    token = site.app.post_json(f"{API}/auth/token", {}, headers=creds.app_password).json["token"]
    assert jwt.decode(token, options={"verify_signature": False})["ver"] == before + 1
    assert site.app.get(ME, headers={"Authorization": "Bearer " + token}).json["login"] == "dave"
    assert_error(site.app.get(ME, headers=creds.jwt, status=401), 401, "rest_jwt_invalid")


def test_a_token_from_before_versions_counts_as_version_zero(site):
    """Tokens issued before they carried ``ver`` stay good until the user's first change."""
    creds = Credentials(site)
    key = keyed_hash(site.settings["storeplatform.secret"], "jwt-signing-key", "jwt")
    claims = jwt.decode(creds.jwt["Authorization"][7:], options={"verify_signature": False})
    old = {k: v for k, v in claims.items() if k != "ver"}
    headers = {"Authorization": "Bearer " + jwt.encode(old, key, algorithm="HS256")}
    assert site.app.get(ME, headers=headers).json["login"] == "dave"
    for forged in ("1", True, 1.0, None):  # a version of another type is no version
        bad = {"Authorization": "Bearer " + jwt.encode({**claims, "ver": forged}, key, algorithm="HS256")}
        assert_error(site.app.get(ME, headers=bad, status=401), 401, "rest_jwt_invalid")
    site.app.delete(f"{API}/users/me/sessions", headers=creds.app_password)
    assert_error(site.app.get(ME, headers=headers, status=401), 401, "rest_jwt_invalid")


def test_a_revoked_application_password_is_refused_at_the_next_request(make_site):
    one, other = make_site(), make_site()
    creds = Credentials(one)
    second = basic("dave", one.app_password("dave"))
    creds.all_answer()
    one.app.get(ME, headers=second)
    listed = other.app.get(f"{API}/users/{creds.id}/app-passwords", headers=other.headers_for("administrator")).json
    assert [item["name"] for item in listed] == ["test", "test"]
    with one.session() as s:
        first_id = s.execute(select(AppPassword.id).order_by(AppPassword.id)).scalars().first()
    other.app.delete(f"{API}/users/{creds.id}/app-passwords/{first_id}", headers=other.headers_for("administrator"))
    assert_error(one.app.get(ME, headers=creds.app_password, status=401), 401, "rest_authentication_failed")
    # The other credentials are untouched.
    for headers in (second, creds.jwt, creds.cookie, creds.consumer_key):
        assert one.app.get(ME, headers=headers).json["login"] == "dave"


def test_a_revoked_consumer_key_is_refused_at_the_next_request(make_site):
    from storeplatform.components.shop.accounts import OWNER
    from storeplatform.components.shop.user_keys import revoke_consumer_key

    one, other = make_site(), make_site()
    creds = Credentials(one)
    creds.all_answer()
    with other.session() as s:
        revoke_consumer_key(s, OWNER, str(s.execute(select(ConsumerKey.id)).scalar_one()))
    assert_error(one.app.get(ME, headers=creds.consumer_key, status=401), 401, "rest_authentication_failed")
    assert one.app.get(ME, headers=creds.app_password).json["login"] == "dave"


def test_a_disabled_user_is_refused_like_a_wrong_credential_until_enabled(make_site):
    """While disabled, every way in answers what a wrong credential answers (a guesser learns
    nothing, not even that the password was right); enabling lets the password in again but
    brings back no revoked key or password."""
    one, other = make_site(), make_site()
    creds = Credentials(one)
    creds.all_answer()
    admin = other.headers_for("administrator")
    assert other.app.put_json(f"{API}/users/{creds.id}", {"disabled": True}, headers=admin).json["disabled"] is True
    assert_session_and_token_ended(one.app, creds)
    assert_keys_ended(one.app, creds)
    for route in ("token", "login"):
        assert_error(one.app.post_json(f"{API}/auth/{route}", {"login": "dave", "password": PASSWORD}, status=401),
                     401, "rest_invalid_login")
    with one.session() as s:
        assert s.execute(select(AppPassword).where(AppPassword.user_id == creds.id)).scalars().all() == []
        assert s.execute(select(ConsumerKey).where(ConsumerKey.user_id == creds.id)).scalars().all() == []
    # No new credential for a disabled user.
    assert_error(other.app.post_json(f"{API}/users/{creds.id}/app-passwords", {"name": "x"}, headers=admin, status=409),
          409, "rest_user_disabled")
    other.app.put_json(f"{API}/users/{creds.id}", {"disabled": False}, headers=admin)
    token = one.app.post_json(f"{API}/auth/token", {"login": "dave", "password": PASSWORD}).json["token"]
    assert one.app.get(ME, headers={"Authorization": "Bearer " + token}).json["login"] == "dave"
    assert_keys_ended(one.app, creds)


def test_a_disabled_users_admin_login_and_page_are_refused(site):
    from storeplatform.testing import admin_login

    admin_login(site, "boss", "administrator")
    site.app.get("/admin/", status=200)
    with site.session() as s:
        # Another administrator keeps the site administrable.
        s.add(User(login="other", role="administrator", email="", display_name="Other"))
    from storeplatform.components.shop.accounts import OWNER, disable_user

    with site.session() as s:
        disable_user(s, OWNER, s.execute(select(User).where(User.login == "boss")).scalar_one())
    assert "/admin/login" in site.app.get("/admin/", status=303).location
    page = admin_login(site, "boss", None, status=400)
    assert "Traceback" not in page.text


def test_a_login_whose_version_moved_meanwhile_starts_no_session(site):
    """start_session checks, under the user's row lock, that the version read with the password
    is still the user's: a password change committed between the check and the session wins."""
    from storeplatform.components.shop.credentials import start_session
    from storeplatform.core.errors import RestError

    site.create_user("dave", "editor", password=PASSWORD)
    with site.session() as s:
        stale = s.execute(select(User).where(User.login == "dave")).scalar_one()
        s.expunge(stale)
    site.app.delete(f"{API}/users/{stale.id}/sessions", headers=site.headers_for("administrator"))
    request = site.blank_request("/api/store/v1/auth/login")
    with site.session() as s:
        request.db = s
        with pytest.raises(RestError) as refused:
            start_session(request, stale)
        assert refused.value.code == "rest_authentication_failed"
        assert s.execute(select(AuthSession)).scalars().all() == []
