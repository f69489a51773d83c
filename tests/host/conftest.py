"""Fixtures of the host's tests."""
import pytest

from storeplatform.testing import run_cli


@pytest.fixture
def cli(make_site, database, tmp_path):
    """``cli(*args, ok=True, stdin="")``: a ``storeplatform -c site.ini`` command run in-process
    on the test's site (``cli.site``); asserts exit status 0 unless ``ok=False``."""
    site = make_site(**{"storeplatform.plugins": "thirdparty"})
    ini = tmp_path / "site.ini"
    ini.write_text(f"""[app:main]
use = egg:storeplatform
sqlalchemy.url = {database.url}
huey.url = memory://
storeplatform.plugins = thirdparty
storeplatform.secret = {database.secret}
storeplatform.allow_http_consumer_keys = true
""")

    def run(*args, ok=True, ini_path=ini, stdin=""):
        proc = run_cli("-c", str(ini_path), *args, stdin=stdin)
        if ok:
            assert proc.returncode == 0, proc.stderr
        return proc

    run.site = site
    run.ini = ini
    return run
