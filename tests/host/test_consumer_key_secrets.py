"""Consumer secrets at rest (migration sp0006): new keys keep their secret sealed for signature
methods and give it to authentication methods through ``consumer_key_credentials``; keys from
before the migration keep working with Basic and are marked Basic-only."""
import base64

from alembic import command
from sqlalchemy import select

from storeplatform import make_config
from storeplatform.api.advanced import consumer_key_credentials
from storeplatform.core.auth.tokens import keyed_hash
from storeplatform.core.migrate import alembic_config, upgrade
from storeplatform.components.shop.models import ConsumerKey
from storeplatform.testing import Site


def test_existing_keys_become_basic_only(database, tmp_path):
    settings = database.settings(**{"sqlalchemy.url": f"sqlite:///{tmp_path}/old.sqlite"})
    config = make_config(environ={}, **settings)
    engine = config.registry["db.engine"]
    with engine.begin() as conn:
        command.upgrade(alembic_config(config.registry, conn), "sp0005")
        # The users table as sp0005 made it (the model has columns of later revisions).
        conn.exec_driver_sql("INSERT INTO users (login, email, display_name, role, created_at) "
                             "VALUES ('shop', '', '', 'shop_manager', '2025-01-01 00:00:00.000000')")
        user_id = conn.exec_driver_sql("SELECT id FROM users WHERE login = 'shop'").scalar_one()
        key, secret = "ck_" + "a" * 40, "cs_" + "b" * 40
        conn.exec_driver_sql(
            "INSERT INTO consumer_keys (user_id, description, permissions, key_hash, secret_hash, truncated_key,"
            " created_at) VALUES (?, '', 'read', ?, ?, ?, '2025-01-01 00:00:00.000000')",
            (user_id, keyed_hash(database.secret, key, "consumer_key"),
             keyed_hash(database.secret, secret, "consumer_secret"), key[-7:]))
    upgrade(config.registry)
    engine.dispose()
    site = Site(settings)
    try:
        with site.session() as s:
            assert s.execute(select(ConsumerKey.secret_sealed)).scalar_one() is None
        auth = {"Authorization": "Basic " + base64.b64encode(f"{key}:{secret}".encode()).decode()}
        assert site.app.get("/api/store/v1/users/me", headers=auth).json["login"] == "shop"
        request = site.blank_request("/api/store/v1/users/me")
        request.method = "GET"
        with site.session() as s:
            request.db = s
            found = consumer_key_credentials(request, key)
            assert (found.user.login, found.permissions, found.secret) == ("shop", "read", None)
    finally:
        site.close()


def test_new_keys_give_their_secret(site):
    site.create_user("shop", "shop_manager")
    key, secret = site.consumer_key("shop", "write")
    request = site.blank_request("/")
    with site.session() as s:
        request.db = s
        found = consumer_key_credentials(request, key)
        assert (found.user.login, found.permissions, found.secret) == ("shop", "write", secret)
        assert consumer_key_credentials(request, "ck_" + "0" * 40) is None
        assert consumer_key_credentials(request, secret) is None
        sealed = s.execute(select(ConsumerKey.secret_sealed)).scalar_one()
        assert sealed.startswith("v1:") and secret not in sealed and secret[3:] not in sealed
