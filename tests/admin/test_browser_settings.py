"""Settings in a real Chromium: change a setting, see it through REST; a refused value."""
ALL = {"storeplatform.plugins": "invoicing pricecalc events"}


def rest_settings(site, section):
    rows = site.app.get(f"/api/store/v1/settings/{section}", headers=site.headers_for("administrator")).json
    return {row["id"]: row["value"] for row in rows}


def test_change_settings_and_read_them_back_through_rest(make_site, browse):
    site = make_site(**ALL)
    browser = browse(site)
    page = browser.page
    browser.login("admin", "administrator")
    browser.goto("/admin/")
    with page.expect_navigation():
        page.click(".cards >> text=Settings")
    assert page.url == browser.url("/admin/settings/general")
    for section in ("general", "invoicing", "security", "store", "advanced"):
        browser.goto(f"/admin/settings/{section}")
        browser.screenshot(f"settings-{section}")
    # The invoicing REST API switch of the advanced section, and the site time zone.
    browser.goto("/admin/settings/advanced")
    page.check("#field-invoicing-rest_api_enabled")
    page.uncheck("#field-events-webhooks_enabled")
    with page.expect_navigation():
        page.click("#settings-form button[type=submit]")
    assert page.inner_text("p.notice") == "Advanced settings saved."
    assert page.is_checked("#field-invoicing-rest_api_enabled")
    assert rest_settings(site, "advanced") == {"invoicing.rest_api_enabled": True, "events.rest_api_enabled": True,
                                               "events.webhooks_enabled": False}
    browser.goto("/admin/settings/general")
    page.select_option("#field-site-timezone", "Europe/Vienna")
    page.fill("#field-site-title", "Wiener Laden")
    with page.expect_navigation():
        page.click("#settings-form button[type=submit]")
    general = rest_settings(site, "general")
    assert general["site.timezone"] == "Europe/Vienna" and general["site.title"] == "Wiener Laden"
    # A refused value: the error beside its field, nothing saved.
    browser.goto("/admin/settings/store")
    page.fill("#field-store-name", "Other name")
    page.fill("#field-store-decimals", "12")
    with page.expect_navigation():
        page.click("#settings-form button[type=submit]")
    assert page.inner_text("#error-field-store-decimals") == "store.decimals must be between 0 and 4"
    assert page.input_value("#field-store-name") == "Other name"
    browser.screenshot("settings-refused")
    assert rest_settings(site, "store")["store.name"] == "Storeplatform Demo Store"
