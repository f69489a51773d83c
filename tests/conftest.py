"""Fixtures shared by every test: one fresh database per test run, emptied between tests."""
import gc
import os
import sys
from pathlib import Path

import pytest

# The test plugins (tests/testplugin) are installed apart from the environment that `dev.py
# serve` runs, in its folder `test-plugins` (dev.py's TEST_PLUGINS): this test run and every
# command it starts (their environment is a copy of this one) find them there.
TEST_PLUGINS = Path(sys.prefix) / "test-plugins"
if not TEST_PLUGINS.is_dir():
    sys.exit(f"The test plugins are not installed in {TEST_PLUGINS}: run python3 dev.py test "
             "(or python3 -c 'import dev; dev.install(test=True)').")
if str(TEST_PLUGINS) not in sys.path:
    sys.path.insert(0, str(TEST_PLUGINS))
_others = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(TEST_PLUGINS)]
os.environ["PYTHONPATH"] = os.pathsep.join([str(TEST_PLUGINS), *_others])

from storeplatform.core.plugins import available_plugins
from storeplatform.testing import Site, TestDatabase


def pytest_collection_modifyitems(config, items):
    # Tests in a real Chromium carry the marker ``browser`` (.ci/run runs them on SQLite only, but
    # those marked ``both_backends``).
    for item in items:
        if "browse" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


def pytest_collection_finish(session):
    """The garbage collector of a test process: what is loaded by now (the modules, the tests)
    lives to the end, so it leaves the collector's count (``gc.freeze``), and the youngest
    generation is collected every 10,000 allocations instead of 700. Each test builds a site
    (a Pyramid configuration: some 10^5 objects, many in cycles), which at the default made the
    collector run over the whole heap again and again: measured on tests/events/test_lists.py and
    tests/pricecalc/test_configuration.py, 26 s of CPU before, 18 s after, 17 MB more memory."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


@pytest.fixture(scope="session")
def database(tmp_path_factory):
    db = TestDatabase(tmp_path_factory.mktemp("db"))
    # Every installed plugin's tables exist; each test enables the plugins it needs.
    # SP_TEST_MIGRATE_PLUGINS narrows that while a plugin is being developed.
    plugins = os.environ.get("SP_TEST_MIGRATE_PLUGINS") or " ".join(sorted(set(available_plugins()) - {"broken"}))
    db.migrate(plugins)
    yield db
    db.drop()


@pytest.fixture
def make_site(database, tmp_path, request):
    """``make_site(plugins=(), **settings)``: a Site on the test database, with the plugin
    objects ``plugins`` registered beside the settings' ones; the database is empty at the
    start of each test. Served over HTTP (``STOREPLATFORM_TEST_SERVED``), the sites of the tests
    that set what only the transport sets (marker ``in_process``) stay in-process: over a plain
    socket from 127.0.0.1 there is no TLS connection and no other client address to give them."""
    sites = []
    cleaned = []
    served = request.node.get_closest_marker("in_process") is None

    def factory(plugins=(), **settings):
        site = Site(database.settings(**settings), plugins, served=served)
        if not cleaned:
            database.clean(site.engine)
            cleaned.append(True)
        sites.append(site)
        return site

    yield factory
    for site in sites:
        site.close()


@pytest.fixture
def site(make_site):
    """The host alone, no plugins."""
    return make_site()


# Screenshots of the admin pages, saved by every run for a reviewer to look at.
ADMIN_SCREENSHOTS = Path(__file__).resolve().parents[1] / "var" / "admin-screenshots"


@pytest.fixture
def browse():
    """``browse(site, *chromium_args)``: a real Chromium on the site's WSGI app served over HTTP
    on 127.0.0.1, as an ``AdminBrowser`` (``login``, ``goto``, ``screenshot``, ``logout``,
    ``page``); the site's settings decide the database and the queue. Closed after the test."""
    import contextlib

    from storeplatform.testing_browser import AdminBrowser, launch_chromium, live_server

    stack = contextlib.ExitStack()

    def factory(site, *chromium_args):
        base_url = stack.enter_context(live_server(site.wsgi))
        context = stack.enter_context(launch_chromium(*chromium_args))
        return AdminBrowser(context, base_url, site, ADMIN_SCREENSHOTS)

    with stack:
        yield factory
