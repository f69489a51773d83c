"""Test helpers every distribution's tests use: a database per test run, apps, users with
credentials, the error-shape assertion, SQL query counting and a real task consumer."""
import base64
import contextlib
import io
import os
import sys
import time
import uuid
from dataclasses import dataclass

from sqlalchemy import event

from . import make_app, make_config
from . import testing_kept_sites as kept_sites
from .core.cache import STRICT_SETTING as CACHE_STRICT
from .core.db.session import site_transaction
from .core.queue import enqueue_now
from .testing_database import TestDatabase, server_database_url, server_huey_url
from .testing_served import over_http, served_by_environment, served_over_http


def cli_environ():
    """The environment for a command a test starts (CLI, pserve, a worker): the test run's
    own, without the ``STOREPLATFORM_*`` variables that name the run's servers, so that the
    command uses the ini the test wrote for it."""
    return {k: v for k, v in os.environ.items() if not k.startswith("STOREPLATFORM_")}


@dataclass
class CliResult:
    """What a command printed and returned, as ``subprocess.run`` reports it."""
    returncode: int
    stdout: str
    stderr: str


def run_cli(*argv, stdin="", environ=None):
    """``storeplatform *argv`` run in this process (``cli.main``), its output captured: what
    most CLI tests need, at a fraction of a process start (~2 s of CPU). As for a subprocess
    (``cli_environ``), the run's ``STOREPLATFORM_*`` variables are hidden from the command;
    ``environ``: those it sees instead (a site's database, queue and secret). What an ini's
    logging sections set up (handlers, levels, the loggers they disable) is put back afterwards:
    the test run's logging goes on as it was. Tests of what the process itself does (its exit
    status as the shell sees it, its logging, signals) start the real program."""
    from . import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            _replaced(sys, "stdin", io.StringIO(stdin)), _without_server_environment(environ), _logging_kept():
        try:
            code = cli.main(list(argv))
        except SystemExit as exc:  # argparse's --help
            code = exc.code if isinstance(exc.code, int) else 0
    return CliResult(code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _replaced(owner, name, value):
    before = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, before)


@contextlib.contextmanager
def _without_server_environment(environ=None):
    """As ``cli_environ`` for a subprocess: the command uses the ini the test wrote for it (and
    the ``STOREPLATFORM_*`` variables of ``environ``)."""
    saved = {k: os.environ.pop(k) for k in [k for k in os.environ if k.startswith("STOREPLATFORM_")]}
    given = {k: v for k, v in (environ or {}).items() if k.startswith("STOREPLATFORM_")}
    os.environ.update(given)
    try:
        yield
    finally:
        for k in given:
            os.environ.pop(k, None)
        os.environ.update(saved)


def _loggers():
    import logging

    return [logging.root, *(lg for lg in logging.Logger.manager.loggerDict.values() if isinstance(lg, logging.Logger))]


@contextlib.contextmanager
def _logging_kept():
    """The process's logging as it was before the block: ``logging.config.fileConfig`` (an ini's
    logging sections) replaces the root's handlers, sets levels and disables every logger it
    does not name; each logger gets its level, handlers, propagation and state back, those made
    in the block are reset, and the handlers made in the block are closed."""
    import logging

    saved = {lg: (lg.level, list(lg.handlers), lg.propagate, lg.disabled) for lg in _loggers()}
    try:
        yield
    finally:
        made = set()
        for lg in _loggers():
            level, handlers, propagate, disabled = saved.get(lg, (logging.NOTSET, [], True, False))
            made.update(h for h in lg.handlers if h not in handlers)
            lg.setLevel(level)
            lg.handlers[:] = handlers
            lg.propagate, lg.disabled = propagate, disabled
        for handler in made - {h for _, handlers, _, _ in saved.values() for h in handlers}:
            handler.close()


class Site:
    """An app under test: the WebTest app and what tests need of the site around it (data in
    transactions, users with credentials, options, the queue and its worker), so that tests
    never reach into the registry.

    ``plugins``: plugin objects registered beside those the settings name, without installing
    them (a test's own plugin). ``environ``: the ``STOREPLATFORM_*`` overrides the site sees
    (none by default: the test run's own server URLs must not replace the test database).
    ``served``: False keeps the site in-process when the run serves the sites over HTTP
    (``STOREPLATFORM_TEST_SERVED``), for the tests that set what only the transport sets.
    """

    def __init__(self, settings, plugins=(), environ=None, served=True):
        from webtest import TestApp

        # A configured app the test before gave back, when it had these settings
        # (storeplatform.testing_kept_sites: a quarter of the suite's CPU was building them).
        key = kept_sites.key_of(settings, plugins, environ)
        self._kept = kept_sites.take(key)
        if self._kept is None:
            config = make_config(plugins=plugins, environ=environ or {}, **settings)
            # A cached answer that read a table no generation counts is an error under the tests.
            config.registry.settings[CACHE_STRICT] = True
            wsgi = make_app(config)
            self._kept = None if key is None else kept_sites.KeptApp(key, config, wsgi)
        else:
            config, wsgi = self._kept.config, self._kept.wsgi
        self.config, self.wsgi = config, wsgi
        self.registry = self.config.registry
        self.settings = self.registry.settings
        self.hooks = self.registry["plugins"].hook
        self._served = served_by_environment(self.wsgi) if served else None
        if self._served is None:
            self.app = TestApp(self.wsgi, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
        else:
            # Over HTTP: every request goes through the socket and the real server's threads.
            self.app = TestApp(over_http(self._served.__enter__()), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
        self.prefix = self.settings["storeplatform.rest_prefix"]
        self._users = {}

    @property
    def engine(self):
        return self.registry["db.engine"]

    def session(self):
        """A session in its own committed transaction (for arranging data)."""
        return site_transaction(self.registry)

    @property
    def consumer(self):
        """The embedded task consumer (``huey.embedded_consumer = true``), or None."""
        return self.registry.get("queue.consumer")

    def worker(self, workers=2):
        """A real Huey consumer (threads) on the site's queue for the duration of a ``with``."""
        return running_worker(self.registry, workers)

    def enqueue(self, name, *args):
        """Send task ``name`` to the site's queue now."""
        return enqueue_now(self.registry, name, *args)

    def run_task(self, name, *args):
        """Run task ``name`` here, in a transaction of its own, as a worker would."""
        return self.registry["queue.tasks"][name].call_local(*args)

    def queued(self):
        """How many tasks wait in the site's queue."""
        return len(self.registry["queue.huey"])

    def periodic_task_names(self):
        return sorted(t.name for t in self.registry["queue.huey"]._registry.periodic_tasks)

    def blank_request(self, path):
        """A request of this site that no view has seen (for calling host functions directly)."""
        from pyramid.interfaces import IRequestFactory

        request = self.registry.getUtility(IRequestFactory).blank(path)
        request.registry = self.registry
        return request

    def consumer_key(self, login, permissions="read_write"):
        """A consumer key and secret of the user ``login``."""
        from sqlalchemy import select

        from .components.shop.credentials import new_consumer_key
        from .components.shop.models import User

        with self.session() as s:
            user = s.execute(select(User).where(User.login == login)).scalar_one()
            return new_consumer_key(s, self.settings["storeplatform.secret"], user, permissions)

    def url(self, path):
        return self.prefix + path

    def create_user(self, login, role, password=None, email=None):
        from .core.auth.passwords import hash_password
        from .components.shop.models import User

        with self.session() as s:
            user = User(login=login, role=role, email=email or f"{login}@example.com", display_name=login.title(),
                        password_hash=hash_password(password) if password else None)
            s.add(user)
            s.flush()
            return user.id

    def app_password(self, login):
        from sqlalchemy import select

        from .components.shop.credentials import new_app_password
        from .components.shop.models import User

        with self.session() as s:
            user = s.execute(select(User).where(User.login == login)).scalar_one()
            return new_app_password(s, self.registry.settings["storeplatform.secret"], user, "test")

    def headers_for(self, role_or_login):
        """Basic auth headers of an application password for a user with that role
        (the user is made on first use, with the role as login)."""
        if role_or_login not in self._users:
            from .core.auth import ROLES

            if role_or_login in ROLES or role_or_login in self.registry["auth.role_capabilities"]:
                self.create_user(role_or_login, role_or_login)
            password = self.app_password(role_or_login)
            token = base64.b64encode(f"{role_or_login}:{password}".encode()).decode()
            self._users[role_or_login] = {"Authorization": f"Basic {token}"}
        return self._users[role_or_login]

    def set_option(self, key, value):
        from .core.options import set_option

        with self.session() as s:
            set_option(s, key, value)

    def close(self):
        if self._served is not None:
            self._served.__exit__(None, None, None)
        consumer = self.registry.get("queue.consumer")
        if consumer is not None:
            consumer.stop(graceful=True)
        self.registry["db.thread_connections"].close()
        self.engine.dispose()
        kept_sites.give_back(self._kept)
        self._kept = None


def assert_error(response, status, code, **data):
    """Assert the one error body: status, code, message, data.status (and given data items)."""
    assert response.status_int == status, (response.status, response.text[:500])
    body = response.json
    assert set(body) == {"code", "message", "data"}, body
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"], body
    assert body["data"]["status"] == status, body
    for key, value in data.items():
        assert body["data"][key] == value, (key, body)
    return body


@contextlib.contextmanager
def statements_run(engine):
    """The SQL statements run on ``engine`` inside the block, each on one line (BEGINs left
    out): ``with statements_run(site.engine) as seen: ...; assert seen == [...]``."""
    seen = []

    def before(conn, cursor, statement, parameters, context, executemany):
        if not statement.startswith("BEGIN"):
            seen.append(" ".join(statement.split()))

    event.listen(engine, "before_cursor_execute", before)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", before)


@contextlib.contextmanager
def count_queries(engine):
    """Count the SQL statements executed on ``engine`` inside the block: ``with ... as n: ...; n()``."""
    statements = []

    def before(conn, cursor, statement, parameters, context, executemany):
        if not statement.lstrip().upper().startswith(("SAVEPOINT", "RELEASE", "ROLLBACK", "BEGIN", "PRAGMA")):
            statements.append(statement)

    event.listen(engine, "before_cursor_execute", before)
    try:
        yield lambda: len(statements)
    finally:
        event.remove(engine, "before_cursor_execute", before)


@contextlib.contextmanager
def running_worker(registry, workers=2):
    """A real Huey consumer (threads) on the site's queue for the duration of the block."""
    from .core.queue import EmbeddedConsumer

    consumer = EmbeddedConsumer(registry["queue.huey"], workers=workers, worker_type="thread",
                                periodic=False, check_worker_health=False, initial_delay=0.05, max_delay=0.2)
    consumer.start()
    try:
        yield consumer
    finally:
        consumer.stop(graceful=True)


def wait_for(predicate, timeout=20.0, interval=0.05):
    """Poll ``predicate`` until it returns a true value; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        time.sleep(interval)


ADMIN_PASSWORD = "demo-password"


def admin_login(site, login, role=None, password=ADMIN_PASSWORD, status=303):
    """Log in to the admin through its login form (WebTest); with ``role`` the user is made
    first. Returns the answer (303 to the dashboard when the password is right)."""
    if role is not None:
        site.create_user(login, role, password=password)
    page = site.app.get("/admin/login")
    form = page.forms["login-form"]
    form["login"], form["password"] = login, password
    return form.submit(status=status)


def admin_token(page):
    """The form token of a rendered admin page (its ``<meta name="csrf-token">``)."""
    import re

    return re.search(r'<meta name="csrf-token" content="([0-9a-f]*)">', page.text).group(1)


def assert_admin_page(res, status, text=None):
    """An admin answer: HTML with that status and ``text`` in it, never JSON or a traceback."""
    assert res.status_int == status, (res.status, res.text[:400])
    assert res.content_type == "text/html", res.content_type
    assert "Traceback" not in res.text
    if text is not None:
        assert text in res.text, res.text[-1500:]
    return res


def resident_memory():
    """(now, peak) resident memory of this process in bytes (Linux's /proc/self/status)."""
    with open("/proc/self/status") as status_file:
        status = dict(line.split(":", 1) for line in status_file.read().splitlines() if ":" in line)
    return int(status["VmRSS"].split()[0]) * 1024, int(status["VmHWM"].split()[0]) * 1024


def reset_peak_memory():
    """The peak ``resident_memory`` reports starts again from now (Linux's clear_refs)."""
    with open("/proc/self/clear_refs", "w") as clear_refs:
        clear_refs.write("5")


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now (for servers a test starts)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def queue_url(tmp_dir):
    """A real queue for tests that need a worker: Redis when the environment names it, else SQLite."""
    return server_huey_url() or f"sqlite:///{tmp_dir}/huey-{uuid.uuid4().hex[:8]}.sqlite"


__all__ = ["TestDatabase", "Site", "served_over_http", "server_database_url", "server_huey_url", "cli_environ",
           "assert_error", "admin_login", "admin_token", "assert_admin_page", "count_queries", "running_worker",
           "wait_for", "queue_url", "free_port"]
