"""A WordPress REST client from the package registry, unchanged (``wordpress-api``, the client
of WordPress's and WooCommerce's REST APIs), against a real HTTP server of the site (#43): it
lists and filters users, creates, updates and deletes one, and manages application passwords,
with WordPress's field names and Basic authentication by an application password.

The client is told the site's paths (``{url}/{api}/{version}/{endpoint}``: ``api`` is the site's
REST prefix, ``version`` the namespace) and to send its credentials in the Authorization header
only (``query_string_auth=False``: in the query string they are WooCommerce's consumer keys,
which this namespace does not read there and refuses as unknown parameters). It has no PATCH:
the same session sends one, as a WordPress client that patches does."""
import pytest
from webtest.http import StopableWSGIServer

wordpress = pytest.importorskip("wordpress")


@pytest.fixture
def wp(site):
    site.create_user("boss", "administrator", password="pw-boss-1", email="boss@example.com")
    password = site.app_password("boss")
    server = StopableWSGIServer.create(site.wsgi, host="127.0.0.1")
    # The e-mail address as the user name, as WordPress takes it too.
    client = wordpress.API(url=server.application_url.rstrip("/"), consumer_key="", consumer_secret="",
                           api="api", version="store/v1", wp_api=True, basic_auth=True, user_auth=True,
                           wp_user="boss@example.com", wp_pass=password, query_string_auth=False, timeout=20)
    yield client
    server.shutdown()


def test_a_wordpress_client_manages_users(wp):
    created = wp.post("users", {"username": "ann", "email": "ann@example.com", "password": "pw-ann-1",
                                "first_name": "Ann", "last_name": "Lee", "roles": ["editor"]})
    assert created.status_code == 201, created.text
    ann = created.json()
    assert (ann["username"], ann["roles"], ann["first_name"]) == ("ann", ["editor"], "Ann")
    for n in range(3):
        assert wp.post("users", {"username": f"c{n}", "email": f"c{n}@example.com", "roles": ["customer"]}).status_code == 201
    listed = wp.get("users", params={"roles": "customer", "per_page": 2, "orderby": "slug", "order": "asc",
                                     "context": "edit"})
    assert [u["slug"] for u in listed.json()] == ["c0", "c1"]
    assert listed.headers["X-Total"] == "3" and listed.headers["X-TotalPages"] == "2"
    assert [u["id"] for u in wp.get("users", params={"include": ann["id"]}).json()] == [ann["id"]]
    assert wp.get("users", params={"slug": "ann", "context": "view"}).json()[0].keys() >= {"name", "avatar_urls"}
    # a misspelt parameter is an error the client sees, not a list of everybody
    with pytest.raises(UserWarning, match="rest_invalid_param"):
        wp.get("users", params={"inclde": ann["id"]})
    updated = wp.put(f"users/{ann['id']}", {"nickname": "annie", "url": "https://ann.example.com"})
    assert updated.json()["nickname"] == "annie"
    patched = wp.requester.request("PATCH", wp.requester.endpoint_url(f"users/{ann['id']}"), auth=wp.auth.get_auth(),
                                   data='{"description": "patched"}')
    assert patched.status_code == 200 and patched.json()["description"] == "patched"
    assert patched.json()["nickname"] == "annie"
    with pytest.raises(UserWarning, match="existing_user_email"):
        wp.post("users", {"username": "ann2", "email": "ANN@example.com"})
    deleted = wp.delete(f"users/{ann['id']}", params={"force": "true", "reassign": ""})
    assert deleted.json()["deleted"] is True and deleted.json()["previous"]["username"] == "ann"
    assert wp.get(f"users/{ann['id']}", handle_status_codes=[404]).status_code == 404


def test_a_wordpress_client_manages_application_passwords(wp):
    me = wp.get("users/me").json()
    created = wp.post(f"users/{me['id']}/application-passwords",
                      {"name": "Deploy", "app_id": "0c4a1f6e-2b3d-4e5f-8a9b-0c1d2e3f4a5b"})
    assert created.status_code == 201
    item = created.json()
    uuid = item["uuid"]
    assert created.headers["Location"].endswith(f"/application-passwords/{uuid}")
    assert wp.get(f"users/me/application-passwords/{uuid}").json()["name"] == "Deploy"
    assert wp.post(f"users/me/application-passwords/{uuid}", {"name": "Deploy bot"}).json()["name"] == "Deploy bot"
    listed = wp.get("users/me/application-passwords").json()
    assert {p["uuid"] for p in listed} >= {uuid}
    assert [p for p in listed if p["name"] == "test"][0]["last_used"] is not None  # the one this client uses
    assert wp.delete(f"users/me/application-passwords/{uuid}").json()["previous"]["uuid"] == uuid
    assert wp.delete("users/me/application-passwords").json() == {"deleted": True, "count": 1}
