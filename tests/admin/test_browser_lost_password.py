"""A lost password in a real Chromium (#41): the login page's link, the request with an e-mail
address, the message received by a real SMTP server on 127.0.0.1 (aiosmtpd), its link opened in
the browser, a new password set and used to log in; the link is spent afterwards. On SQLite and
on PostgreSQL + Redis (marker ``both_backends``)."""
import re

import pytest
from playwright.sync_api import expect

from host.mail_servers import SmtpServer

pytestmark = pytest.mark.both_backends

OLD, NEW = "forgotten-password-1", "remembered-password-2"


def submit(page, selector):
    with page.expect_navigation():
        page.click(selector)


def test_a_lost_password_is_set_again_from_the_mails_link(make_site, browse, tmp_path):
    with SmtpServer() as smtp:
        site = make_site(**{"mail.url": smtp.url(), "mail.directory": str(tmp_path / "mail")})
        site.create_user("anna", "shop_manager", password=OLD, email="anna@example.com")
        browser = browse(site)
        site.set_option("site.url", browser.base_url)  # the links a mail carries name the site's address
        page = browser.page

        browser.goto("/admin/login")
        submit(page, "#lost-password")
        assert page.inner_text("h1") == "Lost password"
        page.fill("input[name=login]", "anna@example.com")
        browser.screenshot("lost-password-form")
        submit(page, "#lost-password-form button[type=submit]")
        expect(page.locator("#lost-password-sent")).to_contain_text("If an account matches")
        browser.screenshot("lost-password-sent")

        [message] = smtp.keeper.messages()
        assert message["To"] == "Anna <anna@example.com>"
        link = re.search(r"https?://\S+/admin/reset-password\?key=\S+", message.get_body(("plain",)).get_content())
        page.goto(link.group(0))
        assert page.inner_text("h1") == "Set a new password"
        assert page.inner_text("#reset-login") == "anna"
        page.fill("input[name=password]", NEW)
        page.fill("input[name=password_again]", NEW)
        browser.screenshot("lost-password-reset")
        submit(page, "#reset-password-form button[type=submit]")
        assert "/admin/login" in page.url
        expect(page.locator("#login-reset")).to_have_text("Your password has been set: log in with it.")

        browser.login("anna", password=NEW)
        assert page.locator(".menu").count() == 1  # in the admin
        browser.logout()

        page.goto(link.group(0))  # used once
        expect(page.locator("#reset-error")).to_contain_text("This link is not valid")
        browser.screenshot("lost-password-spent")
