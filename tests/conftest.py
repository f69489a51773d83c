"""Fixtures shared by every test: one fresh database per test run, emptied between tests."""
import os

import pytest

from storeplatform.plugins import available_plugins
from storeplatform.testing import Site, TestDatabase


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
def make_site(database, tmp_path):
    """``make_site(plugins=(), **settings)``: a Site on the test database, with the plugin
    objects ``plugins`` registered beside the settings' ones; the database is empty at the
    start of each test."""
    sites = []
    cleaned = []

    def factory(plugins=(), **settings):
        site = Site(database.settings(**settings), plugins)
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
