"""The command line on an ini file, its commands run in-process (``run_cli``); the tests that
are about the process itself (exit status of the real program, logging) start it as a subprocess."""
import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest

from storeplatform.testing import assert_error, cli_environ

TOOL = str(Path(sys.executable).with_name("storeplatform"))


def one_line_error(proc):
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert proc.stdout == ""
    return lines[0]


def test_user_create_and_app_password(cli):
    assert cli("user", "create", "alice", "--role", "shop_manager", "--email", "a@example.com").stdout.strip().isdigit()
    password = cli("user", "app-password", "alice", "--name", "ci").stdout.strip()
    assert len(password.replace(" ", "")) == 24
    auth = base64.b64encode(f"alice:{password}".encode()).decode()
    me = cli.site.app.get("/api/store/v1/users/me", headers={"Authorization": "Basic " + auth}).json
    assert me["login"] == "alice" and me["email"] == "a@example.com" and "manage_shop" in me["capabilities"]


def test_consumer_key_create(cli):
    cli("user", "create", "shop", "--role", "shop_manager")
    line = cli("consumer-key", "create", "shop", "--permissions", "read").stdout.strip()
    key, secret = line.split(" ")
    assert key.startswith("ck_") and secret.startswith("cs_")
    auth = {"Authorization": "Basic " + base64.b64encode(f"{key}:{secret}".encode()).decode()}
    assert cli.site.app.get("/api/store/v1/orders", headers=auth).json == []
    assert_error(cli.site.app.post_json("/api/store/v1/products", {"name": "x"}, headers=auth, status=403), 403,
                 "rest_consumer_key_permissions")


def test_consumer_key_list_names_basic_only_keys(cli):
    """Keys from before sp0006 have no sealed secret: Basic only, and the CLI says so."""
    from sqlalchemy import update

    from storeplatform.components.shop.models import ConsumerKey

    cli("user", "create", "shop", "--role", "shop_manager")
    cli("user", "create", "ann", "--role", "customer")
    old_key = cli("consumer-key", "create", "shop", "--description", "old  app").stdout.split()[0]
    with cli.site.session() as s:
        s.execute(update(ConsumerKey).values(secret_sealed=None))
    created = cli("consumer-key", "create", "shop", "--permissions", "read")
    new_key = created.stdout.split()[0]
    assert len(created.stdout.strip().splitlines()) == 1  # still only "ck_… cs_…" on stdout
    assert created.stderr.startswith("note: shop has 1 older consumer key(s) that are Basic-only")
    assert cli("consumer-key", "create", "ann").stderr == ""  # ann has no old keys
    lines = cli("consumer-key", "list").stdout.splitlines()
    assert lines[0].split() == ["ID", "USER", "KEY", "PERMISSIONS", "USE", "DESCRIPTION"]
    assert len(lines) == 4
    assert f"ck_...{old_key[-7:]}" in lines[1] and "Basic only (issued before secrets were kept" in lines[1]
    assert lines[1].endswith("old app")
    assert f"ck_...{new_key[-7:]}" in lines[2] and "read " in lines[2] and "Basic and signed requests" in lines[2]
    assert lines[2].endswith("-")
    only_ann = cli("consumer-key", "list", "ann").stdout.splitlines()
    assert len(only_ann) == 2 and " ann " in only_ann[1]
    assert "no user" in one_line_error(cli("consumer-key", "list", "ghost", ok=False))


def test_user_create_with_password_allows_login(cli):
    cli("user", "create", "bob", "--role", "editor", "--password", "s3cret!")
    res = cli.site.app.post_json("/api/store/v1/auth/login", {"login": "bob", "password": "s3cret!"})
    assert res.json["user"]["role"] == "editor"


def test_options(cli):
    assert cli("option", "get", "site.timezone").stdout.strip() == "UTC"
    assert cli("option", "set", "site.timezone", "Europe/Warsaw").stdout.strip() == "Europe/Warsaw"
    assert cli("option", "get", "site.timezone").stdout.strip() == "Europe/Warsaw"
    assert cli("option", "set", "store.decimals", "3").stdout.strip() == "3"
    assert cli("option", "get", "store.decimals").stdout.strip() == "3"
    # set prints what get prints (JSON for anything but text), whatever word was given
    ini = cli.ini.with_name("invoicing.ini")
    ini.write_text(cli.ini.read_text().replace("plugins = thirdparty", "plugins = thirdparty invoicing"))
    assert cli("option", "set", "invoicing.rest_api_enabled", "yes", ini_path=ini).stdout == "true\n"
    assert cli("option", "get", "invoicing.rest_api_enabled", ini_path=ini).stdout == "true\n"


@pytest.mark.parametrize("args,needle", [
    (["option", "set", "site.timezone", "Mars/Olympus"], "time zone"),
    (["option", "set", "store.decimals", "many"], "integer"),
    (["option", "get", "no.such"], "unknown option"),
    (["user", "create", "zed", "--role", "emperor"], "unknown role"),
    (["user", "create", "zed"], "--role"),
    (["user", "app-password", "ghost"], "no user"),
    (["consumer-key", "create", "ghost"], "no user"),
    (["consumer-key", "create", "x", "--permissions", "all"], "invalid choice"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_arguments_give_one_clear_line(cli, args, needle):
    line = one_line_error(cli(*args, ok=False))
    assert needle in line and line.startswith("storeplatform")


def test_duplicate_user_is_refused(cli):
    cli("user", "create", "amy", "--role", "editor")
    assert "already exists" in one_line_error(cli("user", "create", "amy", "--role", "editor", ok=False))
    assert "already exists" in one_line_error(cli("user", "create", "AMY", "--role", "editor", ok=False))  # #43


def test_missing_ini_and_unknown_plugin(cli, tmp_path):
    assert "config file not found" in one_line_error(cli("migrate", ok=False, ini_path=tmp_path / "nope.ini"))
    bad = tmp_path / "bad.ini"
    bad.write_text(cli.ini.read_text().replace("storeplatform.plugins = thirdparty", "storeplatform.plugins = nosuch"))
    assert "unknown plugin 'nosuch'" in one_line_error(cli("migrate", ok=False, ini_path=bad))
    broken = tmp_path / "broken.ini"
    broken.write_text(cli.ini.read_text().replace("storeplatform.plugins = thirdparty",
                                                  "storeplatform.plugins = broken"))
    line = one_line_error(cli("migrate", ok=False, ini_path=broken))
    assert "plugin 'broken' failed to load" in line and "broken on purpose" in line


def test_migrate_and_demo_on_a_fresh_database(tmp_path):
    ini = tmp_path / "fresh.ini"
    ini.write_text(f"""[app:main]
use = egg:storeplatform
sqlalchemy.url = sqlite:///{tmp_path}/var/fresh.sqlite
huey.url = memory://
storeplatform.plugins = thirdparty invoicing
""")
    env = cli_environ()
    for args in (["migrate"], ["demo"], ["demo"]):
        proc = subprocess.run([TOOL, "-c", str(ini), *args], capture_output=True, text=True, env=env, timeout=60)
        assert proc.returncode == 0, proc.stderr
    # What a newcomer needs next: the logins, how to get an application password, what is off.
    lines = proc.stdout.splitlines()
    assert lines[0] == "demo data loaded"
    assert lines[1].startswith("logins (password demo-password): admin (administrator), manager (shop_manager)")
    # The commands as they work when pasted (#31): this installation's script, not a bare name.
    typed = os.path.relpath(TOOL) if TOOL.startswith(os.getcwd() + os.sep) else TOOL
    assert lines[2] == f"an application password for REST clients: {typed} -c {ini} user app-password admin"
    assert lines[3:] == [f"off: the invoicing REST API; turn it on with {typed} -c {ini} option set "
                         "invoicing.rest_api_enabled true"]
    assert (tmp_path / "var" / "fresh.sqlite").exists() and (tmp_path / "var" / "secret.key").exists()
    proc = subprocess.run([TOOL, "-c", str(ini), "option", "get", "site.title"], capture_output=True, text=True,
                          env=env)
    assert proc.stdout.strip() == "Storeplatform Demo Store"


def test_worker_refuses_immediate_queue(cli):
    assert "memory://" in one_line_error(cli("worker", ok=False))


def test_help_without_a_site_says_how_to_list_plugin_commands():
    proc = subprocess.run([TOOL, "--help"], capture_output=True, text=True, timeout=60, env=cli_environ())
    assert proc.returncode == 0 and "storeplatform -c development.ini --help" in " ".join(proc.stdout.split())
