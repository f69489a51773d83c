"""The settings pages (WebTest): one per host section and one per plugin, fields from the declared
options (switches, choices, sets of choices), saved by the code of PUT store/v1/settings/<section>
with the same validation, errors beside the fields, nothing saved on a refusal."""
import re
from pathlib import Path

from .helpers import assert_page, login, token

ALL = {"storeplatform.plugins": "invoicing pricecalc events"}
FONTS = Path(__file__).parent.parent / "invoicing" / "fixtures"


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


def test_one_page_per_host_section_and_per_plugin(make_site):
    site, _ = logged_in(make_site, **ALL)
    res = site.app.get("/admin/settings", status=303)
    assert res.location == "http://localhost/admin/settings/general"
    general = assert_page(site.app.get("/admin/settings/general"), 200, "General settings")
    tabs = re.findall(r'<a href="http://localhost/admin/settings/([a-z_-]+)"', general.text)
    assert tabs == ["general", "mail", "security", "store", "events", "invoicing"]
    # Every field of the page, drawn from its type.
    assert 'name="site.title" value="Storeplatform Demo Store"' in general.text
    assert re.search(r'<select id="field-site-timezone" name="site.timezone"[^>]*>', general.text)
    assert '<option value="UTC" selected>UTC</option>' in general.text
    assert "events.permalink_base" not in general.text  # on the events plugin's page
    store = site.app.get("/admin/settings/store")
    assert re.search(r'<textarea id="field-store-address" name="store.address" rows="3"[^>]*>1 Example Street\n12345',
                     store.text)
    assert 'type="number" inputmode="numeric" value="2"' in store.text and 'min="0" max="4"' in store.text
    assert '<option value="left" selected>left</option>' in store.text
    # A plugin's options under its name, its sections as groups: no "REST API" without its plugin.
    events = assert_page(site.app.get("/admin/settings/events"), 200, "Events settings")
    assert "The options of the <strong>events</strong> plugin." in events.text
    assert re.findall(r"<legend>([^<]*)</legend>", events.text) == ["General", "Advanced"]
    assert 'name="events.permalink_base" value=""' in events.text and "Default: empty" in events.text
    assert re.search(r'name="events.rest_api_enabled" value="true"[^>]*checked>', events.text)
    assert "events.webhooks_enabled" not in events.text  # stored only, it does nothing: not shown
    invoicing = assert_page(site.app.get("/admin/settings/invoicing"), 200, "Invoicing settings")
    assert re.findall(r"<legend>([^<]*)</legend>", invoicing.text) == ["Invoicing", "Advanced"]
    assert re.search(r'type="checkbox" id="field-invoicing-rest_api_enabled" name="invoicing.rest_api_enabled" '
                     r'value="true" [^>]*>', invoicing.text)
    assert "checked" not in re.search(r'name="invoicing.rest_api_enabled" value="true"[^>]*>', invoicing.text).group()
    # Document statuses: a box per real order status that can make one, not free text.
    boxes = re.findall(r'name="invoicing.auto_statuses:([a-z-]+)" value="true"( checked)?>', invoicing.text)
    assert boxes == [("pending", ""), ("processing", " checked"), ("on-hold", ""), ("completed", " checked"),
                     ("refunded", " checked")]
    # The font: a choice among the fonts installed, never a path typed in.
    assert re.search(r'<select id="field-invoicing-font" name="invoicing.font"', invoicing.text)
    assert '<option value="" selected>None</option>' in invoicing.text
    assert "font_path" not in invoicing.text
    # A section's old address leads to the page that shows it now.
    assert site.app.get("/admin/settings/advanced", status=303).location == "http://localhost/admin/settings/events"
    assert_page(site.app.get("/admin/settings/nosuch", status=404), 404)
    assert_page(site.app.get("/admin/settings/Bad%20Name", status=404), 404)


def test_saving_a_page_is_the_rest_put(make_site):
    site, page = logged_in(make_site, **ALL)
    form = site.app.get("/admin/settings/invoicing").forms["settings-form"]
    # Each switch is a hidden "false" and a checkbox "true" after it (the last value counts).
    form.get("invoicing.rest_api_enabled", index=1).checked = True
    form["invoicing.auto_statuses:processing"].checked = False
    form["invoicing.auto_statuses:on-hold"].checked = True
    form["invoicing.number_padding"] = "7"
    res = form.submit(status=303)
    assert res.location == "http://localhost/admin/settings/invoicing"
    assert_page(res.follow(), 200, "Invoicing settings saved.")
    assert settings_json(site, "advanced")["invoicing.rest_api_enabled"] is True
    stored = settings_json(site, "invoicing")
    assert stored["invoicing.auto_statuses"] == ["on-hold", "completed", "refunded"]
    assert stored["invoicing.number_padding"] == 7
    # The switch works: the invoicing API answers now.
    assert site.app.get("/api/invoicing/v1/", headers=site.headers_for("administrator")).status_int == 200
    # No box checked is no status (no document is made automatically).
    form = site.app.get("/admin/settings/invoicing").forms["settings-form"]
    for status in ("on-hold", "completed", "refunded"):
        form[f"invoicing.auto_statuses:{status}"].checked = False
    form.submit(status=303)
    assert settings_json(site, "invoicing")["invoicing.auto_statuses"] == []
    form = site.app.get("/admin/settings/events").forms["settings-form"]
    form.get("events.rest_api_enabled", index=1).checked = False
    form.submit(status=303)
    assert settings_json(site, "advanced")["events.rest_api_enabled"] is False
    form = site.app.get("/admin/settings/store").forms["settings-form"]
    form["store.address"] = "2 Main Street\r\nVienna"
    form["store.decimals"] = "3"
    form["store.currency_position"] = "right_space"
    form.submit(status=303)
    stored = settings_json(site, "store")
    assert stored["store.address"] == "2 Main Street\nVienna" and stored["store.decimals"] == 3
    assert stored["store.currency_position"] == "right_space"


def test_the_font_is_one_of_the_fonts_installed(make_site):
    site, page = logged_in(make_site, **ALL, **{"invoicing.font_dirs": str(FONTS)})
    invoicing = site.app.get("/admin/settings/invoicing")
    options = re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>',
                         re.search(r'name="invoicing.font".*?</select>', invoicing.text, re.S).group())
    assert options == [("", "None"), ("wqy-microhei-subset.ttf", "wqy-microhei-subset.ttf")]
    form = invoicing.forms["settings-form"]
    form["invoicing.font"] = "wqy-microhei-subset.ttf"
    form.submit(status=303)
    assert settings_json(site, "invoicing")["invoicing.font"] == "wqy-microhei-subset.ttf"
    # A path, or a font that is not there: refused beside the field, in the admin and over REST.
    fields = dict(form.submit_fields())
    for bad in (str(FONTS / "wqy-microhei-subset.ttf"), "/etc/passwd", "../fixtures/wqy-microhei-subset.ttf"):
        res = assert_page(site.app.post("/admin/settings/invoicing", {**fields, "invoicing.font": bad}, status=400),
                          400, "Nothing was saved")
        assert field_error(res, "invoicing.font") == "invoicing.font must be empty or one of wqy-microhei-subset.ttf"
        res = site.app.put_json("/api/store/v1/settings/invoicing", {"invoicing.font": bad},
                                headers=site.headers_for("administrator"), status=400)
        assert res.json["code"] == "rest_invalid_param" and "invoicing.font" in res.json["data"]["params"]
    assert settings_json(site, "invoicing")["invoicing.font"] == "wqy-microhei-subset.ttf"
    rows = site.app.get("/api/store/v1/settings/invoicing", headers=site.headers_for("administrator")).json
    font = next(row for row in rows if row["id"] == "invoicing.font")
    assert font["choices"] == ["", "wqy-microhei-subset.ttf"] and font["group"] == "invoicing"


def test_rest_takes_the_same_choices(make_site):
    site, _ = logged_in(make_site, **ALL)
    admin = site.headers_for("administrator")
    put = site.app.put_json
    for bad in (["cancelled"], ["completed", "shipped"], "completed failed", 3, [1], {"a": 1}):
        res = put("/api/store/v1/settings/invoicing", {"invoicing.auto_statuses": bad}, headers=admin, status=400)
        assert list(res.json["data"]["params"]) == ["invoicing.auto_statuses"]
    res = put("/api/store/v1/settings/invoicing", {"invoicing.auto_statuses": ["refunded", "completed", "completed"]},
              headers=admin)
    assert {row["id"]: row["value"] for row in res.json}["invoicing.auto_statuses"] == ["completed", "refunded"]
    put("/api/store/v1/settings/invoicing", {"invoicing.auto_statuses": "processing, completed"}, headers=admin)
    assert settings_json(site, "invoicing")["invoicing.auto_statuses"] == ["processing", "completed"]
    rows = {row["id"]: row for row in site.app.get("/api/store/v1/settings", headers=admin).json["sections"]["advanced"]}
    # The contract's stored-only switch stays for REST clients, named with its plugin's page.
    assert rows["events.webhooks_enabled"]["group"] == "events" and rows["invoicing.rest_api_enabled"]["group"] == "invoicing"
    put("/api/store/v1/settings/advanced", {"events.webhooks_enabled": False}, headers=admin)
    assert settings_json(site, "advanced")["events.webhooks_enabled"] is False


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
    # A bool that is neither true nor false, a status that is no choice, an unknown page,
    # unknown fields ignored.
    res = site.app.post("/admin/settings/events", {"events.rest_api_enabled": "maybe", "csrf_token": good},
                        status=400)
    assert field_error(res, "events.rest_api_enabled") == "events.rest_api_enabled must be true or false"
    res = site.app.post("/admin/settings/invoicing", {"invoicing.auto_statuses": "", "invoicing.auto_statuses:failed": "true",
                                                      "csrf_token": good}, status=400)
    assert field_error(res, "invoicing.auto_statuses").startswith("invoicing.auto_statuses: failed not one of pending")
    # The hidden switch is not a field of any page: ignored as any unknown field.
    site.app.post("/admin/settings/events", {"events.webhooks_enabled": "false", "csrf_token": good}, status=303)
    assert settings_json(site, "advanced")["events.webhooks_enabled"] is True
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
