"""The served test layer: the real servers (pserve with waitress or gunicorn, a standalone worker)
started on 127.0.0.1 as the README starts them, on a fresh database and queue of their own, and
driven over sockets by concurrent clients with application passwords.

- ``Backend``: a fresh SQLite file and Huey on SQLite, or (when the run names PostgreSQL and
  Redis) a fresh PostgreSQL database and a Redis database number of its own (``huey.name``
  cannot be overridden by the environment, so the shipped ini's queue name is isolated by the
  database number); ``backend.environ()`` is what every command of the site runs with.
- ``prepare_site``: migrate, users and their application passwords, the invoicing REST API on,
  a consumer key for the OAuth request, all through the CLI.
- ``Served``: a process with its output in a file, stopped with SIGTERM then SIGKILL (its
  process group: gunicorn's workers too), whatever happens to the test.
- ``drive``: clients (one thread and one persistent connection each) sending rounds of reads and
  writes over every namespace for a few seconds; every answer, its status and its duration is
  recorded, and what each client created is written down for ``verify``.
- ``verify``: afterwards, every row a client created is read back through GET, and the list
  totals (``X-Total``) equal the number created.
- ``Webhooks`` (development.ini only): a receiver on 127.0.0.1 and a webhook per topic
  (``event.created``, ``event.updated``) registered through REST before the drive; afterwards,
  once every delivery has finished (at most WEBHOOK_WAIT), each created and each updated event
  reached the receiver exactly once, signed, and its delivery is ``delivered`` (issue #26: under
  load the pool ran dry and deliveries stayed ``pending`` or ``sending``).
"""
import base64
import contextlib
import hashlib
import hmac
import http.client
import json
import os
import secrets
import signal
import ssl
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

from events.webhook_receiver import Receiver  # tests/events: a real receiver that records each POST
from storeplatform.testing import cli_environ, run_cli, server_database_url, server_huey_url
from storeplatform.testing_served import listening

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
DEVELOPMENT_INI = ROOT / "development.ini"
PRODUCTION_INI = ROOT / "config" / "production.ini"

# Each request of a client waits this long for its answer; a time-out counts as an error.
# (This and every time bound below are for an idle machine: each is multiplied by
# ``load_factor()`` where it is used.)
REQUEST_TIMEOUT = 10.0
# An answer slower than this is a failure of its own.
SLOW = 5.0
# How long the clients send their rounds.
DRIVE_SECONDS = 5.0
# A round is ~20 requests; this bounds a client that finds the server very fast.
MAX_ROUNDS = 60
PASSWORD = "served-password-1"
API = "/api"
# After the drive, how long every webhook delivery may take to reach its receiver and be recorded.
WEBHOOK_WAIT = 30.0


# --- a busy machine ----------------------------------------------------------------------------

def load_factor():
    """How many times more runnable processes than cores the machine has had over the last
    minute (at least 1, at most 8): the served tests' time bounds are multiplied by it, so that
    another job on the machine slows them instead of failing them (issue #42, part 5: the
    README's command on a machine at load 6-12)."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return 1.0
    return min(max(1.0, load / (os.cpu_count() or 1)), 8.0)


def scaled(seconds):
    """A time bound of an idle machine, for the machine as busy as it is now."""
    return seconds * load_factor()


# --- the site's database and queue -------------------------------------------------------------

_REDIS_CLAIM = "storeplatform-served-test:claim"


class Backend:
    """A fresh database and queue for one served site; ``close`` drops them."""

    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.secret = "served-" + secrets.token_hex(16)
        self.kind = "postgresql+redis" if server_database_url() else "sqlite"
        self._db_name = None
        self._redis = None
        self._claim = None
        server = server_database_url()
        if server:
            from sqlalchemy import create_engine, text
            from sqlalchemy.engine import make_url

            from storeplatform.core.db.session import database_url

            self._db_name = f"sp_served_{uuid.uuid4().hex[:12]}"
            admin = create_engine(database_url(server), isolation_level="AUTOCOMMIT")
            with admin.connect() as conn:
                conn.execute(text(f'CREATE DATABASE "{self._db_name}"'))
            admin.dispose()
            self.database_url = make_url(database_url(server)).set(database=self._db_name) \
                .render_as_string(hide_password=False)
        else:
            self.database_url = f"sqlite:///{tmp_path}/site.sqlite"
        redis_url = server_huey_url()
        if redis_url:
            self.huey_url = self._claim_redis_database(redis_url)
        else:
            self.huey_url = f"sqlite:///{tmp_path}/huey.sqlite"

    def _claim_redis_database(self, base_url):
        """A Redis database number nobody uses (not the run's own, which the other tests share
        with names of their own): the shipped inis all use the queue name ``storeplatform``, so
        two served sites at once (xdist) must not share a database, or one's worker would run
        the other's tasks on its own database."""
        import redis

        base = urlsplit(base_url)
        own = (base.path or "/0").strip("/") or "0"
        self._claim = uuid.uuid4().hex
        for number in range(15, 0, -1):
            if str(number) == own:
                continue
            url = urlunsplit((base.scheme, base.netloc, f"/{number}", base.query, base.fragment))
            client = redis.Redis.from_url(url)
            try:
                if not client.set(_REDIS_CLAIM, self._claim, nx=True, ex=900):
                    continue
                if client.dbsize() == 1:
                    self._redis = client
                    return url
                if client.get(_REDIS_CLAIM) == self._claim.encode():
                    client.delete(_REDIS_CLAIM)
            except redis.ResponseError:  # fewer databases configured
                pass
            client.close()
        raise AssertionError("no empty Redis database (1..15) to give the served site a queue of its own")

    def environ(self):
        env = cli_environ()
        # config/production.ini keeps the metrics' files beside it (var/metrics): each site its own.
        env.update(STOREPLATFORM_DATABASE_URL=self.database_url, STOREPLATFORM_HUEY_URL=self.huey_url,
                   STOREPLATFORM_SECRET=self.secret, STOREPLATFORM_METRICS_DIR=str(self.tmp_path / "metrics"))
        return env

    def close(self):
        if self._redis is not None:
            try:
                keys = list(self._redis.scan_iter("huey.*"))
                if keys:
                    self._redis.delete(*keys)
                if self._redis.get(_REDIS_CLAIM) == self._claim.encode():
                    self._redis.delete(_REDIS_CLAIM)
            finally:
                self._redis.close()
        if self._db_name:
            from sqlalchemy import create_engine, text

            from storeplatform.core.db.session import database_url

            admin = create_engine(database_url(server_database_url()), isolation_level="AUTOCOMMIT")
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{self._db_name}" WITH (FORCE)'))
            admin.dispose()


@contextlib.contextmanager
def backend(tmp_path):
    site = Backend(tmp_path)
    try:
        yield site
    finally:
        site.close()


# --- the CLI -----------------------------------------------------------------------------------

# The set-up commands run through the CLI's own entry point (``main(argv)``, what the
# ``storeplatform`` script calls) in the test's process (``testing.run_cli``), on the site's
# environment: a process per command costs ~2.5 s of CPU (interpreter, imports, entry points),
# where the commands themselves take ~0.2 s each. (tests/host/test_cli.py runs the script.)
def _cli_batch(ini, env, commands):
    """The stdout of each command (``storeplatform -c INI *command``), run one after the other."""
    outputs = []
    for command in commands:
        result = run_cli("-c", str(ini), *command, environ=env)
        assert result.returncode == 0, f"storeplatform {' '.join(command)} exited {result.returncode}: {result.stderr}"
        outputs.append(result.stdout.strip())
    return outputs


@dataclass
class Credentials:
    admin: str
    manager: str
    customer: str
    consumer_key: tuple = None  # (ck, cs) of the admin, for OAuth


def basic(login, password):
    return "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()


def prepare_site(ini, env, cwd, oauth=False):
    """Migrate the fresh database and make what the clients use, with the CLI as a site owner
    does: users of three roles, an application password each, the invoicing REST API on, and
    with ``oauth`` a consumer key of the administrator."""
    started = time.monotonic()
    commands = [
        ["migrate"],
        ["user", "create", "admin", "--role", "administrator", "--password", PASSWORD],
        ["user", "create", "manager", "--role", "shop_manager", "--password", PASSWORD],
        ["user", "create", "customer", "--role", "customer", "--password", PASSWORD],
        ["option", "set", "invoicing.rest_api_enabled", "true"],
        *(["user", "app-password", login] for login in ("admin", "manager", "customer")),
    ]
    if oauth:
        commands.append(["consumer-key", "create", "admin", "--permissions", "read_write"])
    out = _cli_batch(ini, env, commands)[5:]
    key = tuple(out[3].split()) if oauth else None
    if oauth:
        assert len(key) == 2 and key[0].startswith("ck_") and key[1].startswith("cs_"), out[3]
    creds = Credentials(basic("admin", out[0]), basic("manager", out[1]), basic("customer", out[2]), key)
    return creds, time.monotonic() - started


# --- server processes --------------------------------------------------------------------------

class Served:
    """A process of the site with its output (stdout and stderr) in ``log_path``."""

    def __init__(self, name, argv, env, cwd, log_path):
        self.name = name
        self.log_path = Path(log_path)
        self._log = open(self.log_path, "wb")
        self.argv = [str(a) for a in argv]
        self.started = time.monotonic()
        self.proc = subprocess.Popen(self.argv, env=env, cwd=cwd, stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.notes = []

    def stop(self, timeout=20.0):
        """SIGTERM, then SIGKILL to its process group (gunicorn's workers) after ``timeout``."""
        if self.proc.poll() is not None:
            self.notes.append(f"{self.name} had exited with {self.proc.returncode} before the end")
        else:
            began = time.monotonic()
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
                self.notes.append(f"{self.name} stopped {time.monotonic() - began:.1f}s after SIGTERM "
                                  f"(exit {self.proc.returncode})")
            except subprocess.TimeoutExpired:
                self.notes.append(f"{self.name} did not stop within {timeout:.0f}s of SIGTERM: killed")
                self._kill_group()
                self.proc.wait(10)
        # Anything of its group left behind (a worker whose master is gone).
        if self._group_alive():
            self.notes.append(f"{self.name} left processes of its group behind: killed")
            self._kill_group()
        self._log.close()

    def _group_alive(self):
        try:
            os.killpg(self.proc.pid, 0)
            return True
        except (ProcessLookupError, PermissionError):
            return False

    def _kill_group(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def text(self):
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def tail(self, lines=40, width=500):
        rows = self.text().splitlines()[-lines:]
        return "\n".join(row if len(row) <= width else row[:width] + " …" for row in rows)


@contextlib.contextmanager
def processes():
    """A list to start ``Served`` processes into; every one is stopped at the end of the block."""
    started = []
    try:
        yield started
    finally:
        for proc in reversed(started):
            with contextlib.suppress(Exception):
                proc.stop()


def start_server(started, name, argv, env, cwd, log_path, host="127.0.0.1", port=0, timeout=60.0):
    """``argv`` (``pserve [options] INI``) started with ``http_port=port`` and appended to
    ``started`` (``processes()``); returns (the ``Served``, the port it listens on).

    With ``port`` 0 (the default) the server binds a port the system chooses, which the test
    reads back from the server's own sockets once it listens: the port is one the server bound
    itself. (A port found free beforehand and let go, as ``free_port()`` does, can be taken by
    anything on a busy machine before the server binds it: the test then drove another site.)
    ``host``: the address the ini's server section binds."""
    server = Served(name, [*argv, f"http_port={port}"], env, cwd, log_path)
    started.append(server)
    limit = scaled(timeout)
    while True:
        if server.proc.poll() is not None:
            raise AssertionError(f"{server.name} exited with {server.proc.returncode} before it listened:\n"
                                 f"{server.tail(80)}")
        ports = sorted(p for h, p in listening(server.proc.pid) if h == host and (not port or p == port))
        if ports:
            return server, ports[0]
        if time.monotonic() - server.started > limit:
            raise AssertionError(f"{server.name} did not listen on {host} within {limit:.0f}s:\n{server.tail(80)}")
        time.sleep(0.1)


def wait_ready(port, server, timeout=90.0, host="127.0.0.1", auth=None):
    """Poll ``GET /readyz`` (database, migrations, queue) until it answers 200; return seconds.

    The answer must come from the site the test started: the port is one ``server`` listens on
    itself (its sockets, ``listening``), and with ``auth`` (an application password made for
    this run's site: a token no other site knows) ``GET /api/store/v1/users/me`` answers 200
    with it. ``timeout`` is an idle machine's, scaled by the load."""
    began = time.monotonic()
    limit = scaled(timeout)
    last = None
    while time.monotonic() - began < limit:
        if server.proc.poll() is not None:
            raise AssertionError(f"{server.name} exited with {server.proc.returncode} before it answered:\n"
                                 f"{server.tail(80)}")
        try:
            conn = http.client.HTTPConnection(host, port, timeout=scaled(5))
            conn.request("GET", "/readyz")
            res = conn.getresponse()
            last = (res.status, res.read()[:300])
            conn.close()
            if res.status == 200:
                if (host, port) not in listening(server.proc.pid):
                    raise AssertionError(f"{host}:{port} answered /readyz, but {server.name} does not listen "
                                         f"there: another process holds the port\n{server.tail(40)}")
                if auth is not None:
                    conn = http.client.HTTPConnection(host, port, timeout=scaled(5))
                    conn.request("GET", f"{API}/store/v1/users/me", headers={"Authorization": auth})
                    res = conn.getresponse()
                    body = res.read()[:300]
                    conn.close()
                    if res.status != 200:
                        raise AssertionError(f"{host}:{port} is ready but refuses this run's credentials "
                                             f"({res.status} {body!r}): not the site the test started")
                return time.monotonic() - began
        except OSError as exc:
            last = exc
        time.sleep(0.2)
    raise AssertionError(f"{server.name} was not ready within {limit:.0f}s (last: {last!r}):\n{server.tail(80)}")


# --- HTTP clients ------------------------------------------------------------------------------

# What a request on a kept-alive connection meets when the server had closed it: no answer at all.
_IDLE_CLOSED = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError, ssl.SSLEOFError,
                ssl.SSLZeroReturnError)


def connect(target, timeout):
    """A new connection to ``target``: a port on 127.0.0.1, or a callable making the connection
    (``target(timeout)``: a load balancer's TLS address, another loopback address)."""
    if callable(target):
        return target(timeout)
    return http.client.HTTPConnection("127.0.0.1", target, timeout=timeout)


@dataclass
class Call:
    label: str
    status: int  # None: no answer (time-out, connection error)
    elapsed: float
    problem: str  # None: the expected status


@dataclass
class Answer:
    status: int
    headers: object
    body: bytes

    def json(self):
        return json.loads(self.body)


class Client:
    """One persistent connection (re-opened when the server closes it), Basic credentials, and
    the record of every call."""

    def __init__(self, port, auth, timeout=None):
        self.port = port
        self.auth = auth
        self.timeout = scaled(REQUEST_TIMEOUT) if timeout is None else timeout
        self.resent = 0  # requests sent again after a kept-alive connection was found closed
        self.conn = None
        self.calls = []

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def call(self, label, method, path, body=None, expect=200, auth=None, headers=None):
        """Send a request; return the ``Answer`` when its status is ``expect``, else None (the call
        is recorded as a problem either way it went wrong)."""
        hdrs = {"Accept": "application/json"}
        if auth is not False:
            hdrs["Authorization"] = auth or self.auth
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        hdrs.update(headers or {})
        began = time.monotonic()
        for attempt in (1, 2):
            reused = self.conn is not None
            try:
                if self.conn is None:
                    self.conn = connect(self.port, self.timeout)
                self.conn.request(method, path, body=data, headers=hdrs)
                res = self.conn.getresponse()
                payload = res.read()
                break
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                if reused and attempt == 1 and isinstance(exc, _IDLE_CLOSED):
                    # A kept-alive connection the server closed while it was idle (a proxy
                    # reloading closes its idle ones): nothing was answered, so nothing of it was
                    # served; sent again on a new connection, as HTTP/1.1 clients do (RFC 9112,
                    # 9.3.1).
                    self.resent += 1
                    continue
                elapsed = time.monotonic() - began
                self.calls.append(Call(label, None, elapsed, f"{type(exc).__name__}: {exc}"))
                return None
        elapsed = time.monotonic() - began
        if res.will_close:
            self.close()
        if res.status != expect:
            self.calls.append(Call(label, res.status, elapsed,
                                   f"status {res.status} (expected {expect}): {payload[:160]!r}"))
            return None
        self.calls.append(Call(label, res.status, elapsed, None))
        return Answer(res.status, res.headers, payload)

    def check(self, label, condition, detail):
        """A wrong answer of the expected status (a body that says something else)."""
        if not condition:
            self.calls.append(Call(label, None, 0.0, f"wrong answer: {detail}"))
        return condition


def oauth_header(method, url, key, secret_, params=None):
    """A one-legged OAuth 1.0a ``Authorization`` header (HMAC-SHA256), as docs/oauth.md signs."""
    def enc(value):
        return quote(str(value), safe="~")

    oauth = {"oauth_consumer_key": key, "oauth_signature_method": "HMAC-SHA256",
             "oauth_timestamp": str(int(time.time())), "oauth_nonce": secrets.token_hex(16), "oauth_version": "1.0"}
    pairs = sorted((enc(k), enc(v)) for k, v in [*(params or {}).items(), *oauth.items()])
    base = "&".join([method.upper(), enc(url), enc("&".join(f"{k}={v}" for k, v in pairs))])
    digest = hmac.new(f"{enc(secret_)}&".encode(), base.encode(), hashlib.sha256).digest()
    oauth["oauth_signature"] = base64.b64encode(digest).decode()
    return "OAuth " + ", ".join(f'{enc(k)}="{enc(v)}"' for k, v in oauth.items())


# --- the clients' work -------------------------------------------------------------------------

@dataclass
class Ledger:
    """What one client created (ids confirmed by a 201/200) and the creates whose outcome is
    unknown (no answer: the row may or may not exist)."""
    products: dict = field(default_factory=dict)  # id -> name
    events: dict = field(default_factory=dict)  # id -> title
    venues: dict = field(default_factory=dict)
    organizers: dict = field(default_factory=dict)
    orders: dict = field(default_factory=dict)  # id -> tickets
    documents: dict = field(default_factory=dict)  # order id -> display number
    checked_in: set = field(default_factory=set)  # ticket codes
    updated: set = field(default_factory=set)  # event ids whose PUT was answered 200
    unknown: Counter = field(default_factory=Counter)  # kind -> creates without an answer


# No answer from the site: none at all, or a proxy's for a server that died with the request.
_UNANSWERED = (None, 502, 504)


def _created(client, ledger, kind, answer):
    """The id of a create's answer; a create without an answer is counted as unknown."""
    if answer is None:
        if client.calls and client.calls[-1].status in _UNANSWERED:
            ledger.unknown[kind] += 1
        return None
    return answer.json()["id"]


def run_client(number, port, creds, deadline, tag, stop=None):
    """Rounds of requests over every namespace until ``deadline`` (or ``stop``, an Event, is
    set); returns (calls, ledger)."""
    auth = creds.admin if number % 2 == 0 else creds.manager
    client = Client(port, auth)
    ledger = Ledger()
    try:
        if creds.consumer_key:
            path = f"{API}/store/v1/users/me"
            ck, cs = creds.consumer_key
            header = oauth_header("GET", f"http://127.0.0.1:{port}{path}", ck, cs)
            answer = client.call("oauth GET store/v1/users/me", "GET", path, auth=header)
            if answer is not None:
                client.check("oauth GET store/v1/users/me", answer.json().get("login") == "admin", answer.body[:200])
        rounds = 0
        while time.monotonic() < deadline and rounds < MAX_ROUNDS and not (stop is not None and stop.is_set()):
            _round(client, ledger, creds, f"{tag}-c{number}-r{rounds}", rounds)
            rounds += 1
    finally:
        client.close()
    return client.calls, ledger


def _round(c, ledger, creds, name, k):
    """One round: ~20 requests, reads and writes of store/v1, pricecalc/v1, invoicing/v1 and
    events/v1. A step whose answer is missing skips what depends on it."""
    S, P, I, E = f"{API}/store/v1", f"{API}/pricecalc/v1", f"{API}/invoicing/v1", f"{API}/events/v1"
    # events/v1: an event, then an update of it.
    answer = c.call("POST events/v1/events", "POST", f"{E}/events",
                    {"title": f"Concert {name}", "start_date": "2027-03-15", "start_time": "19:30",
                     "end_date": "2027-03-15", "end_time": "22:00", "capacity": 500}, expect=201)
    event_id = _created(c, ledger, "events", answer)
    if event_id is None:
        return
    ledger.events[event_id] = f"Concert {name}"
    if c.call("PUT events/v1/events/{id}", "PUT", f"{E}/events/{event_id}",
              {"excerpt": f"Round {k}", "event_status": "scheduled", "featured": k % 3 == 0}) is not None:
        ledger.updated.add(event_id)
    elif c.calls[-1].status in _UNANSWERED:
        ledger.unknown["updates"] += 1  # no answer: the event may or may not have been updated
    if k % 2 == 0:
        answer = c.call("POST events/v1/venues", "POST", f"{E}/venues",
                        {"name": f"Hall {name}", "city": "Vienna", "capacity": 300}, expect=201)
        venue_id = _created(c, ledger, "venues", answer)
        if venue_id is not None:
            ledger.venues[venue_id] = f"Hall {name}"
    else:
        answer = c.call("POST events/v1/organizers", "POST", f"{E}/organizers",
                        {"name": f"Society {name}", "email": "society@example.com"}, expect=201)
        organizer_id = _created(c, ledger, "organizers", answer)
        if organizer_id is not None:
            ledger.organizers[organizer_id] = f"Society {name}"
    # store/v1: a ticket product of the event (it also gets a price calculator).
    answer = c.call("POST store/v1/products", "POST", f"{S}/products",
                    {"name": f"Ticket {name}", "sku": f"T-{name}", "regular_price": "2.50",
                     "meta": {"event_id": event_id}}, expect=201)
    product_id = _created(c, ledger, "products", answer)
    if product_id is None:
        return
    ledger.products[product_id] = f"Ticket {name}"
    c.call("GET store/v1/products/{id}", "GET", f"{S}/products/{product_id}")
    c.call("GET store/v1/products", "GET", f"{S}/products?per_page=5&page={k % 3 + 1}")
    c.call("GET store/v1/products/{id} (404)", "GET", f"{S}/products/2000000000", expect=404)
    c.call("GET store/v1/users/me", "GET", f"{S}/users/me")
    c.call("GET store/v1/users/me (customer)", "GET", f"{S}/users/me", auth=creds.customer)
    c.call("GET store/v1/orders (customer, 403)", "GET", f"{S}/orders", auth=creds.customer, expect=403)
    # pricecalc/v1: configure, read, calculate (4 ft x 3 ft = 12 sq ft at 2.50 = 30).
    c.call("POST pricecalc/v1/products/{id}/calculator", "POST", f"{P}/products/{product_id}/calculator",
           {"calculator_type": "area", "settings": {"pricing_unit": "sq ft"}})
    answer = c.call("GET pricecalc/v1/products/{id}/calculator", "GET", f"{P}/products/{product_id}/calculator",
                    auth=False)
    if answer is not None:
        c.check("GET pricecalc/v1/products/{id}/calculator", answer.json().get("product_id") == product_id,
                answer.body[:200])
    answer = c.call("POST pricecalc/v1/calculate", "POST", f"{P}/calculate",
                    {"product_id": product_id, "measurements": {"length": 4, "width": 3}}, auth=False)
    if answer is not None:
        c.check("POST pricecalc/v1/calculate", answer.json().get("total_price") == 30, answer.body[:200])
    # store/v1: a paid order of two tickets (attendees; an invoice by the worker).
    answer = c.call("POST store/v1/orders", "POST", f"{S}/orders",
                    {"status": "processing", "billing": {"first_name": "Anna", "last_name": name,
                                                         "email": "anna@example.com"},
                     "line_items": [{"product_id": product_id, "quantity": 2}]}, expect=201)
    order_id = _created(c, ledger, "orders", answer)
    if order_id is None:
        return
    ledger.orders[order_id] = 2
    c.call("GET store/v1/orders/{id}", "GET", f"{S}/orders/{order_id}")
    c.call("GET store/v1/orders", "GET", f"{S}/orders?per_page=5")
    # invoicing/v1: (re)generate the order's document, read it and its PDF.
    answer = c.call("POST invoicing/v1/documents/{id}/regenerate", "POST", f"{I}/documents/{order_id}/regenerate",
                    {})
    if answer is not None:
        ledger.documents[order_id] = answer.json()["display_number"]
        meta = c.call("GET invoicing/v1/documents/{id}", "GET", f"{I}/documents/{order_id}")
        pdf = c.call("GET invoicing/v1/documents/{id}/pdf", "GET", f"{I}/documents/{order_id}/pdf")
        if meta is not None and pdf is not None:
            c.check("GET invoicing/v1/documents/{id}/pdf", pdf.body.startswith(b"%PDF")
                    and int(pdf.headers["Content-Length"]) == len(pdf.body), pdf.headers)
    # events/v1: the order's attendees, check one in, the event's numbers, the public list.
    answer = c.call("GET events/v1/attendees", "GET", f"{E}/attendees?order_id={order_id}")
    if answer is not None and c.check("GET events/v1/attendees", len(answer.json()) == 2, answer.body[:300]):
        code = answer.json()[0]["ticket_code"]
        checked = c.call("POST events/v1/checkin", "POST", f"{E}/checkin", {"ticket_code": code, "event_id": event_id})
        if checked is not None and c.check("POST events/v1/checkin", checked.json().get("success") is True,
                                           checked.body[:200]):
            ledger.checked_in.add(code)
    c.call("GET events/v1/checkin/stats/{id}", "GET", f"{E}/checkin/stats/{event_id}")
    c.call("GET events/v1/events", "GET", f"{E}/events?per_page=5", auth=False)


# --- driving a server --------------------------------------------------------------------------

@dataclass
class Outcome:
    calls: list
    ledger: Ledger
    seconds: float
    clients: int
    # An answer slower than this is a failure: SLOW on an idle machine, scaled by the load.
    slow_after: float = SLOW

    def errors(self):
        return [c for c in self.calls if c.problem]

    def slow(self):
        return [c for c in self.calls if c.elapsed > self.slow_after]


def drive(port, creds, clients, seconds=DRIVE_SECONDS, tag="s", stop=None):
    """``clients`` threads, each with its connection, sending rounds for ``seconds`` (or until
    ``stop``, an Event, is set)."""
    tag = f"{tag}{uuid.uuid4().hex[:6]}"
    deadline = time.monotonic() + seconds
    began = time.monotonic()
    barrier = threading.Barrier(clients)

    def one(number):
        barrier.wait()
        return run_client(number, port, creds, deadline, tag, stop)

    with ThreadPoolExecutor(clients) as pool:
        results = list(pool.map(one, range(clients)))
    ledger = Ledger()
    calls = []
    for client_calls, part in results:
        calls += client_calls
        for kind in ("products", "events", "venues", "organizers", "orders", "documents"):
            getattr(ledger, kind).update(getattr(part, kind))
        ledger.checked_in |= part.checked_in
        ledger.updated |= part.updated
        ledger.unknown.update(part.unknown)
    return Outcome(calls, ledger, time.monotonic() - began, clients, scaled(SLOW))


# --- reading everything back -------------------------------------------------------------------

def list_totals(port, creds):
    """{list: X-Total} of the lists ``verify`` compares, now: the baseline of a drive on a site
    that has rows already (a module's shared topology)."""
    S, E = f"{API}/store/v1", f"{API}/events/v1"
    c = Client(port, creds.admin)
    totals = {}
    try:
        for kind, path in (("products", f"{S}/products"), ("orders", f"{S}/orders"), ("events", f"{E}/events"),
                           ("venues", f"{E}/venues"), ("organizers", f"{E}/organizers"),
                           ("attendees", f"{E}/attendees"), ("checked-in attendees", f"{E}/attendees?status=checked_in")):
            sep = "&" if "?" in path else "?"
            answer = c.call(f"baseline {kind}", "GET", f"{path}{sep}per_page=1")
            assert answer is not None, c.calls[-1]
            totals[kind] = int(answer.headers["X-Total"])
    finally:
        c.close()
    return totals


def verify(port, creds, ledger, threads=6, give_up_after=5, baseline=None):
    """Every row the clients created, read back through GET, and the list totals; returns
    (problems, calls). Stops reading after ``give_up_after`` failed reads (a server in trouble
    would otherwise make this last REQUEST_TIMEOUT per read)."""
    S, I, E = f"{API}/store/v1", f"{API}/invoicing/v1", f"{API}/events/v1"
    base = baseline or {}  # the totals before the drive (list_totals): the drive's rows are the rest
    problems = []
    lock = threading.Lock()
    local = threading.local()
    all_calls = []
    failed = [0]

    def client():
        if not hasattr(local, "client"):
            local.client = Client(port, creds.admin)
            with lock:
                all_calls.append(local.client)
        return local.client

    def read(check):
        if failed[0] >= give_up_after:
            return
        label, path, expected = check
        c = client()
        answer = c.call(f"verify {label}", "GET", path)
        if answer is None:
            with lock:
                failed[0] += 1
                problems.append(f"{label}: {c.calls[-1].problem}")
            return
        body = answer.json()
        for key, value in expected.items():
            if body.get(key) != value:
                with lock:
                    problems.append(f"{label} {path}: {key} is {body.get(key)!r}, not {value!r}")

    # Every created row through its own GET.
    checks = [("GET store/v1/products/{id}", f"{S}/products/{i}", {"name": n}) for i, n in ledger.products.items()]
    checks += [("GET events/v1/events/{id}", f"{E}/events/{i}", {"title": t}) for i, t in ledger.events.items()]
    checks += [("GET events/v1/venues/{id}", f"{E}/venues/{i}", {"name": n}) for i, n in ledger.venues.items()]
    checks += [("GET events/v1/organizers/{id}", f"{E}/organizers/{i}", {"name": n})
               for i, n in ledger.organizers.items()]
    checks += [("GET store/v1/orders/{id}", f"{S}/orders/{i}", {"id": i}) for i in ledger.orders]
    checks += [("GET invoicing/v1/documents/{id}", f"{I}/documents/{i}", {"display_number": d})
               for i, d in ledger.documents.items()]
    checks += [("GET events/v1/attendees/code/{code}", f"{E}/attendees/code/{code}", {"status": "checked_in"})
               for code in ledger.checked_in]
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(read, checks))

    # The lists: X-Total equals the number created, and every page holds exactly those ids.
    lists = [
        ("products", f"{S}/products", ledger.products, ledger.unknown["products"]),
        ("orders", f"{S}/orders", ledger.orders, ledger.unknown["orders"]),
        ("events", f"{E}/events", ledger.events, ledger.unknown["events"]),
        ("venues", f"{E}/venues", ledger.venues, ledger.unknown["venues"]),
        ("organizers", f"{E}/organizers", ledger.organizers, ledger.unknown["organizers"]),
    ]
    c = Client(port, creds.admin)
    all_calls.append(c)
    if failed[0] < give_up_after:
        for kind, path, created, unknown in lists:
            total, ids = _read_list(c, kind, path, problems)
            if total is None:
                break
            _compare_total(problems, kind, total - base.get(kind, 0), len(created), unknown)
            missing = set(created) - ids
            if missing:
                problems.append(f"list {kind}: {len(missing)} created ids missing, e.g. {sorted(missing)[:5]}")
        else:
            # Two attendees per paid order; the ones checked in.
            tickets = 2 * len(ledger.orders)
            total, _ = _read_list(c, "attendees", f"{E}/attendees", problems, pages=False)
            if total is not None:
                _compare_total(problems, "attendees", total - base.get("attendees", 0), tickets,
                               2 * ledger.unknown["orders"])
            total, _ = _read_list(c, "checked-in attendees", f"{E}/attendees?status=checked_in", problems,
                                  pages=False)
            if total is not None and total - base.get("checked-in attendees", 0) != len(ledger.checked_in):
                problems.append(f"list checked-in attendees: X-Total {total}, {len(ledger.checked_in)} checked in")
    else:
        problems.append(f"verification gave up after {failed[0]} failed reads")
    calls = [call for cl in all_calls for call in cl.calls]
    for cl in all_calls:
        cl.close()
    return problems, calls


def _read_list(c, kind, path, problems, pages=True):
    sep = "&" if "?" in path else "?"
    ids = set()
    page = 1
    total = None
    while True:
        answer = c.call(f"verify list {kind}", "GET", f"{path}{sep}per_page=100&page={page}")
        if answer is None:
            problems.append(f"list {kind} page {page}: {c.calls[-1].problem}")
            return None, ids
        total = int(answer.headers["X-Total"])
        ids |= {row["id"] for row in answer.json()}
        if not pages or page >= int(answer.headers["X-TotalPages"]):
            return total, ids
        page += 1


def _compare_total(problems, kind, total, created, unknown):
    if unknown == 0 and total != created:
        problems.append(f"list {kind}: X-Total {total}, {created} created")
    elif unknown and not created <= total <= created + unknown:
        problems.append(f"list {kind}: X-Total {total}, {created} created and {unknown} creates unanswered")


# --- webhooks ----------------------------------------------------------------------------------

# The topics the clients fire: each created event once on event.created, each update once on
# event.updated (events.md: "Events created or updated through the REST API fire once").
WEBHOOK_TOPICS = ("event.created", "event.updated")
_UNFINISHED = ("pending", "sending")


class Webhooks:
    """A real receiver on 127.0.0.1 (it answers 200 and records every POST) and one webhook per
    topic of WEBHOOK_TOPICS registered through REST, each with a secret of its own. Only a site
    that allows private targets (development.ini) can deliver to it."""

    def __init__(self):
        self.receiver = Receiver(keep_alive=True)
        self.hooks = {}  # topic -> (webhook id, secret)
        self.calls = []
        self.lines = []  # for the report's summary
        self.problems = []

    def close(self):
        self.receiver.close()

    def register(self, port, creds, server):
        """POST /webhooks for each topic as the administrator; a refusal stops the test."""
        c = Client(port, creds.admin)
        try:
            for topic in WEBHOOK_TOPICS:
                secret = secrets.token_hex(16)
                body = {"name": f"served {topic}", "url": self.receiver.url(f"/hook/{topic}"), "topic": topic,
                        "secret": secret}
                answer = c.call("POST events/v1/webhooks", "POST", f"{API}/events/v1/webhooks", body, expect=201)
                if answer is None:
                    raise AssertionError(f"webhook {topic} not registered: {c.calls[-1].problem}\n{server.tail(40)}")
                hook = answer.json()
                assert hook["status"] == "active" and hook["secret"] == secret and hook["topic"] == topic, hook
                self.hooks[topic] = (hook["id"], secret)
        finally:
            c.close()
            self.calls += c.calls

    def expected(self, ledger):
        """topic -> (event ids that must be delivered once each, creates/updates without an answer)."""
        return {"event.created": (set(ledger.events), ledger.unknown["events"]),
                "event.updated": (set(ledger.updated), ledger.unknown["updates"])}

    def _received(self, topic):
        return self.receiver.posts(f"/hook/{topic}")

    def wait(self, database_url, ledger, timeout=None):
        """Until the receiver has every expected delivery and none is ``pending`` or ``sending``
        in the delivery log, at most ``timeout``; returns (seconds, the log's rows at the end).

        The log is read from the site's database (its table, as the admin's delivery page reads
        it): no REST route reads it (events.md, delivery rule 7: "The last 100 deliveries are
        kept in a log; no endpoint reads it"); the admin's page is HTML capped at 100 rows, and
        the CLI (``storeplatform events webhooks deliveries``) shows no uuids and costs a
        process (seconds of CPU) per poll."""
        from sqlalchemy import create_engine, text
        from sqlalchemy.pool import NullPool

        timeout = scaled(WEBHOOK_WAIT) if timeout is None else timeout
        expected = self.expected(ledger)
        ids = [hook_id for hook_id, _ in self.hooks.values()]
        query = text("SELECT id, webhook_id, uuid, status, response_code, error FROM evt_webhook_deliveries "
                     "WHERE webhook_id IN (%s) ORDER BY id" % ", ".join(str(int(i)) for i in ids))
        engine = create_engine(database_url, poolclass=NullPool)
        began = time.monotonic()
        try:
            while True:
                with engine.connect() as conn:
                    rows = [row._asdict() for row in conn.execute(query)]
                unfinished = [r for r in rows if r["status"] in _UNFINISHED]
                arrived = all(len(self._received(topic)) >= len(expected[topic][0]) for topic in self.hooks)
                if (arrived and not unfinished) or time.monotonic() - began > timeout:
                    return time.monotonic() - began, rows
                time.sleep(0.1)
        finally:
            engine.dispose()

    def check(self, port, creds, ledger, rows, seconds, servers):
        """Every way the deliveries went wrong, as text lines (empty: all delivered)."""
        problems = []
        expected = self.expected(ledger)
        all_received = {}
        for topic, (hook_id, secret) in self.hooks.items():
            want, unknown = expected[topic]
            posts = self._received(topic)
            uuids = Counter(p.headers.get("X-EVT-Delivery") for p in posts)
            event_ids = Counter()
            bad = []
            for post in posts:
                all_received[post.headers.get("X-EVT-Delivery")] = topic
                signature = hmac.new(secret.encode(), post.body, hashlib.sha256).hexdigest()
                try:
                    body = json.loads(post.body)
                except ValueError:
                    body = {}
                event_ids[(body.get("data") or {}).get("id")] += 1
                if not (hmac.compare_digest(signature, post.headers.get("X-EVT-Signature", ""))
                        and post.headers.get("X-EVT-Webhook-ID") == str(hook_id)
                        and post.headers.get("X-EVT-Topic") == topic and body.get("topic") == topic
                        and body.get("webhook_id") == hook_id
                        and post.headers.get("X-EVT-Timestamp") == body.get("timestamp")):
                    bad.append(post)
            if bad:
                problems.append(f"{topic}: {len(bad)} deliveries badly signed or addressed, e.g. headers "
                                f"{bad[0].headers} body {bad[0].body[:200]!r}")
            twice = {u: n for u, n in uuids.items() if n > 1}
            if twice:
                problems.append(f"{topic}: {len(twice)} deliveries received more than once (X-EVT-Delivery), "
                                f"e.g. {list(twice.items())[:3]}")
            if None in uuids:
                problems.append(f"{topic}: {uuids[None]} deliveries without X-EVT-Delivery")
            repeated = {i: n for i, n in event_ids.items() if n > 1}
            if repeated:
                problems.append(f"{topic}: {len(repeated)} events delivered more than once, "
                                f"e.g. {sorted(repeated.items())[:5]}")
            missing, extra = want - set(event_ids), set(event_ids) - want
            which = "; ".join(f"{len(ids)} {kind}, e.g. {sorted(ids, key=str)[:5]}"
                              for kind, ids in (("missing", missing), ("unexpected", extra)) if ids)
            if unknown == 0 and (missing or extra or len(posts) != len(want)):
                problems.append(f"{topic}: {len(posts)} deliveries received for {len(want)} events ({which})")
            elif unknown and (missing or not len(want) <= len(posts) <= len(want) + unknown):
                problems.append(f"{topic}: {len(posts)} deliveries received for {len(want)} events and {unknown} "
                                f"requests without an answer ({which})")
            # The log: pending and sending rows are never pruned; finished ones are (the last 100 of
            # all webhooks are kept), so the log holds at most 100 of a long drive's deliveries.
            mine = [r for r in rows if r["webhook_id"] == hook_id]
            statuses = Counter(r["status"] for r in mine)
            self.lines.append(f"  {topic} (webhook {hook_id}): {len(want)} events, {len(posts)} deliveries received, "
                              f"log {dict(sorted(statuses.items()))}")
            # State of the webhook through REST: still active, no failure counted.
            c = Client(port, creds.admin)
            answer = c.call("GET events/v1/webhooks/{id}", "GET", f"{API}/events/v1/webhooks/{hook_id}")
            c.close()
            self.calls += c.calls
            if answer is None:
                problems.append(f"{topic}: GET webhooks/{hook_id}: {c.calls[-1].problem}")
            elif (answer.json().get("status"), answer.json().get("failures")) != ("active", 0):
                problems.append(f"{topic}: webhook {hook_id} is {answer.json().get('status')} with "
                                f"{answer.json().get('failures')} failures counted")
        statuses = Counter(r["status"] for r in rows)
        not_delivered = [r for r in rows if r["status"] != "delivered"]
        if not_delivered:
            problems.append(f"{len(not_delivered)} deliveries not delivered {seconds:.1f}s after the drive "
                            f"({dict(statuses)}), e.g. " + "; ".join(
                                f"id {r['id']} {r['status']} code {r['response_code']} error {r['error']}"
                                for r in not_delivered[:5]))
        unseen = [r for r in rows if r["status"] == "delivered" and r["uuid"] not in all_received]
        if unseen:
            problems.append(f"{len(unseen)} deliveries logged delivered that the receiver never got, "
                            f"e.g. ids {[r['id'] for r in unseen[:5]]}")
        in_log = sum(1 for r in rows if r["uuid"] in all_received)
        pruned = len(all_received) - in_log
        if len(all_received) <= 100 and pruned:
            problems.append(f"{pruned} received deliveries are missing from the log (kept: the last 100)")
        # A failed delivery may have been pruned from the log: its WARNING line stays in the output.
        for server in servers:
            failed = [line for line in server.text().splitlines()
                      if "storeplatform_events.webhooks" in line and " failed: " in line]
            if failed:
                problems.append(f"{len(failed)} failed deliveries logged by {server.name}, e.g. {failed[0][:300]}")
        finished = "every one finished" if not any(r["status"] in _UNFINISHED for r in rows) else "NOT all finished"
        self.lines.insert(0, f"webhooks: {len(all_received)} deliveries received, {finished} {seconds:.1f}s after "
                             f"the drive; the log holds {len(rows)} rows, {in_log} of the received ones ({pruned} "
                             f"older ones pruned); delivery ids up to {max((r['id'] for r in rows), default=0)}")
        return problems


# --- the report --------------------------------------------------------------------------------

def summary(outcome, verify_calls=()):
    """Requests, errors and durations per kind of request, as text."""
    by_label = defaultdict(list)
    for call in outcome.calls:
        by_label[call.label].append(call)
    lines = [f"{outcome.clients} clients, {outcome.seconds:.1f}s, {len(outcome.calls)} requests "
             f"({len(outcome.calls) / max(outcome.seconds, 0.001):.0f}/s), {len(outcome.errors())} errors, "
             f"{len(outcome.slow())} slower than {outcome.slow_after:.0f}s (load factor {load_factor():.1f}), "
             f"{len(verify_calls)} verification reads"]
    for label in sorted(by_label):
        calls = by_label[label]
        times = sorted(c.elapsed for c in calls)
        errors = sum(1 for c in calls if c.problem)
        lines.append(f"  {label:50} n={len(calls):5} errors={errors:4} "
                     f"p50={times[len(times) // 2] * 1000:7.0f}ms p95={times[int(len(times) * 0.95)] * 1000:7.0f}ms "
                     f"max={times[-1] * 1000:7.0f}ms")
    return "\n".join(lines)


def failures(outcome, verify_problems, verify_calls, servers, webhook_problems=()):
    """Every way the run failed, as text lines (empty: it passed)."""
    found = []
    errors = outcome.errors()
    if errors:
        kinds = Counter((c.label, _shape(c.problem)) for c in errors)
        found.append(f"{len(errors)} of {len(outcome.calls)} requests failed:")
        found += [f"  {n:5} x {label}: {problem}" for (label, problem), n in kinds.most_common(15)]
    slow = outcome.slow() + [c for c in verify_calls if c.elapsed > outcome.slow_after]
    if slow:
        kinds = Counter(c.label for c in slow)
        found.append(f"{len(slow)} answers slower than {outcome.slow_after:.0f}s (slowest {max(c.elapsed for c in slow):.1f}s): "
                     + ", ".join(f"{n} x {label}" for label, n in kinds.most_common(8)))
    if verify_problems:
        found.append(f"{len(verify_problems)} consistency problems afterwards:")
        found += [f"  {p}" for p in verify_problems[:15]]
    if webhook_problems:
        found.append(f"{len(webhook_problems)} webhook delivery problems:")
        found += [f"  {p}" for p in webhook_problems]
    for server in servers:
        text = server.text()
        if "Traceback" in text:
            found.append(f"{text.count('Traceback')} tracebacks in the output of {server.name}")
    return found


def _shape(problem):
    """A problem without what varies from request to request (ids, bodies), to count alike ones."""
    if problem.startswith("status "):
        return problem.split(":", 1)[0] + ": " + problem.split(":", 1)[1][:90]
    return problem[:120]


def report(outcome, verify_problems, verify_calls, servers, timings, webhooks=None):
    webhook_problems = webhooks.problems if webhooks is not None else ()
    found = failures(outcome, verify_problems, verify_calls, servers, webhook_problems)
    text = "\n".join(found) + "\n\n" + summary(outcome, verify_calls)
    if webhooks is not None:
        text += "\n" + "\n".join(webhooks.lines)
    text += "\n\ntimings: " + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items())
    notes = [n for s in servers for n in s.notes]
    if notes:
        text += "\nprocesses: " + "; ".join(notes)
    for server in servers:
        text += f"\n\n--- last lines of {server.name} ({server.log_path}) ---\n{server.tail()}"
    return found, text


def serve_and_drive(tmp_path, name, ini, server_args, clients, worker=False, oauth=False, webhooks=False):
    """The whole run of one served configuration: a fresh backend, the site prepared with the
    CLI, ``pserve INI http_port=N *server_args`` (and with ``worker`` a standalone
    ``storeplatform -c INI worker``; with ``webhooks`` a receiver and its webhooks, see
    ``Webhooks``), ``clients`` clients for DRIVE_SECONDS, every webhook delivery awaited and
    checked, everything read back, the processes stopped. Returns (failures, report text)."""
    timings = {}
    began = time.monotonic()
    hooks = Webhooks() if webhooks else None
    with contextlib.ExitStack() as stack, backend(tmp_path) as site:
        if hooks is not None:
            stack.callback(hooks.close)
        env = site.environ()
        creds, timings["cli set-up"] = prepare_site(ini, env, tmp_path, oauth=oauth)
        servers = []
        with processes() as started:
            if worker:
                consumer = Served("storeplatform worker", [BIN / "storeplatform", "-c", ini, "worker"], env, tmp_path,
                                  tmp_path / "worker.log")
                started.append(consumer)
                servers.append(consumer)
            server, port = start_server(started, name, [BIN / "pserve", *server_args, ini], env, tmp_path,
                                        tmp_path / "server.log")
            servers.append(server)
            timings["server ready"] = wait_ready(port, server, auth=creds.admin)
            if hooks is not None:
                hooks.register(port, creds, server)
            outcome = drive(port, creds, clients)
            timings["load"] = outcome.seconds
            if hooks is not None:
                timings["webhooks delivered"], rows = hooks.wait(site.database_url, outcome.ledger)
                hooks.problems = hooks.check(port, creds, outcome.ledger, rows, timings["webhooks delivered"],
                                             servers)
            verified = time.monotonic()
            problems, verify_calls = verify(port, creds, outcome.ledger)
            timings["verify"] = time.monotonic() - verified
            stopping = time.monotonic()
        timings["stop"] = time.monotonic() - stopping
    timings["total"] = time.monotonic() - began
    found, text = report(outcome, problems, verify_calls, servers, timings, hooks)
    text = f"{name} on {site.kind}, port {port}\n" + text
    (tmp_path / "report.txt").write_text(text)
    return found, text
