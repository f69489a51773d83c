"""The Users screen of #43 part 4 in a real Chromium (no script of the page's own: links,
forms and a button's formaction): the users of each role as links that filter, a column
sorted by a click, users deleted and given a role in bulk after a confirmation, the last
administrator refusing the whole action, and a consumer key revoked on its user's page and
refused at the next REST request. On SQLite and on PostgreSQL + Redis (marker
``both_backends``: the issue asks for both)."""
import base64

import pytest
from sqlalchemy import select

from storeplatform.api import hookimpl
from storeplatform.components.shop.models import Post, User

pytestmark = pytest.mark.both_backends

ME = "/api/store/v1/users/me"


class UserAdmins:
    @hookimpl
    def storeplatform_role_capabilities(self):
        return {"user_admin": {"read", "edit_posts", "list_users", "edit_users", "promote_users", "delete_users"}}


def roles(site):
    with site.session() as s:
        return dict(s.execute(select(User.login, User.role)).all())


def test_count_filter_sort_and_bulk_delete_and_role_change_after_a_confirmation(make_site, browse):
    site = make_site()
    for name, role in (("ann", "customer"), ("bob", "customer"), ("cy", "customer"), ("ed", "editor")):
        site.create_user(name, role, email=f"{name[::-1]}@shop.example")
    with site.session() as s:
        bob = s.execute(select(User.id).where(User.login == "bob")).scalar_one()
        s.add(Post(post_type="post", title="Bob's", author_id=bob))
    browser = browse(site)
    page = browser.page
    browser.login("admin", "administrator")
    browser.goto("/admin/users")
    assert page.locator("#users-roles a").all_inner_texts() == ["All (5)", "administrator (1)", "editor (1)",
                                                                "customer (3)"]
    with page.expect_navigation():
        page.click("#users-roles a[data-role=customer]")
    logins = page.locator("#users tbody td[data-label=Login] a")
    assert sorted(logins.all_inner_texts()) == ["ann", "bob", "cy"]
    with page.expect_navigation():
        page.click("#users thead a[data-sort=email]")
    # By e-mail: bob@, nna@, yc@ (the logins reversed).
    assert logins.all_inner_texts() == ["bob", "ann", "cy"]
    assert page.get_attribute("#users thead th:has(a[data-sort=email])", "aria-sort") == "ascending"
    browser.screenshot("users-by-role")

    for name in ("ann", "bob"):
        page.check(f"#users input[aria-label='Select {name}']")
    with page.expect_navigation():
        page.click("#users-bulk-delete")
    assert "/admin/users/bulk-delete" in page.url
    assert page.inner_text("#bulk-summary") == "Delete for good: 2 users will be deleted. Nothing has changed yet."
    assert page.locator("#bulk-rows tbody tr td[data-label='Will be']").all_inner_texts() == [
        "deleted (0 posts, 0 orders)", "deleted (1 post, 0 orders)"]
    assert sorted(roles(site)) == ["admin", "ann", "bob", "cy", "ed"]  # nothing yet
    page.select_option("#bulk-reassign", label="ed")
    browser.screenshot("users-bulk-delete-confirm")
    with page.expect_navigation():
        page.click("#bulk-confirm button:text('Confirm')")
    assert page.inner_text(".notice") == ("2 users deleted: ann, bob; 1 post given to ed, "
                                          "0 orders kept as guest orders.")
    assert "orderby=email" in page.url and "role=customer" in page.url  # back to the list it came from
    assert logins.all_inner_texts() == ["cy"]
    assert page.locator("#users-roles a").all_inner_texts() == ["All (3)", "administrator (1)", "editor (1)",
                                                                "customer (1)"]
    assert sorted(roles(site)) == ["admin", "cy", "ed"]

    browser.goto("/admin/users")
    page.check("#users input[aria-label='Select cy']")
    page.check("#users input[aria-label='Select admin']")
    page.select_option("#users-bulk select[name=role]", "author")
    with page.expect_navigation():
        page.click("#users-bulk-role")
    assert page.locator("#bulk-rows tbody tr td[data-label='Will be']").all_inner_texts() == [
        "author", "refused: your own role is not changed here"]  # cy, admin (by id)
    with page.expect_navigation():
        page.click("#bulk-confirm button:text('Confirm')")
    assert page.inner_text(".notice") == "1 user changed to author; 1 refused: admin: your own role is not changed here."
    assert roles(site) == {"admin": "administrator", "cy": "author", "ed": "editor"}
    browser.screenshot("users-bulk-role-done")


def test_the_last_administrator_refuses_the_whole_bulk_action(make_site, browse):
    site = make_site(plugins=[UserAdmins()])
    site.create_user("root", "administrator")
    site.create_user("ann", "customer")
    browser = browse(site)
    page = browser.page
    browser.login("keeper", "user_admin")
    browser.goto("/admin/users")
    page.check("#users input[aria-label='Select root']")
    page.check("#users input[aria-label='Select ann']")
    with page.expect_navigation() as navigation:
        page.click("#users-bulk-delete")
    assert navigation.value.status == 409
    assert page.inner_text("#bulk-problem") == (
        "Nothing was changed: The site's last active administrator cannot be demoted, disabled or deleted. "
        "root is every active administrator the site has.")
    assert page.is_disabled("#bulk-confirm button:text('Confirm')")
    browser.screenshot("users-bulk-last-administrator")
    with page.expect_navigation():
        page.click("#bulk-confirm a:text('Cancel')")
    assert roles(site) == {"root": "administrator", "ann": "customer", "keeper": "user_admin"}


def test_a_consumer_key_is_revoked_on_its_users_page(make_site, browse):
    site = make_site()
    ann = site.create_user("ann", "shop_manager")
    key, secret = site.consumer_key("ann")
    other, _ = site.consumer_key("ann", "read")
    basic = {"Authorization": "Basic " + base64.b64encode(f"{key}:{secret}".encode()).decode()}
    assert site.app.get(ME, headers=basic).json["login"] == "ann"
    browser = browse(site)
    page = browser.page
    browser.login("admin", "administrator")
    browser.goto(f"/admin/users/{ann}")
    assert page.locator("#consumer-keys td[data-label=Key]").all_inner_texts() == [f"ck_…{key[-7:]}",
                                                                                  f"ck_…{other[-7:]}"]
    browser.screenshot("users-consumer-keys")
    with page.expect_navigation():
        page.click(f"#consumer-keys button[aria-label='Revoke ck_…{key[-7:]}']")
    assert page.inner_text(".notice") == f"The consumer key ck_…{key[-7:]} is revoked: requests made with it are refused."
    assert page.locator("#consumer-keys td[data-label=Key]").all_inner_texts() == [f"ck_…{other[-7:]}"]
    assert site.app.get(ME, headers=basic, status=401).json["code"] == "rest_authentication_failed"
