"""Extension points seen from a third-party plugin: authentication hook, private namespace
index, settings from the environment."""
from storeplatform.testing import Site, assert_error


def test_plugin_authentication_method(make_site):
    site = make_site(**{"storeplatform.plugins": "thirdparty_tasks"})
    site.create_user("gina", "shop_manager")
    me = site.app.get("/api/store/v1/users/me", headers={"X-Test-Token": "let-me-in:gina"}).json
    assert me["login"] == "gina"
    assert_error(site.app.get("/api/store/v1/users/me", headers={"X-Test-Token": "nope"}, status=401), 401,
                 "thirdparty_bad_token")
    # Without its header the plugin answers None and the host's methods run.
    assert site.app.get("/api/store/v1/users/me", headers=site.headers_for("editor")).json["login"] == "editor"


def test_plugin_authentication_is_tried_before_the_host_methods(make_site):
    site = make_site(**{"storeplatform.plugins": "thirdparty_tasks"})
    site.create_user("gina", "shop_manager")
    headers = {**site.headers_for("editor"), "X-Test-Token": "let-me-in:gina"}
    assert site.app.get("/api/store/v1/users/me", headers=headers).json["login"] == "gina"


def test_namespace_index_can_require_a_capability(make_site):
    site = make_site(**{"storeplatform.plugins": "thirdparty_tasks"})
    assert_error(site.app.get("/api/private/v1/", status=401), 401, "rest_not_logged_in")
    assert_error(site.app.get("/api/private/v1/", headers=site.headers_for("editor"), status=403), 403,
                 "rest_forbidden")
    index = site.app.get("/api/private/v1/", headers=site.headers_for("administrator")).json
    assert list(index["routes"]) == ["/private/v1/secret"]
    assert "private/v1" in site.app.get("/api/").json["namespaces"]


def test_environment_overrides_the_ini(tmp_path):
    other = tmp_path / "other.sqlite"
    environ = {"STOREPLATFORM_SECRET": "from-the-environment",
               "STOREPLATFORM_HUEY_URL": f"sqlite:///{tmp_path}/q/huey.sqlite",
               "STOREPLATFORM_DATABASE_URL": f"sqlite:///{other}"}
    site = Site({"sqlalchemy.url": "sqlite:////nonexistent/x.sqlite", "huey.url": "memory://",
                 "huey.embedded_consumer": "false", "storeplatform.secret": "from-the-ini"}, environ=environ)
    try:
        assert site.settings["storeplatform.secret"] == "from-the-environment"
        assert site.settings["sqlalchemy.url"] == f"sqlite:///{other}"
        assert site.settings["huey.url"] == f"sqlite:///{tmp_path}/q/huey.sqlite"
        assert (tmp_path / "q").is_dir()
    finally:
        site.close()
