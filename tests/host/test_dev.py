"""dev.py, the one-command set-up: the test plugins stay out of the environment that `serve`
runs, and pip runs again only when a packaging file changed."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from storeplatform.testing import cli_environ

ROOT = Path(__file__).resolve().parents[2]
LIST_PLUGINS = "from storeplatform.core.plugins import available_plugins; print(' '.join(sorted(available_plugins())))"


def plugins_seen(env):
    done = subprocess.run([sys.executable, "-c", LIST_PLUGINS], env=env, capture_output=True, text=True, timeout=60,
                          check=True)
    return set(done.stdout.split())


def test_the_serve_environment_does_not_see_the_test_plugins():
    # What `dev.py serve` runs: the environment's own path, nothing of the test run's.
    serve_env = {k: v for k, v in cli_environ().items() if k != "PYTHONPATH"}
    served = plugins_seen(serve_env)
    assert {"events", "invoicing", "pricecalc"} <= served
    assert served.isdisjoint({"thirdparty", "thirdparty_tasks", "broken"}), served
    # The test run and the commands it starts do see them.
    assert {"thirdparty", "thirdparty_tasks", "broken"} <= plugins_seen(cli_environ())


def scratch_checkout(tmp_path):
    """A copy of dev.py with the packaging files it reads, and a fake .venv whose python
    records how it was called instead of running pip."""
    root = tmp_path / "checkout"
    for name in ("setup.py", "pyproject.toml", "plugins/events/setup.py", "plugins/invoicing/setup.py",
                 "tests/testplugin/setup.py", "tests/testplugin/sp_thirdparty/__init__.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"# {name}\n")
    shutil.copy(ROOT / "dev.py", root / "dev.py")
    python = root / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text('#!/bin/sh\necho "$@" >> "$(dirname "$0")/calls"\n'
                      'case "$*" in *--target*) mkdir -p "$(dirname "$0")/../test-plugins";; esac\n')
    python.chmod(0o755)
    return root


def install(root, test, chromium=None, env=None):
    """Run dev.install in the scratch checkout. ``chromium``: where dev.py looks for the browser
    (by default a file that exists, so that no test installs one by accident)."""
    chromium = chromium or str(root / "dev.py")
    code = f"import dev; dev.CHROMIUM = {chromium!r}; dev.install(test={test})"
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60,
                          check=False, env=env)
    assert done.returncode == 0, done.stderr
    calls = root / ".venv" / "bin" / "calls"
    lines = calls.read_text().splitlines() if calls.exists() else []
    calls.unlink(missing_ok=True)
    return lines


def test_dev_install_runs_pip_only_when_a_packaging_file_changed(tmp_path):
    root = scratch_checkout(tmp_path)
    first = install(root, test=True)
    assert len(first) == 2, first
    assert first[0].startswith("-m pip install") and "-e .[test,production,otel]" in first[0]
    assert "testplugin" not in first[0]  # the test plugins never go into the environment
    assert "--no-deps --target" in first[1] and first[1].endswith("tests/testplugin --disable-pip-version-check")
    assert install(root, test=True) == []
    # serve installs without the test extras (its own stamp), then is quiet too.
    serve = install(root, test=False)
    assert len(serve) == 1 and "-e .[production]" in serve[0] and "testplugin" not in serve[0]
    assert install(root, test=False) == []
    # A plugin's setup.py changed: the environment again, not the test plugins.
    (root / "plugins" / "events" / "setup.py").write_text("# changed\n")
    again = install(root, test=True)
    assert len(again) == 1 and "-e .[test,production,otel]" in again[0]
    # A test plugin's file changed: only the test plugins again (they are copies).
    (root / "tests" / "testplugin" / "sp_thirdparty" / "__init__.py").write_text("# changed\n")
    again = install(root, test=True)
    assert len(again) == 1 and "--target" in again[0]
    # What pip's build leaves beside the sources is not a change.
    for made in ("build/lib/sp_thirdparty/__init__.py", "x.egg-info/PKG-INFO", "sp_thirdparty/__pycache__/a.pyc"):
        (root / "tests" / "testplugin" / made).parent.mkdir(parents=True, exist_ok=True)
        (root / "tests" / "testplugin" / made).write_text("built\n")
    assert install(root, test=True) == []
    assert os.path.isdir(root / ".venv" / "test-plugins")


def fake_tools(tmp_path, *names):
    """A folder of commands that record their arguments in ``calls`` (apt-get, sudo)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in names:
        tool = folder / name
        if name == "sudo":
            tool.write_text('#!/bin/sh\necho "sudo $*" >> "$(dirname "$0")/calls"\nexec "$@"\n')
        else:
            tool.write_text(f'#!/bin/sh\necho "{name} $*" >> "$(dirname "$0")/calls"\n')
        tool.chmod(0o755)
    return folder


def test_the_test_set_up_installs_debian_chromium_when_it_is_missing(tmp_path):
    root = scratch_checkout(tmp_path)
    tools = fake_tools(tmp_path, "apt-get", "sudo")
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"}
    missing = str(tmp_path / "no-chromium-here")
    install(root, test=True, chromium=missing, env=env)
    calls = (tools / "calls").read_text().splitlines()
    apt = [line[line.index("apt-get"):] for line in calls if "apt-get" in line and not line.startswith("sudo")]
    assert [line.split(" ", 1)[1] for line in apt] == ["update", "install -y --no-install-recommends chromium"]
    assert all(line.startswith("sudo ") for line in calls if line.startswith("sudo")) and \
        (os.geteuid() == 0) == (not any(line.startswith("sudo") for line in calls))
    # Present: nothing is installed; and serve never installs it.
    (tools / "calls").unlink()
    install(root, test=True, env=env)
    install(root, test=False, chromium=missing, env=env)
    assert not (tools / "calls").exists()


def test_the_test_set_up_says_so_when_it_cannot_install_chromium(tmp_path):
    root = scratch_checkout(tmp_path)
    tools = tmp_path / "bin-without-apt"
    tools.mkdir()
    for name in ("sh", "dirname", "mkdir"):  # what the fake python of the checkout runs
        (tools / name).symlink_to(shutil.which(name))
    code = f"import dev; dev.CHROMIUM = {str(tmp_path / 'none')!r}; dev.install(test=True)"
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60,
                          check=False, env={**os.environ, "PATH": str(tools)})
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"The browser tests need Chromium at {tmp_path / 'none'}: install Debian's chromium package.")


def test_the_test_set_up_installs_nginx_and_pgbouncer_for_the_postgresql_pass(tmp_path):
    """The topology test of several machines (tests/served/test_topology.py, on PostgreSQL)
    starts Debian's nginx and pgbouncer: the run that names PostgreSQL installs the missing ones
    with apt-get; a run on SQLite does not."""
    root = scratch_checkout(tmp_path)
    tools = fake_tools(tmp_path, "apt-get", "sudo")
    missing = {str(tmp_path / "no-nginx"): "nginx", str(tmp_path / "no-pgbouncer"): "pgbouncer"}
    code = (f"import dev; dev.CHROMIUM = {str(root / 'dev.py')!r}; dev.TOPOLOGY_TOOLS = {missing!r}; "
            "dev.install(test=True)")
    for database, expected in (("postgresql://postgres@127.0.0.1:5432/postgres",
                                ["update", "install -y --no-install-recommends nginx pgbouncer"]),
                               ("", [])):
        env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}", "STOREPLATFORM_DATABASE_URL": database}
        done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60,
                              check=False, env=env)
        assert done.returncode == 0, done.stderr
        calls = tools / "calls"
        lines = calls.read_text().splitlines() if calls.exists() else []
        calls.unlink(missing_ok=True)
        apt = [line[line.index("apt-get"):].split(" ", 1)[1] for line in lines
               if "apt-get" in line and not line.startswith("sudo")]
        assert apt == expected, lines
