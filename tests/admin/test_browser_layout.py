"""The admin's layout in a real Chromium: from 960px a side navigation that stays (in sections,
the current page marked, the user and log out at its foot) and content that uses the width; on a
phone the same navigation behind "Menu"; the shared list styles at both widths."""
from storeplatform.testing_browser import WIDTHS

from .showcase_plugin import ShowcasePlugin

PHONE = {"width": WIDTHS["phone"][0], "height": WIDTHS["phone"][1]}
DESKTOP = {"width": WIDTHS["desktop"][0], "height": WIDTHS["desktop"][1]}


def box(page, selector):
    return page.locator(selector).first.bounding_box()


def test_side_navigation_on_a_desktop_and_the_menu_on_a_phone(make_site, browse):
    site = make_site(plugins=[ShowcasePlugin()], **{"storeplatform.plugins": "invoicing events"})
    browser = browse(site)
    page = browser.page
    browser.login("admin", "administrator")
    browser.goto("/admin/")
    browser.screenshot("layout-dashboard")
    # Desktop: the navigation is a column on the left, always there; no "Menu" toggle.
    assert not page.is_visible(".menu summary")
    assert page.is_visible(".menu nav >> text=Sample orders") and page.is_visible(".logout button")
    side, main = box(page, ".menu .panel"), box(page, "main")
    assert side["x"] == 0 and side["width"] < 300 and main["x"] >= side["width"]
    assert main["width"] > 900  # the content takes the rest of the width, not a narrow column
    # Sections in the order of their first page; pages without one last, under "More".
    headings = page.locator(".nav-heading").all_text_contents()
    assert [h for h in headings if h in ("Shop", "Events", "Site")] == ["Shop", "Events", "Site"]
    assert headings[-1] == "More" and "Your profile" in page.locator(".nav-section >> nth=-1 >> a").all_inner_texts()
    shop = page.locator(".nav-section:has(.nav-heading:text-is('Shop')) a").all_inner_texts()
    assert shop.index("Sample orders") < shop.index("Sample products")
    events = page.locator(".nav-section:has(.nav-heading:text-is('Events')) a").all_inner_texts()
    assert events.index("Sample events") < events.index("Sample attendees")
    assert "Settings" in page.locator(".nav-section:has(.nav-heading:text-is('Site')) a").all_inner_texts()
    with page.expect_navigation():
        page.click(".menu nav >> text=Sample orders")
    assert page.get_attribute(".menu nav a[aria-current=page]", "href") == browser.url("/admin/showcase/orders")
    browser.screenshot("layout-list")
    # The shared styles on a desktop: a row's four actions on two lines at most (not a column),
    # none pushed out of sight; numbers right-aligned.
    row = box(page, "#showcase-table tbody tr")
    assert row["height"] < 90, row
    assert page.evaluate("document.querySelector('.table-wrap').scrollWidth <= "
                         "document.querySelector('.table-wrap').clientWidth")
    total = page.locator("#showcase-table tbody tr >> nth=0 >> td.num >> nth=1")
    assert total.evaluate("td => getComputedStyle(td).textAlign") == "right"
    filters = [box(page, s) for s in ("#f-search", "#f-status", "#showcase-filters button")]
    middles = [b["y"] + b["height"] / 2 for b in filters]
    assert max(middles) - min(middles) < 4  # one row
    assert page.is_visible("#error-f-from")

    # Phone: the navigation is hidden behind "Menu"; the table rows are cards.
    page.set_viewport_size(PHONE)
    assert page.is_visible(".menu summary") and not page.is_visible(".menu nav >> text=Sample orders")
    assert not page.is_visible("#showcase-table thead")
    card = box(page, "#showcase-table tbody tr")
    assert card["width"] <= WIDTHS["phone"][0]
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTHS["phone"][0]  # nothing sideways
    page.click(".menu summary")
    assert page.is_visible(".menu nav >> text=Sample orders") and page.is_visible(".logout button")
    page.screenshot(path=str(browser.screenshots / "layout-menu-open-phone.png"), full_page=False)
    with page.expect_navigation():
        page.click(".menu nav >> text=Sample products")
    assert not page.is_visible(".menu nav >> text=Sample orders")  # a new page: the menu is closed again
    # Back to a desktop: log out from the side column.
    page.set_viewport_size(DESKTOP)
    browser.logout()
    assert page.url == browser.url("/admin/login")
    assert not page.is_visible(".menu")  # no navigation for someone not logged in
    browser.screenshot("layout-login")


def test_a_user_with_few_pages_sees_only_theirs(make_site, browse):
    site = make_site(plugins=[ShowcasePlugin()])
    browser = browse(site)
    page = browser.page
    browser.login("writer", "author")
    browser.goto("/admin/")
    assert page.locator(".menu nav a").all_inner_texts() == ["Your profile"]
    assert page.locator(".nav-heading").all_text_contents() == []
    browser.screenshot("layout-author")


def test_no_empty_side_column_for_a_user_without_pages(make_site, browse):
    site = make_site()
    browser = browse(site)
    page = browser.page
    browser.login("zoe", "customer")
    browser.goto("/admin/")
    assert page.inner_text("h1") == "Forbidden"
    # Nothing to list: the bar keeps its "Menu" (log out) at desktop width too, the page the width.
    assert page.is_visible(".menu summary") and not page.is_visible(".menu .panel")
    main = box(page, "main")
    assert abs(main["x"] - (WIDTHS["desktop"][0] - main["x"] - main["width"])) < 20  # centred, no empty column
    browser.screenshot("layout-no-pages")
    browser.logout()
    assert page.url == browser.url("/admin/login")
