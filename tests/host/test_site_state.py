"""The site options and the identities behind credentials are kept per process by generation:
two sites on one database stand for two processes. What one commits, the other's very next
request sees; while nothing changes, a request reads neither the options nor the credential's
rows (one statement reads every generation together with the stored options)."""
import base64

from sqlalchemy import delete, select, update

from storeplatform.api import User
from storeplatform.components.shop.models import AppPassword, AuthSession, ConsumerKey
from storeplatform.core.models import Option
from storeplatform.testing import assert_error, statements_run

ME = "/api/store/v1/users/me"
SETTINGS = "/api/store/v1/settings"


def store_name(site, headers):
    general = site.app.get(SETTINGS, headers=headers).json["sections"]["store"]
    return next(item["value"] for item in general if item["id"] == "store.name")


def test_an_option_set_by_another_process_is_seen_at_the_next_request(make_site):
    one, other = make_site(), make_site()
    admin = one.headers_for("administrator")
    assert store_name(one, admin) != "Elsewhere"
    with statements_run(one.engine) as seen:
        store_name(one, admin)
    # Nothing changed: the generations and options in one statement, then nothing else of ours.
    assert len(seen) == 1 and "FROM generations" in seen[0] and "FROM options" in seen[0], seen
    other.set_option("store.name", "Elsewhere")
    assert store_name(one, admin) == "Elsewhere"


def test_stored_options_come_with_the_state_only_after_they_changed(make_site):
    """A process keeps the stored options by their generation: while they do not change, the
    state statement answers the generations alone; a change made anywhere, the removal of every
    stored option included, is seen at the next request."""
    one, other = make_site(), make_site()
    admin = one.headers_for("administrator")
    default = store_name(one, admin)
    other.set_option("store.name", "Elsewhere")
    other.set_option("store.currency_symbol", "EUR ")
    assert store_name(one, admin) == "Elsewhere"
    with statements_run(one.engine) as seen:
        store_name(one, admin)
    with one.engine.connect() as conn:  # the state statement as the request sent it, once more
        rows = conn.exec_driver_sql(seen[0]).all()
    assert rows and all(value is not None for _, value, _ in rows), rows  # no option among them
    with other.session() as s:
        s.execute(delete(Option))
    assert store_name(one, admin) == default


def test_an_option_set_in_a_request_is_what_that_request_reads_next(site):
    admin = site.headers_for("administrator")
    res = site.app.put_json(f"{SETTINGS}/store", {"store.name": "Here"}, headers=admin)
    assert next(item["value"] for item in res.json if item["id"] == "store.name") == "Here"
    assert store_name(site, admin) == "Here"


def test_a_revoked_application_password_is_refused_at_once(make_site):
    one, other = make_site(), make_site()
    headers = one.headers_for("shop_manager")
    assert one.app.get(ME, headers=headers).json["login"] == "shop_manager"
    with statements_run(one.engine) as seen:
        one.app.get(ME, headers=headers)
    assert not [s for s in seen if "app_passwords" in s], seen  # kept from the first request
    with other.session() as s:
        s.execute(delete(AppPassword))
    assert_error(one.app.get(ME, headers=headers, status=401), 401, "rest_authentication_failed")


def test_a_consumer_key_is_kept_until_a_key_changes_anywhere(make_site):
    one, other = make_site(), make_site()
    one.create_user("shop", "shop_manager")
    key, secret = one.consumer_key("shop", "read")
    headers = {"Authorization": "Basic " + base64.b64encode(f"{key}:{secret}".encode()).decode()}
    assert one.app.get(ME, headers=headers).json["login"] == "shop"
    with statements_run(one.engine) as seen:
        one.app.get(ME, headers=headers)
    assert not [s for s in seen if "consumer_keys" in s], seen  # kept from the first request
    with other.session() as s:
        s.execute(update(ConsumerKey).values(permissions="write"))
    assert_error(one.app.get(ME, headers=headers, status=403), 403, "rest_consumer_key_permissions")
    with other.session() as s:
        s.execute(delete(ConsumerKey))
    assert_error(one.app.get(ME, headers=headers, status=401), 401, "rest_authentication_failed")


def test_a_new_role_applies_at_the_next_request(make_site):
    one, other = make_site(), make_site()
    headers = one.headers_for("editor")
    assert_error(one.app.get(SETTINGS, headers=headers, status=403), 403, "rest_forbidden")
    with other.session() as s:
        s.execute(update(User).where(User.login == "editor").values(role="administrator", display_name="Ed"))
    me = one.app.get(ME, headers=headers).json
    assert (me["role"], me["name"]) == ("administrator", "Ed")
    one.app.get(SETTINGS, headers=headers, status=200)


def test_a_deleted_user_loses_every_credential(make_site):
    one, other = make_site(), make_site()
    one.create_user("dave", "shop_manager", password="pw")
    bearer = {"Authorization": "Bearer " + one.app.post_json("/api/store/v1/auth/token",
                                                             {"login": "dave", "password": "pw"}).json["token"]}
    password = one.app_password("dave")
    basic = {"Authorization": "Basic " + base64.b64encode(f"dave:{password}".encode()).decode()}
    assert one.app.get(ME, headers=bearer).json["login"] == one.app.get(ME, headers=basic).json["login"] == "dave"
    with other.session() as s:
        s.execute(delete(User).where(User.login == "dave"))
    assert_error(one.app.get(ME, headers=bearer, status=401), 401, "rest_jwt_invalid")
    assert_error(one.app.get(ME, headers=basic, status=401), 401, "rest_authentication_failed")


def test_a_cookie_session_ended_elsewhere_is_refused(make_site):
    one, other = make_site(), make_site()
    one.create_user("carol", "administrator", password="pw")
    nonce = one.app.post_json("/api/store/v1/auth/login", {"login": "carol", "password": "pw"}).json["nonce"]
    assert one.app.get(ME, headers={"X-Nonce": nonce}).json["login"] == "carol"
    with other.session() as s:
        assert s.execute(select(AuthSession)).scalars().all()
        s.execute(delete(AuthSession))
    assert_error(one.app.get(ME, headers={"X-Nonce": nonce}, status=403), 403, "rest_cookie_invalid_nonce")
