"""Lost passwords and new accounts' first passwords (#41): a link with a single-use key mailed
to the account's address (at a real SMTP server on 127.0.0.1), over REST
(``store/v1/auth/lost-password``, ``reset-password``) and on the admin's pages beside its login;
the same answer whether an account matches or not, throttled as logins are; the key stored
hashed, ending when used, when it expires, when a newer one is sent or when the password changes;
the password it sets ends the user's sessions as a password change does."""
import re
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import select, update

from storeplatform.components.shop.models import PasswordResetKey
from storeplatform.core.db.types import utcnow
from storeplatform.testing import admin_login, assert_admin_page, assert_error

from .mail_servers import SmtpServer

A = "/api/store/v1/auth"
PASSWORD = "old-password-1234"
NEW = "a-new-password-5678"


@pytest.fixture
def smtp():
    with SmtpServer() as server:
        yield server


@pytest.fixture
def shop(make_site, tmp_path, smtp):
    site = make_site(**{"mail.url": smtp.url(), "mail.directory": str(tmp_path / "mail"), "mail.timeout": "2"})
    site.set_option("site.title", "Zoë's Shop")
    site.set_option("store.name", "Zoë's Shop")
    site.set_option("store.address", "1 Main Street\n1010 Wien")
    site.set_option("site.url", "https://shop.example.com")
    site.create_user("anna", "customer", password=PASSWORD, email="Anna.Nowak@example.com")
    site.smtp = smtp
    return site


def mails(site):
    return site.smtp.keeper.messages()


def link_of(message):
    text = message.get_body(("plain",)).get_content()
    return re.search(r"(https?://\S+/admin/reset-password\?key=\S+)", text).group(1)


def key_of(url):
    return parse_qs(urlsplit(url).query)["key"][0]


def ask(site, who, status=202):
    return site.app.post_json(f"{A}/lost-password", {"login": who}, status=status)


def test_a_lost_password_link_reaches_the_account_and_sets_a_new_password(shop):
    # A cookie session and a JWT from before: the new password ends both.
    logged_in = shop.app.post_json(f"{A}/login", {"login": "anna", "password": PASSWORD}, status=200)
    assert logged_in.json["user"]["login"] == "anna"
    jwt = shop.app.post_json(f"{A}/token", {"login": "anna", "password": PASSWORD}, status=200).json["token"]
    shop.app.reset()

    answer = ask(shop, "anna")
    assert answer.json == {"message": "If an account matches, a link to set a new password has been sent to its "
                                      "e-mail address."}
    [message] = mails(shop)
    assert message["To"] == "Anna <Anna.Nowak@example.com>"
    assert message["Subject"] == "Set a new password for Zoë's Shop"
    url = link_of(message)
    assert url.startswith("https://shop.example.com/admin/reset-password?key=")
    text = message.get_body(("plain",)).get_content()
    assert 'your account "anna" at Zoë\'s Shop' in text and "1 Main Street\r\n1010 Wien" in text
    assert url in message.get_body(("html",)).get_content().replace("&amp;", "&")
    # Stored hashed: the key itself is nowhere in the database.
    with shop.session() as s:
        [stored] = s.execute(select(PasswordResetKey)).scalars().all()
        assert stored.purpose == "lost_password" and key_of(url) not in stored.key_hash

    done = shop.app.post_json(f"{A}/reset-password", {"key": key_of(url), "password": NEW}, status=200)
    assert done.json == {"password_reset": True, "login": "anna"}
    shop.app.post_json(f"{A}/login", {"login": "anna", "password": NEW}, status=200)
    assert_error(shop.app.post_json(f"{A}/login", {"login": "anna", "password": PASSWORD}, status=401), 401,
                 "rest_invalid_login")
    assert shop.app.get("/api/store/v1/users/me", headers={"Authorization": f"Bearer {jwt}"},
                        expect_errors=True).status_int == 401  # the JWT from before has ended
    # Used once.
    used = shop.app.post_json(f"{A}/reset-password", {"key": key_of(url), "password": "another-one-999"}, status=400)
    assert_error(used, 400, "rest_invalid_param")
    assert "key" in used.json["data"]["params"]


def test_the_answer_is_the_same_whoever_is_asked_for(shop):
    shop.create_user("mute", "customer", password=PASSWORD)
    shop.create_user("gone", "customer", password=PASSWORD, email="gone@example.com")
    with shop.session() as s:
        from storeplatform.components.shop.models import User

        s.execute(update(User).where(User.login == "mute").values(email=""))
        s.execute(update(User).where(User.login == "gone").values(disabled=True))
    answers = {who: ask(shop, who).json for who in ("nobody", "nobody@example.com", "mute", "gone", "anna")}
    assert len({str(a) for a in answers.values()}) == 1
    assert [m["To"] for m in mails(shop)] == ["Anna <Anna.Nowak@example.com>"]
    # By e-mail address too, in any case.
    ask(shop, "  anna.nowak@EXAMPLE.com ")
    assert len(mails(shop)) == 2


def test_a_newer_link_a_password_change_or_the_time_end_a_link(shop):
    ask(shop, "anna")
    ask(shop, "anna")
    first, second = (key_of(link_of(m)) for m in mails(shop))
    assert_error(shop.app.post_json(f"{A}/reset-password", {"key": first, "password": NEW}, status=400), 400,
                 "rest_invalid_param")
    # The password changed another way: the link ends with the sessions.
    with shop.session() as s:
        from storeplatform.components.shop.accounts import OWNER, set_password
        from storeplatform.components.shop.models import User

        set_password(s, OWNER, s.execute(select(User).where(User.login == "anna")).scalar_one(), "changed-pw-4321")
    assert_error(shop.app.post_json(f"{A}/reset-password", {"key": second, "password": NEW}, status=400), 400,
                 "rest_invalid_param")
    # Expired.
    ask(shop, "anna")
    third = key_of(link_of(mails(shop)[-1]))
    with shop.session() as s:
        s.execute(update(PasswordResetKey).values(expires_at=utcnow() - timedelta(seconds=1)))
    assert_error(shop.app.post_json(f"{A}/reset-password", {"key": third, "password": NEW}, status=400), 400,
                 "rest_invalid_param")
    shop.app.post_json(f"{A}/login", {"login": "anna", "password": "changed-pw-4321"}, status=200)


@pytest.mark.parametrize("body, field", [
    ({}, "login"), ({"login": ""}, "login"), ({"login": 5}, "login"), ({"login": "x" * 201}, "login"),
])
def test_a_bad_request_is_refused(shop, body, field):
    res = shop.app.post_json(f"{A}/lost-password", body, status=400)
    assert_error(res, 400, "rest_invalid_param")
    assert field in res.json["data"]["params"]


@pytest.mark.parametrize("body, field", [
    ({"password": NEW}, "key"), ({"key": "k" * 43}, "password"), ({"key": "k" * 43, "password": ""}, "password"),
    ({"key": "x" * 43, "password": NEW}, "key"), ({"key": "é" * 43, "password": NEW}, "key"),
    ({"key": 12, "password": NEW}, "key"),
])
def test_a_bad_reset_is_refused_and_changes_nothing(shop, body, field):
    res = shop.app.post_json(f"{A}/reset-password", body, status=400)
    assert_error(res, 400, "rest_invalid_param")
    assert field in res.json["data"]["params"]
    shop.app.post_json(f"{A}/login", {"login": "anna", "password": PASSWORD}, status=200)


def test_asking_is_throttled_as_logins_are(shop):
    shop.set_option("auth.throttle_login_failures", 3)
    for _ in range(3):
        ask(shop, "anna")
    refused = ask(shop, "anna", status=429)
    assert_error(refused, 429, "rest_too_many_attempts")
    assert int(refused.headers["Retry-After"]) > 0
    assert len(mails(shop)) == 3
    ask(shop, "nobody-else")  # another login from the same address is still taken


def test_the_admin_pages_ask_and_set_a_password(shop):
    login = shop.app.get("/admin/login")
    asking = login.click(linkid="lost-password")
    assert_admin_page(asking, 200, "Lost password")
    form = asking.forms["lost-password-form"]
    form["login"] = "Anna.Nowak@example.com"
    sent = form.submit(status=200)
    assert_admin_page(sent, 200, "If an account matches")
    url = link_of(mails(shop)[0])
    path = url.split("https://shop.example.com", 1)[1]

    page = assert_admin_page(shop.app.get(path), 200, "Set a new password")
    assert page.html.select_one("#reset-login").text == "anna"
    form = page.forms["reset-password-form"]
    form["password"], form["password_again"] = NEW, NEW + "x"
    differ = form.submit(status=400)
    assert_admin_page(differ, 400, "The two passwords differ.")
    form = differ.forms["reset-password-form"]
    form["password"], form["password_again"] = NEW, NEW
    done = form.submit(status=303)
    assert done.location.endswith("/admin/login?reset=1")
    assert_admin_page(done.follow(), 200, "Your password has been set")
    admin_login(shop, "anna", password=NEW)
    # The link is spent.
    assert_admin_page(shop.app.get(path, status=400), 400, "This link is not valid")
    assert_admin_page(shop.app.get("/admin/reset-password?key=" + "%00" * 50, status=400), 400, "not valid")
    assert_admin_page(shop.app.get("/admin/reset-password", status=400), 400, "Ask for a new link")


def test_a_form_from_elsewhere_is_refused(shop):
    res = shop.app.post("/admin/lost-password", {"login": "anna"}, status=403)
    assert_admin_page(res, 403, "did not come from this site")
    assert mails(shop) == []


def test_a_new_account_without_a_password_is_welcomed_with_a_link(shop):
    admin = shop.headers_for("administrator")
    made = shop.app.post_json("/api/store/v1/users", {"login": "bruno", "email": "bruno@example.com",
                                                      "role": "customer"}, headers=admin, status=201).json
    shop.app.post_json("/api/store/v1/users", {"login": "carla", "email": "carla@example.com", "role": "customer",
                                               "password": "carla-password-1"}, headers=admin, status=201)
    [welcome] = mails(shop)
    assert welcome["To"] == "bruno <bruno@example.com>" and welcome["Subject"] == "Your account at Zoë's Shop"
    assert 'with the login "bruno"' in welcome.get_body(("plain",)).get_content()
    shop.app.post_json(f"{A}/reset-password", {"key": key_of(link_of(welcome)), "password": NEW}, status=200)
    shop.app.post_json(f"{A}/login", {"login": "bruno", "password": NEW}, status=200)
    assert made["login"] == "bruno"


def test_the_admins_new_user_form_says_the_link_was_sent(shop):
    admin_login(shop, "owner", "administrator")
    form = shop.app.get("/admin/users/new").forms["user-new-form"]
    form["login"], form["email"], form["role"] = "dora", "dora@example.com", "customer"
    page = form.submit(status=303).follow()
    assert_admin_page(page, 200, "User dora created. A link to set a password was sent to dora@example.com.")
    assert [m["To"] for m in mails(shop)] == ["dora <dora@example.com>"]


def test_the_link_is_the_sites_address_whatever_host_the_request_named(shop):
    shop.app.post_json(f"{A}/lost-password", {"login": "anna"}, headers={"Host": "evil.example"}, status=202)
    assert link_of(mails(shop)[0]).startswith("https://shop.example.com/admin/reset-password?key=")
