"""Browser tests of the admin: the test site's WSGI app served over real HTTP on 127.0.0.1, a
real Chromium (Debian's, driven by Playwright for Python; never a downloaded browser), login as
a demo-like user and screenshots at phone and desktop width."""
import contextlib
import tempfile
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync")
WIDTHS = {"phone": (390, 844), "desktop": (1280, 800)}
DEMO_PASSWORD = "demo-password"


def live_server(wsgi_app, threads=4):
    """Serve ``wsgi_app`` on a free port of 127.0.0.1 for the block (our waitress runner's
    server); yields its base URL."""
    from .testing import served_over_http

    return served_over_http(wsgi_app, threads=str(threads), ident="storeplatform-test")


@contextlib.contextmanager
def launch_chromium(*extra_args, viewport=WIDTHS["desktop"], **options):
    """A fresh Chromium (its own empty profile) for the block; yields a Playwright
    ``BrowserContext``. ``extra_args``: more command-line switches, e.g. the fake camera's
    ``--use-fake-device-for-media-stream``, ``--use-file-for-fake-video-capture=<file.y4m>`` and
    ``--use-fake-ui-for-media-stream``; ``options``: more ``launch_persistent_context`` keywords."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="sp-chromium-") as profile, sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=[*CHROMIUM_ARGS, *extra_args],
            viewport={"width": viewport[0], "height": viewport[1]}, **options)
        context.set_default_timeout(20_000)
        try:
            yield context
        finally:
            context.close()


class AdminBrowser:
    """One browser page on the live site: ``login``, ``goto``, ``screenshot``, ``logout``.
    ``page`` is the Playwright page for everything else."""

    def __init__(self, context, base_url, site, screenshots):
        self.context = context
        self.page = context.pages[0] if context.pages else context.new_page()
        self.base_url = base_url
        self.site = site
        self.screenshots = Path(screenshots)
        # What the admin's Content-Security-Policy refused: checked at every screenshot, so
        # that an inline script or style that a page grows fails its browser test.
        self.refused = []
        self.page.on("console", self._console)

    def _console(self, message):
        if message.type == "error" and "Content Security Policy" in message.text:
            self.refused.append(message.text)

    def url(self, path):
        return self.base_url + path

    def goto(self, path):
        return self.page.goto(self.url(path))

    def user(self, login, role=None, password=DEMO_PASSWORD):
        """Make a user as the demo data has them (the login is the role unless given) once."""
        role = role or login
        with self.site.session() as s:
            from sqlalchemy import select

            from .components.shop.models import User

            exists = s.execute(select(User.id).where(User.login == login)).first()
        if not exists:
            self.site.create_user(login, role, password=password)
        return login

    def login(self, login, role=None, password=DEMO_PASSWORD):
        """Log in through the login page (the user is made first when missing); lands on the
        dashboard, or the page the login was asked for."""
        self.user(login, role, password)
        if "/admin/login" not in self.page.url:
            self.goto("/admin/login")
        self.page.fill("input[name=login]", login)
        self.page.fill("input[name=password]", password)
        with self.page.expect_navigation():
            self.page.click("#login-form button[type=submit]")
        return self.page

    def logout(self):
        if self.page.is_visible(".menu summary"):  # a phone's menu; from 960px the side column shows it
            self.page.click(".menu summary")
        with self.page.expect_navigation():
            self.page.click(".logout button")

    def screenshot(self, name):
        """Save the current page at phone and desktop width as
        ``<screenshots>/<name>-<width>.png`` (the whole page); returns the paths. Fails when the page broke the admin's CSP."""
        assert not self.refused, f"the page broke the Content-Security-Policy: {self.refused}"
        self.screenshots.mkdir(parents=True, exist_ok=True)
        paths = []
        for width, (w, h) in WIDTHS.items():
            self.page.set_viewport_size({"width": w, "height": h})
            path = self.screenshots / f"{name}-{width}.png"
            self.page.screenshot(path=str(path), full_page=True)
            paths.append(path)
        self.page.set_viewport_size({"width": WIDTHS["desktop"][0], "height": WIDTHS["desktop"][1]})
        return paths
