"""Settings in a real Chromium: one page per host section and per plugin, change settings and see
them through REST, a refused value beside its field; every page at phone and desktop width."""
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
        page.click(".menu nav >> text=Settings")  # the side navigation at desktop width
    assert page.url == browser.url("/admin/settings/general")
    assert page.locator(".tabs a").all_inner_texts() == ["General", "Mail", "Security", "Store", "Events",
                                                         "Invoicing"]
    for group in ("general", "mail", "security", "store", "events", "invoicing"):
        browser.goto(f"/admin/settings/{group}")
        browser.screenshot(f"settings-{group}")
    # The invoicing plugin's page: its REST API switch under "Advanced", the statuses that make
    # a document as boxes, the font as a choice.
    browser.goto("/admin/settings/invoicing")
    assert page.inner_text("#settings-plugin") == "The options of the invoicing plugin."
    assert page.locator("fieldset.settings-section > legend").all_inner_texts() == ["Invoicing", "Advanced"]
    assert page.locator("#field-invoicing-auto_statuses label").all_inner_texts() == \
        ["pending", "processing", "on-hold", "completed", "refunded"]
    page.check("#field-invoicing-rest_api_enabled")
    page.uncheck("#field-invoicing-auto_statuses-processing")
    page.check("#field-invoicing-auto_statuses-on-hold")
    assert page.locator("#field-invoicing-font option").all_inner_texts()[0] == "None"
    with page.expect_navigation():
        page.click("#settings-form button[type=submit]")
    assert page.inner_text("p.notice") == "Invoicing settings saved."
    assert page.is_checked("#field-invoicing-rest_api_enabled")
    assert rest_settings(site, "advanced")["invoicing.rest_api_enabled"] is True
    assert rest_settings(site, "invoicing")["invoicing.auto_statuses"] == ["on-hold", "completed", "refunded"]
    # The events plugin's page: no switch that does nothing.
    browser.goto("/admin/settings/events")
    assert page.locator("[data-key]").evaluate_all("nodes => nodes.map(n => n.dataset.key)") == \
        ["events.permalink_base", "events.ticket_mail_enabled", "events.rest_api_enabled"]
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
    # On a phone: the same page, the navigation behind "Menu".
    page.set_viewport_size({"width": 390, "height": 844})
    browser.goto("/admin/settings/invoicing")
    page.click(".menu summary")
    assert page.is_visible(".menu nav a[aria-current=page]")
    page.screenshot(path=str(browser.screenshots / "settings-menu-open-phone.png"))
