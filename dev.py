#!/usr/bin/env python3
"""Set-up in one command on a machine with only Python 3.11+.

    python3 dev.py serve   install everything into .venv, migrate var/, load demo data, serve :6543
    python3 dev.py test    install everything into .venv and run the whole test suite

Extra arguments after ``test`` go to pytest; after ``serve`` to pserve (e.g. http_port=8080).
"""
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import venv

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(ROOT, ".venv")
BIN = os.path.join(VENV, "Scripts" if os.name == "nt" else "bin")
# Where `dev.py test` installs the test plugins: a folder of their own, on no path of the
# environment that `serve` runs (only the test run adds it).
TEST_PLUGINS = os.path.join(VENV, "test-plugins")
# The admin's browser tests drive Debian's Chromium (Playwright with the system browser; no
# browser is downloaded at run time).
CHROMIUM = "/usr/bin/chromium"
# The topology test of several machines (tests/served/test_topology.py, on PostgreSQL + Redis)
# starts Debian's nginx and pgbouncer with the deployment's own files (deploy/).
TOPOLOGY_TOOLS = {"/usr/sbin/nginx": "nginx", "/usr/sbin/pgbouncer": "pgbouncer"}


def run(*cmd, **kwargs):
    print("+", " ".join(cmd), flush=True)
    return subprocess.call(cmd, cwd=ROOT, **kwargs)


def install(test=False):
    """Install the host and the plugins (editable) into ``.venv``, and with ``test`` the test
    extras and, apart from it, the test plugins; pip runs only when a packaging file changed."""
    if sys.version_info < (3, 11):
        sys.exit("storeplatform needs Python 3.11 or newer")
    if not os.path.exists(os.path.join(BIN, "python")):
        venv.create(VENV, with_pip=True)
    python = os.path.join(BIN, "python")
    # The tests need the otel extra too (the traces test: tests/host/test_tracing.py).
    targets = ["-e", ".[test,production,otel]" if test else ".[production]"]
    setups = sorted(glob.glob(os.path.join(ROOT, "plugins", "*", "setup.py")))
    for setup in setups:
        targets += ["-e", os.path.dirname(setup)]
    # The installs are editable: only what the packaging files say (dependencies, entry points)
    # needs pip again; a second run with none of them changed starts at once.
    stamp = os.path.join(VENV, f".installed-{'test' if test else 'serve'}")
    fingerprint = _fingerprint([os.path.join(ROOT, "setup.py"), os.path.join(ROOT, "pyproject.toml"), *setups],
                               targets)
    if not _stamped(stamp, fingerprint):
        _pip(python, "install", "-q", *targets)
        # A .venv from before the test plugins were kept apart still has them: the site that
        # `serve` runs would list them as installed plugins.
        if glob.glob(os.path.join(VENV, "**", "site-packages", "*thirdparty?testplugin*"), recursive=True):
            _pip(python, "uninstall", "-q", "-y", "storeplatform-thirdparty-testplugin")
        with open(stamp, "w") as fh:
            fh.write(fingerprint)
    if test:
        install_test_plugins(python)
        install_chromium()
        if _names_a_database_server():
            install_topology_tools()
    return python


def _names_a_database_server():
    """The run is on PostgreSQL (.ci/run's last pass), where the production topology's tests run."""
    url = os.environ.get("STOREPLATFORM_DATABASE_URL", "")
    return url.startswith(("postgresql", "postgres:"))


def install_chromium(path=None):
    """Debian's chromium for the browser tests, with apt-get, when it is missing (as root, or
    through sudo)."""
    path = path or CHROMIUM
    _apt_install({path: "chromium"}, f"the browser tests need Chromium at {path}",
                 f"The browser tests need Chromium at {path}: install Debian's chromium package.")


def install_topology_tools():
    """Debian's nginx and pgbouncer for the topology test of several machines, when missing. (On
    a machine that runs systemd, Debian starts their services on installation: the test starts
    its own, on loopback addresses, whatever those do.)"""
    why = "the topology test (tests/served/test_topology.py) needs nginx and pgbouncer"
    _apt_install(TOPOLOGY_TOOLS, why, "The topology test needs Debian's nginx and pgbouncer packages: install them.")


def _apt_install(packages, why, without_apt):
    """``{path: Debian package}``: the packages whose path is missing, with apt-get (as root, or
    through sudo); ``without_apt``: the line to exit with where there is no apt-get."""
    missing = [package for path, package in packages.items() if not os.path.exists(path)]
    if not missing:
        return
    apt = shutil.which("apt-get")
    if apt is None:
        sys.exit(without_apt)
    sudo = [] if not hasattr(os, "geteuid") or os.geteuid() == 0 else [shutil.which("sudo") or "sudo"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for step in (["update"], ["install", "-y", "--no-install-recommends", *missing]):
        status = run(*sudo, apt, *step, env=env)
        if status:
            sys.exit(f"apt-get {step[0]} failed ({status}): {why}")


def install_test_plugins(python):
    """The test plugins (tests/testplugin, and docs/plugins.md's worked example, the door list
    of docs/examples/doorlist, installed as written) go into TEST_PLUGINS, not into the
    environment that `serve` uses: the test run puts that folder on its path and on that of the
    commands it starts (tests/conftest.py), where their entry points are found through their
    dist-info. They are copied, not linked, so any change of theirs installs them again."""
    sources = [path for path in (os.path.join(ROOT, "docs", "examples", "doorlist"),
                                 os.path.join(ROOT, "tests", "testplugin")) if os.path.isdir(path)]
    # Their sources only: pip's build leaves build/ and *.egg-info beside them.
    files = sorted(path for source in sources for path in glob.glob(os.path.join(source, "**", "*"), recursive=True)
                   if os.path.isfile(path) and not _made_by_builds(os.path.relpath(path, source)))
    stamp = os.path.join(VENV, ".installed-test-plugins")
    fingerprint = _fingerprint(files, sources)
    if _stamped(stamp, fingerprint) and os.path.isdir(TEST_PLUGINS):
        return
    shutil.rmtree(TEST_PLUGINS, ignore_errors=True)
    _pip(python, "install", "-q", "--no-deps", "--target", TEST_PLUGINS, *sources)
    with open(stamp, "w") as fh:
        fh.write(fingerprint)


def _made_by_builds(relative):
    parts = relative.split(os.sep)
    return parts[0] == "build" or any(part.endswith(".egg-info") or part == "__pycache__" for part in parts)


def _pip(python, *args):
    status = run(python, "-m", "pip", *args, "--disable-pip-version-check")
    if status:
        sys.exit(status)


def _stamped(stamp, fingerprint):
    if not os.path.exists(stamp):
        return False
    with open(stamp) as fh:
        return fh.read() == fingerprint


def _fingerprint(paths, targets):
    digest = hashlib.sha256(" ".join(targets).encode() + sys.version.encode())
    for path in paths:
        if os.path.exists(path):
            with open(path, "rb") as fh:
                digest.update(path.encode() + fh.read())
    return digest.hexdigest()


def serve(args):
    install()
    start(args)


def start(args):
    """Migrate and load the demo data quietly (one line each; everything they said when they
    fail), then become pserve: its server ends the output with the ready line, the admin's
    address, the demo logins and commands that work when pasted (storeplatform/startup.py),
    once it listens on the port it serves."""
    ini = os.path.join(ROOT, "development.ini")
    tool = os.path.join(BIN, "storeplatform")
    for step, says in (("migrate", _migrated), ("demo", lambda out: "demo data: loaded")):
        done = subprocess.run([tool, "-c", ini, step], cwd=ROOT, capture_output=True, text=True)
        if done.returncode:
            sys.stdout.write(done.stdout)
            sys.stderr.write(done.stderr)
            sys.exit(f"storeplatform {step} failed ({done.returncode})")
        print(says(done.stdout + done.stderr), flush=True)
    os.execv(os.path.join(BIN, "pserve"), [os.path.join(BIN, "pserve"), ini, *args])


def _migrated(output):
    """One line for Alembic's chatter: how many migrations ran."""
    steps = sum("Running upgrade" in line for line in output.splitlines())
    return f"database: {steps} migration(s) applied" if steps else "database: up to date"


def test(args):
    python = install(test=True)
    # One test process more than the cores: a test waits a fraction of its time on a server it
    # started, a subprocess or the database, which the extra process fills (measured on 2 cores:
    # the three passes of .ci/run 10:12 with 3 processes, 11:24 with 2).
    workers = [] if any(a.startswith("-n") for a in args) else ["-n", str((os.cpu_count() or 1) + 1)]
    sys.exit(run(python, "-m", "pytest", *workers, *args))


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("serve", "test"):
        sys.exit(__doc__)
    {"serve": serve, "test": test}[sys.argv[1]](sys.argv[2:])
