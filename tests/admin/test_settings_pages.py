"""The settings pages (WebTest): one per section, fields from the declared options, saved by the
code of PUT store/v1/settings/<section>, errors beside the fields, nothing saved on a refusal."""
import re

from .helpers import assert_page, login, token

ALL = {"storeplatform.plugins": "invoicing pricecalc events"}


def settings_json(site, section):
    rows = site.app.get(f"/api/store/v1/settings/{section}", headers=site.headers_for("administrator")).json
    return {row["id"]: row["value"] for row in rows}


def logged_in(make_site, role="administrator", **settings):
    site = make_site(**settings)
    page = login(site, "boss", role).follow(status="*")
    return site, page


def field_error(page, key):
    match = re.search(rf'id="error-field-{key.replace(".", "-")}" role="alert">([^<]*)<', page.text)
    return match and match.group(1)


def test_one_page_per_section_with_every_declared_field(make_site):
    site, _ = logged_in(make_site, **ALL)
    res = site.app.get("/admin/settings", status=303)
    assert res.location == "http://localhost/admin/settings/general"
    general = assert_page(site.app.get("/admin/settings/general"), 200, "General settings")
    tabs = re.findall(r'<a href="http://localhost/admin/settings/([a-z_-]+)"', general.text)
    assert tabs == ["general", "invoicing", "security", "store", "advanced"]
    # Every field of the section (host and plugin options alike), drawn from its type.
    assert 'name="site.title" value="Storeplatform Demo Store"' in general.text
    assert '<select id="field-site-timezone" name="site.timezone">' in general.text
    assert '<option value="UTC" selected>UTC</option>' in general.text
    assert 'name="events.permalink_base" value=""' in general.text and "Default: empty" in general.text
    store = site.app.get("/admin/settings/store")
    assert re.search(r'<textarea id="field-store-address" name="store.address" rows="3">1 Example Street\n12345', store.text)
    assert 'type="number" inputmode="numeric" value="2" min="0" max="4"' in store.text
    assert '<option value="left" selected>left</option>' in store.text
    advanced = site.app.get("/admin/settings/advanced")
    assert 'type="checkbox" id="field-invoicing-rest_api_enabled" name="invoicing.rest_api_enabled" value="true">' \
        in advanced.text
    assert 'name="events.rest_api_enabled" value="true" checked>' in advanced.text
    assert_page(site.app.get("/admin/settings/nosuch", status=404), 404)
    assert_page(site.app.get("/admin/settings/Bad%20Name", status=404), 404)


def test_saving_a_section_is_the_rest_put(make_site):
    site, page = logged_in(make_site, **ALL)
    form = site.app.get("/admin/settings/advanced").forms["settings-form"]
    # Each switch is a hidden "false" and a checkbox "true" after it (the last value counts).
    form.get("invoicing.rest_api_enabled", index=1).checked = True
    form.get("events.webhooks_enabled", index=1).checked = False
    res = form.submit(status=303)
    assert res.location == "http://localhost/admin/settings/advanced"
    assert_page(res.follow(), 200, "Advanced settings saved.")
    assert settings_json(site, "advanced") == {"invoicing.rest_api_enabled": True, "events.rest_api_enabled": True,
                                               "events.webhooks_enabled": False}
    # The switch works: the invoicing API answers now.
    assert site.app.get("/api/invoicing/v1/", headers=site.headers_for("administrator")).status_int == 200
    form = site.app.get("/admin/settings/store").forms["settings-form"]
    form["store.address"] = "2 Main Street\r\nVienna"
    form["store.decimals"] = "3"
    form["store.currency_position"] = "right_space"
    form.submit(status=303)
    stored = settings_json(site, "store")
    assert stored["store.address"] == "2 Main Street\nVienna" and stored["store.decimals"] == 3
    assert stored["store.currency_position"] == "right_space"


def test_a_refused_field_saves_nothing_and_is_shown_beside_the_field(make_site):
    site, page = logged_in(make_site, **ALL)
    before = settings_json(site, "store")
    form = site.app.get("/admin/settings/store").forms["settings-form"]
    form["store.name"] = "New name"               # valid
    form["store.decimals"] = "99999999999999999999999999"
    fields = {**dict(form.submit_fields()), "store.currency_position": "upside"}   # not a choice
    res = assert_page(site.app.post("/admin/settings/store", fields, status=400), 400, "Nothing was saved")
    assert field_error(res, "store.decimals") == "store.decimals must be between 0 and 4"
    assert field_error(res, "store.currency_position").startswith("store.currency_position must be one of left")
    assert field_error(res, "store.name") is None
    assert 'name="store.name" value="New name"' in res.text  # what was typed is kept
    assert settings_json(site, "store") == before
    general = site.app.get("/admin/settings/general").forms["settings-form"]
    general["site.title"] = "Fine"
    res = site.app.post("/admin/settings/general", {**dict(general.submit_fields()), "site.timezone": "Mars/Base"},
                        status=400)
    assert field_error(res, "site.timezone") == "site.timezone must be a time zone name such as Europe/Paris"
    assert '<option value="Mars/Base" selected>' in res.text
    assert settings_json(site, "general")["site.title"] == "Storeplatform Demo Store"


def test_hostile_settings_forms(make_site):
    site, page = logged_in(make_site, **ALL)
    good = token(site.app.get("/admin/settings/store"))
    before = settings_json(site, "store")
    cases = [
        ({"store.decimals": "1.5"}, 400, "store.decimals must be an integer"),
        ({"store.decimals": ""}, 400, "store.decimals must be an integer"),
        ({"store.decimals": "-1"}, 400, "store.decimals must be between 0 and 4"),
        ({"store.decimals": "１"}, 303, None),   # a full-width digit is a digit to int(): stored as 1
    ]
    for body, status, message in cases:
        res = site.app.post("/admin/settings/store", {**body, "csrf_token": good}, status=status)
        if message:
            assert_page(res, status, message)
    assert settings_json(site, "store")["store.decimals"] == 1
    site.app.post("/admin/settings/store", {"store.decimals": str(before["store.decimals"]), "csrf_token": good},
                  status=303)
    # Invalid UTF-8, NUL characters, no token, a huge field: refused whole.
    for body in (b"store.name=%ff&csrf_token=" + good.encode(), b"store.name=a%00b&csrf_token=" + good.encode()):
        assert_page(site.app.post("/admin/settings/store", body, content_type="application/x-www-form-urlencoded",
                                  status=400), 400)
    assert_page(site.app.post("/admin/settings/store", {"store.name": "x"}, status=403), 403)
    assert_page(site.app.post("/admin/settings/store", {"store.name": "x" * 200_001, "csrf_token": good}, status=400),
                400, "longer than")
    # A bool that is neither true nor false, an unknown section, unknown fields ignored.
    res = site.app.post("/admin/settings/advanced", {"events.webhooks_enabled": "maybe", "csrf_token": good},
                        status=400)
    assert field_error(res, "events.webhooks_enabled") == "events.webhooks_enabled must be true or false"
    assert_page(site.app.post("/admin/settings/nosuch", {"x": "1", "csrf_token": good}, status=404), 404)
    site.app.post("/admin/settings/store", {"site.title": "Not here", "csrf_token": good}, status=303)
    assert settings_json(site, "store") == before
    assert settings_json(site, "general")["site.title"] == "Storeplatform Demo Store"


def test_settings_need_manage_options(make_site):
    site, page = logged_in(make_site, role="shop_manager")
    assert ">Settings</a>" not in page.text
    assert_page(site.app.get("/admin/settings/general", status=403), 403)
    assert_page(site.app.post("/admin/settings/general", {"site.title": "x", "csrf_token": token(page)},
                              status=403), 403)
    assert settings_json(site, "general")["site.title"] == "Storeplatform Demo Store"
