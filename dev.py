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
    return python


def install_chromium(path=None):
    """Debian's chromium for the browser tests, with apt-get, when it is missing (as root, or
    through sudo)."""
    path = path or CHROMIUM
    if os.path.exists(path):
        return
    apt = shutil.which("apt-get")
    if apt is None:
        sys.exit(f"The browser tests need Chromium at {path}: install Debian's chromium package.")
    sudo = [] if not hasattr(os, "geteuid") or os.geteuid() == 0 else [shutil.which("sudo") or "sudo"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for step in (["update"], ["install", "-y", "--no-install-recommends", "chromium"]):
        status = run(*sudo, apt, *step, env=env)
        if status:
            sys.exit(f"apt-get {step[0]} failed ({status}): the browser tests need Chromium at {path}")


def install_test_plugins(python):
    """The test plugins (tests/testplugin) go into TEST_PLUGINS, not into the environment that
    `serve` uses: the test run puts that folder on its path and on that of the commands it
    starts (tests/conftest.py), where their entry points are found through their dist-info.
    They are copied, not linked, so any change of theirs installs them again."""
    source = os.path.join(ROOT, "tests", "testplugin")
    # Their sources only: pip's build leaves build/ and *.egg-info beside them.
    files = sorted(path for path in glob.glob(os.path.join(source, "**", "*"), recursive=True)
                   if os.path.isfile(path) and not _made_by_builds(os.path.relpath(path, source)))
    stamp = os.path.join(VENV, ".installed-test-plugins")
    fingerprint = _fingerprint(files, [source])
    if _stamped(stamp, fingerprint) and os.path.isdir(TEST_PLUGINS):
        return
    shutil.rmtree(TEST_PLUGINS, ignore_errors=True)
    _pip(python, "install", "-q", "--no-deps", "--target", TEST_PLUGINS, source)
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
