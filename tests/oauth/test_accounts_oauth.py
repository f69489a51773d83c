"""Accounts (#28) and OAuth 1.0a: a signed request with the key of a disabled user is refused as
one with an unknown key (the plugin reads keys through consumer_key_credentials, which knows
no key of a disabled user), and a revoked key is refused at the next request."""
from sqlalchemy import select

from storeplatform.components.shop.accounts import OWNER, disable_user, enable_user
from storeplatform.components.shop.user_keys import revoke_consumer_key
from storeplatform.components.shop.models import User

from .conftest import assert_error

ME = "/api/store/v1/users/me"


def shop_user(site, session):
    return session.execute(select(User).where(User.login == "shop")).scalar_one()


def test_a_disabled_users_key_is_unknown_to_oauth(client):
    creds = client.key()
    assert client.request("GET", ME, creds).json["login"] == "shop"
    with client.site.session() as s:
        disable_user(s, OWNER, shop_user(client.site, s))
    assert_error(client.request("GET", ME, creds), 401, "rest_oauth_unknown_consumer_key")
    with client.site.session() as s:
        enable_user(s, OWNER, shop_user(client.site, s))
    # Disabling revoked the key: enabling brings it not back.
    assert_error(client.request("GET", ME, creds), 401, "rest_oauth_unknown_consumer_key")


def test_a_revoked_key_is_refused_at_the_next_signed_request(client):
    creds = client.key()
    other = client.key()
    assert client.request("GET", ME, creds).status_int == 200
    with client.site.session() as s:
        revoke_consumer_key(s, OWNER, creds[0])
    assert_error(client.request("GET", ME, creds), 401, "rest_oauth_unknown_consumer_key")
    assert client.request("GET", ME, other).json["login"] == "shop"


def test_the_disabled_flag_alone_refuses_the_key(client):
    """Whatever set it (accounts.py also revokes the keys), a disabled user's key that still
    exists is refused, and works again once the flag is cleared."""
    from sqlalchemy import update

    creds = client.key()
    assert client.request("GET", ME, creds).status_int == 200
    for disabled, status in ((True, 401), (False, 200)):
        with client.site.session() as s:
            s.execute(update(User).where(User.login == "shop").values(disabled=disabled))
        assert client.request("GET", ME, creds).status_int == status
