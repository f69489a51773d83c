"""A REST namespace is declared by the plugin that owns it (``config.add_rest_namespace``); a
plugin may add routes to another's namespace, and those routes follow the owner's switch and
error codes. Routes in a namespace no enabled plugin declares stop start-up naming the owner."""
import pytest

from storeplatform.api import Service, hookimpl
from storeplatform.core.plugins import PluginError
from storeplatform.testing import assert_error

from .test_startup import one_line, start

GUEST_REFUSED = ("plugin 'thirdparty_guest' adds routes to REST namespace 'events/v1', which no enabled plugin "
                 "declares: it is declared by plugin 'events', add it to storeplatform.plugins")

secret = Service("events/v1", "/guest-secret", name="guest-secret", description="A guest's route with a capability.")
stray = Service("nowhere/v1", "/stray", name="stray", description="A route in a namespace nobody declares.")
owned = Service("owned/v1", "/things", name="owned-things", description="The owner's route.")
visiting = Service("owned/v1", "/visits", name="owned-visits", description="A guest's route.")


@secret.get(permission="manage_options")
@stray.get()
@owned.get()
@visiting.get(permission="manage_options")
def answer(request):
    return {"ok": True}


class SecretGuest:
    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_rest_services(secret)


class Stray:
    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_rest_services(stray)


class Owner:
    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_rest_namespace("owned/v1", unauthenticated_code="owned_who", forbidden_code="owned_no",
                                  description="Owned.")
        config.add_rest_services(owned)


class Visitor:
    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_rest_services(visiting)


def test_routes_in_a_disabled_plugins_namespace_stop_start_up_naming_it(make_site):
    with pytest.raises(PluginError) as raised:
        make_site(**{"storeplatform.plugins": "thirdparty_guest"})
    assert str(raised.value) == GUEST_REFUSED


def test_under_pserve_that_is_one_line(tmp_path):
    proc, _ = start(tmp_path, "storeplatform.plugins = thirdparty_guest")
    assert one_line(proc) == f"storeplatform: error: {GUEST_REFUSED}"


def test_a_namespace_no_installed_plugin_declares_is_named(make_site):
    with pytest.raises(PluginError) as raised:
        make_site(plugins=[Stray()])
    assert str(raised.value) == ("plugin 'Stray' adds routes to REST namespace 'nowhere/v1', which no enabled "
                                 "plugin declares: no installed plugin declares it")


def test_the_guest_may_configure_before_the_owner(make_site):
    # pluggy calls the last registered first: the visitor adds its route before the owner declares.
    site = make_site(plugins=[Owner(), Visitor()])
    assert site.app.get("/api/owned/v1/things").json == {"ok": True}
    assert_error(site.app.get("/api/owned/v1/visits", status=401), 401, "owned_who")
    assert_error(site.app.get("/api/owned/v1/visits", headers=site.headers_for("editor"), status=403), 403,
                 "owned_no")
    assert site.app.get("/api/owned/v1/visits", headers=site.headers_for("administrator")).json == {"ok": True}
    assert "/owned/v1/visits" in site.app.get("/api/owned/v1/").json["routes"]


def test_a_guests_route_follows_the_owners_switch_and_codes(make_site):
    site = make_site(plugins=[SecretGuest()], **{"storeplatform.plugins": "events"})
    assert_error(site.app.get("/api/events/v1/guest-secret", status=401), 401, "evt_rest_forbidden")
    assert_error(site.app.get("/api/events/v1/guest-secret", headers=site.headers_for("editor"), status=403), 403,
                 "evt_rest_forbidden")
    admin = site.headers_for("administrator")
    assert site.app.get("/api/events/v1/guest-secret", headers=admin).json == {"ok": True}
    site.set_option("events.rest_api_enabled", False)
    assert_error(site.app.get("/api/events/v1/guest-secret", headers=admin, status=403), 403, "evt_api_disabled")
    assert_error(site.app.get("/api/events/v1/guest-secret", status=403), 403, "evt_api_disabled")
