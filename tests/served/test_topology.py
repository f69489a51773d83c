"""The site on several machines (issue #42), as docs/operations.md's "Several machines" deploys
it, on this machine's loopback addresses: two nodes, each a gunicorn master with its workers and
a ``storeplatform worker`` (started with the ExecStart lines of deploy/systemd/, the env file's
variables, deploy/storeplatform.ini), bound to 127.0.0.2 and 127.0.0.3 with their own var/ and
metrics directories; Debian's nginx in front (deploy/nginx/storeplatform.conf, TLS, forwarding
X-Forwarded-* to nodes that trust it); Debian's PgBouncer in transaction mode
(deploy/pgbouncer/pgbouncer.ini) between every process and PostgreSQL; one Redis. The
deployment's files are rendered with only their addresses, ports, paths (and the database's name,
the mail relay's scheme and the sweeps' ages) replaced: a change of them is a change of what this
test runs.

One topology, started once for the module (~15 s), serves every check in turn:

- mixed load through nginx: no 5xx, no failure, nothing slower than the bound; everything
  created read back; each webhook delivery and each order's mail received once, the workers of
  both nodes taking them from the one queue; the invoice numbers gapless;
- a write through one node read back at once through the other: cached answers, list totals,
  site options, application passwords (issued and revoked), a password change ending the
  cookie sessions and tokens issued on both, the login throttle counted across them;
- one check-in winner among concurrent scans of a ticket on both nodes;
- a node killed (SIGKILL, its gunicorn and its worker) under load: no answered write is lost,
  the other node serves on, the killed one starts again; every webhook delivery and message
  ends delivered once, or abandoned when the killed worker held it while sending;
- rolling restarts under load: each node taken out of nginx (marked down, nginx reloaded),
  stopped with SIGTERM, started again, ready, put back: no request fails. A newer release's
  migration that only adds (a column, a table, a revision this code does not know) is applied
  while the old code serves; it stays ready and starts again on it.

PostgreSQL + Redis only (marker production_topology: .ci/run's last pass). Each part leaves its
numbers in the test's output (pytest -rP) and the processes' logs in the module's tmp path."""
import contextlib
import http.client
import json
import os
import secrets
import shutil
import signal
import ssl
import subprocess
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from host.mail_servers import SmtpServer  # tests/host: aiosmtpd keeping what it receives
from storeplatform.testing import cli_environ, free_port, run_cli, server_database_url

from .helpers import (API, BIN, ROOT, Client, Served, Webhooks, backend, basic, drive, failures, list_totals, listening,
                      load_factor, prepare_site, processes, scaled, start_server, summary, verify, wait_ready)

pytestmark = pytest.mark.production_topology

DEPLOY = ROOT / "deploy"
NODE_ADDRESSES = {"a": "127.0.0.2", "b": "127.0.0.3"}
PROXY = "127.0.0.1"  # nginx listens here and connects to the nodes from here
CLIENTS = 8
LOAD_SECONDS = 5.0
HOOK_TIMEOUT, MAIL_TIMEOUT, REQUEUE_AFTER = 3, 2, 2
# A delivery or a message left "sending" by a killed worker is closed (abandoned) by the next
# sweep once this old (webhooks: requeue_after + timeout; mail: requeue_after + 4 time-outs).
ABANDON_AFTER = max(REQUEUE_AFTER + HOOK_TIMEOUT, REQUEUE_AFTER + 4 * MAIL_TIMEOUT)


def render(name, replacements):
    """deploy/``name`` with each of ``replacements``' texts replaced; each must be in it (the
    test renders the file it knows)."""
    text = (DEPLOY / name).read_text()
    for old, new in replacements.items():
        assert old in text, f"deploy/{name} no longer has {old!r}: tests/served/test_topology.py renders it"
        text = text.replace(old, new)
    return text


def unit_command(unit, ini):
    """The ExecStart of deploy/systemd/``unit``, with the deployment's paths replaced."""
    lines = [line for line in (DEPLOY / "systemd" / unit).read_text().splitlines() if line.startswith("ExecStart=")]
    assert len(lines) == 1, lines
    argv = lines[0][len("ExecStart="):].split()
    program = "/srv/storeplatform/.venv/bin/"
    assert argv[0].startswith(program), argv
    return [str(BIN / argv[0][len(program):]), *[str(ini) if a == "/etc/storeplatform/storeplatform.ini" else a
                                                 for a in argv[1:]]]


def unit_environment(values):
    """The variables of deploy/storeplatform.env.example with this run's ``values``: the test
    sets each of the file's variables, and only those."""
    names = [line.split("=", 1)[0] for line in (DEPLOY / "storeplatform.env.example").read_text().splitlines()
             if line and not line.startswith("#")]
    assert sorted(names) == sorted(values), (names, sorted(values))
    return {**cli_environ(), **values}


# --- PgBouncer and nginx ---------------------------------------------------------------------------

class PgBouncer:
    """deploy/pgbouncer/pgbouncer.ini on 127.0.0.1, in front of the run's database. As root it
    runs as postgres (it refuses root), its files in a folder of that user's."""

    def __init__(self, database_url, started):
        url = make_url(database_url)
        self.name = url.database
        self.user = url.username or "postgres"
        self.password = secrets.token_hex(12)
        self.dir = Path(tempfile.mkdtemp(prefix="sp-pgbouncer-"))
        (self.dir / "userlist.txt").write_text(f'"{self.user}" "{self.password}"\n')
        root = os.geteuid() == 0
        for attempt in range(5):
            self.port = free_port()
            (self.dir / "pgbouncer.ini").write_text(render("pgbouncer/pgbouncer.ini", {
                "storeplatform = host=127.0.0.1 port=5432 dbname=storeplatform":
                    f"{self.name} = host={url.host or '127.0.0.1'} port={url.port or 5432} dbname={self.name}",
                "listen_addr = 10.0.0.20": "listen_addr = 127.0.0.1",
                "listen_port = 6432": f"listen_port = {self.port}",
                "auth_file = /etc/pgbouncer/userlist.txt": f"auth_file = {self.dir / 'userlist.txt'}",
                "logfile = /var/log/postgresql/pgbouncer.log": f"logfile = {self.dir / 'pgbouncer.log'}",
                "pidfile = /var/run/postgresql/pgbouncer.pid": f"pidfile = {self.dir / 'pgbouncer.pid'}",
            }))
            if root:
                shutil.chown(self.dir, "postgres", "postgres")
                for path in self.dir.iterdir():
                    shutil.chown(path, "postgres", "postgres")
            argv = ["/usr/sbin/pgbouncer", *(["-u", "postgres"] if root else []), str(self.dir / "pgbouncer.ini")]
            self.process = Served("pgbouncer", argv, cli_environ(), self.dir, self.dir / "stderr.log")
            started.append(self.process)
            while self.process.proc.poll() is None and ("127.0.0.1", self.port) not in listening(self.process.proc.pid):
                time.sleep(0.05)
            if self.process.proc.poll() is None:
                return
            if "already in use" not in self.log():  # another process took the port: another one
                raise AssertionError(f"pgbouncer did not start:\n{self.log()}")
        raise AssertionError(f"pgbouncer found no free port in 5 tries:\n{self.log()}")

    def url(self):
        return f"postgresql://{self.user}:{self.password}@127.0.0.1:{self.port}/{self.name}"

    def pool(self):
        """PgBouncer's ``SHOW POOLS`` row of the site's database (its admin console, psql)."""
        done = subprocess.run(["psql", f"postgresql://{self.user}:{self.password}@127.0.0.1:{self.port}/pgbouncer",
                               "-A", "-F", "|", "-P", "footer=off", "-c", "SHOW POOLS"],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        header, *rows = done.stdout.splitlines()
        pools = [dict(zip(header.split("|"), row.split("|"))) for row in rows]
        return next(pool for pool in pools if pool["database"] == self.name)

    def log(self):
        path = self.dir / "pgbouncer.log"
        return (path.read_text(errors="replace") if path.exists() else "") + self.process.text()

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


class Nginx:
    """nginx with deploy/nginx/storeplatform.conf as its one site, on 127.0.0.1 (its HTTP and
    HTTPS ports chosen here, a self-signed certificate), forwarding to the nodes."""

    def __init__(self, directory, nodes, started):
        self.dir = directory
        self.dir.mkdir()
        for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (self.dir / sub).mkdir()
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                        "-days", "2", "-subj", "/CN=shop.example.com", "-keyout", str(self.dir / "site.key"),
                        "-out", str(self.dir / "site.pem")], check=True, capture_output=True)
        self.nodes = nodes
        self.down = set()
        main = self.dir / "nginx.conf"
        main.write_text("\n".join([
            # The machine's /etc/nginx/nginx.conf, as this test needs it: its own files; as root,
            # its workers run as root too (the test's folders are root's alone).
            *(["user root;"] if os.geteuid() == 0 else []),
            f"pid {self.dir / 'nginx.pid'};", f"error_log {self.dir / 'error.log'} warn;", "worker_processes 2;",
            "events { worker_connections 1024; }",
            "http {", "  access_log off;",
            *(f"  {kind}_temp_path {self.dir / sub};" for kind, sub in (
                ("client_body", "body"), ("proxy", "proxy"), ("fastcgi", "fastcgi"), ("uwsgi", "uwsgi"),
                ("scgi", "scgi"))),
            f"  include {self.dir / 'storeplatform.conf'};", "}", ""]))
        self.argv = ["/usr/sbin/nginx", "-c", str(main), "-p", str(self.dir)]
        for attempt in range(5):
            self.http_port, self.https_port = free_port(), free_port()
            self._write_site()
            self.process = Served("nginx", [*self.argv, "-g", "daemon off;"], cli_environ(), self.dir,
                                  self.dir / "stderr.log")
            started.append(self.process)
            wanted = {(PROXY, self.http_port), (PROXY, self.https_port)}
            while self.process.proc.poll() is None and not wanted <= listening(self.process.proc.pid):
                time.sleep(0.05)
            if self.process.proc.poll() is None:
                return
            if "in use" not in self.process.text():
                raise AssertionError(f"nginx did not start:\n{self.process.text()}")
        raise AssertionError(f"nginx found no free ports in 5 tries:\n{self.process.text()}")

    def _write_site(self):
        servers = {}
        for (old, (name, address)) in zip(("server 10.0.0.11:6543", "server 10.0.0.12:6543"), NODE_ADDRESSES.items()):
            new = f"server {address}:{self.nodes[name].port}"
            servers[old] = new + (" down" if name in self.down else "")
        (self.dir / "storeplatform.conf").write_text(render("nginx/storeplatform.conf", {
            **servers,
            "listen 80;": f"listen {PROXY}:{self.http_port};",
            "listen 443 ssl http2;": f"listen {PROXY}:{self.https_port} ssl http2;",
            "/etc/ssl/certs/shop.example.com.pem": str(self.dir / "site.pem"),
            "/etc/ssl/private/shop.example.com.key": str(self.dir / "site.key"),
        }))

    def reload(self):
        """The site file written again (a node down or back), and nginx told to reload it: new
        connections go by the new file; requests under way finish on the old workers."""
        self._write_site()
        before = self.workers()
        done = subprocess.run([*self.argv, "-s", "reload"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        # nginx answers the signal asynchronously: new workers read the new file; the old ones
        # finish the requests they hold (with the old file: to the node being taken out, too)
        # and exit, each kept-alive connection closed after its request. Once they are gone,
        # nothing more is sent by the old file.
        deadline = time.monotonic() + scaled(30)
        while len(self.workers() - before) < 2 or self.workers() & before:
            assert time.monotonic() < deadline, f"nginx did not reload:\n{self.process.text()}"
            time.sleep(0.02)

    def workers(self):
        """The master's children now (its workers, old and new)."""
        pid = self.process.proc.pid
        try:
            return set((Path(f"/proc/{pid}/task/{pid}/children").read_text()).split())
        except OSError:
            return set()

    def connect(self, timeout):
        context = ssl.create_default_context(cafile=str(self.dir / "site.pem"))
        context.check_hostname = False
        return http.client.HTTPSConnection(PROXY, self.https_port, timeout=timeout, context=context)

    @property
    def url(self):
        return f"https://{PROXY}:{self.https_port}"


# --- the nodes ---------------------------------------------------------------------------------

class Node:
    """One machine: deploy/storeplatform.ini with its address and its own var/ and run/ folders,
    gunicorn and ``storeplatform worker`` as the systemd units start them."""

    def __init__(self, name, root, env_values, replacements):
        self.name = name
        self.address = NODE_ADDRESSES[name]
        self.dir = root / f"node-{name}"
        for sub in ("etc", "var/lib/storeplatform", "run/storeplatform/metrics"):
            (self.dir / sub).mkdir(parents=True)
        self.ini = self.dir / "etc" / "storeplatform.ini"
        self.ini.write_text(render("storeplatform.ini", {
            **replacements,
            "host = 10.0.0.11": f"host = {self.address}",
            # The system chooses the port of the first start (read back from gunicorn's socket);
            # a restart binds the same one again (http_port=).
            "port = 6543": "port = 0",
            "storeplatform.metrics_dir = /run/storeplatform/metrics":
                f"storeplatform.metrics_dir = {self.dir / 'run/storeplatform/metrics'}",
            "mail.directory = /var/lib/storeplatform/mail": f"mail.directory = {self.dir / 'var/lib/storeplatform/mail'}",
        }))
        self.env = unit_environment(env_values)
        self.port = 0
        self.web = self.worker = None
        self.starts = 0

    def start(self, started, web=True, worker=True):
        self.starts += 1
        if worker:
            self.start_worker(started)
        if web:
            self.start_web(started)

    def start_worker(self, started):
        self.worker = Served(f"worker {self.name}", unit_command("storeplatform-worker.service", self.ini), self.env,
                             self.dir, self.dir / f"worker-{self.starts}.log")
        started.append(self.worker)

    def start_web(self, started):
        argv = unit_command("storeplatform-web.service", self.ini)
        self.web, self.port = start_server(started, f"gunicorn {self.name}", argv, self.env, self.dir,
                                           self.dir / f"web-{self.starts}.log", host=self.address, port=self.port)

    def connect(self, timeout):
        return http.client.HTTPConnection(self.address, self.port, timeout=timeout)


class Topology:
    def __init__(self, stack, tmp):
        self.tmp = tmp
        self.started = stack.enter_context(processes())
        self.site = stack.enter_context(backend(tmp))
        self.pgbouncer = PgBouncer(self.site.database_url, self.started)
        stack.callback(self.pgbouncer.close)
        self.smtp = stack.enter_context(SmtpServer())
        self.hooks = Webhooks()
        stack.callback(self.hooks.close)
        self.metrics_token = secrets.token_hex(16)
        env_values = {
            "STOREPLATFORM_SECRET": self.site.secret,
            "STOREPLATFORM_DATABASE_URL": self.pgbouncer.url(),
            "STOREPLATFORM_HUEY_URL": self.site.huey_url,
            "STOREPLATFORM_METRICS_TOKEN": self.metrics_token,
            "STOREPLATFORM_MAIL_PASSWORD": "",
        }
        replacements = {
            "sqlalchemy.url = postgresql://storeplatform@10.0.0.20:6432/storeplatform":
                f"sqlalchemy.url = postgresql://{self.pgbouncer.user}@127.0.0.1:{self.pgbouncer.port}/{self.pgbouncer.name}",
            "huey.url = redis://10.0.0.21:6379/0": f"huey.url = {self.site.huey_url}",
            "storeplatform.trusted_proxies = 10.0.0.10": f"storeplatform.trusted_proxies = {PROXY}",
            "storeplatform.metrics_allow = 10.0.0.30": "storeplatform.metrics_allow = 127.0.0.1",
            # The webhook receiver is on this machine: its address is a trusted network here.
            "events.webhooks.trusted_networks =": "events.webhooks.trusted_networks = 127.0.0.1/32",
            # The relay: aiosmtpd on 127.0.0.1 without TLS (the scheme for a relay on this machine).
            "mail.url = smtp://storeplatform@10.0.0.25:587": f"mail.url = {self.smtp.url()}",
            # The sweeps' ages (and the time-outs they add), seconds instead of minutes: the
            # deliveries and messages a killed worker held are handed on or closed within the
            # test (the receivers answer at once).
            "events.webhooks.timeout = 30": f"events.webhooks.timeout = {HOOK_TIMEOUT}",
            "events.webhooks.requeue_after = 300": f"events.webhooks.requeue_after = {REQUEUE_AFTER}",
            "mail.timeout = 10": f"mail.timeout = {MAIL_TIMEOUT}\nmail.requeue_after = {REQUEUE_AFTER}",
        }
        self.nodes = {name: Node(name, tmp, env_values, replacements) for name in NODE_ADDRESSES}
        began = time.monotonic()
        a = self.nodes["a"]
        self.creds, _ = prepare_site(a.ini, a.env, a.dir)
        self.cli(
            ["option", "set", "site.url", "https://shop.example.com"],
            ["option", "set", "mail.from", "shop@example.com"],
            # The login throttle's limit, low enough for the check to reach it.
            ["option", "set", "auth.throttle_login_failures", "3"],
            # Mail without PDFs (the order's invoice, the tickets): the workers of this 2-core
            # machine render the invoices once already.
            ["option", "set", "invoicing.attach_invoice", "[]"],
            ["option", "set", "events.ticket_mail_enabled", "false"],
        )
        self.timings = {"set-up": time.monotonic() - began}
        began = time.monotonic()
        for node in self.nodes.values():
            node.start(self.started)
        for node in self.nodes.values():
            wait_ready(node.port, node.web, host=node.address, auth=self.creds.admin)
        self.nginx = Nginx(tmp / "nginx", self.nodes, self.started)
        self.timings["start"] = time.monotonic() - began

    def cli(self, *commands, node="a"):
        node = self.nodes[node]
        outputs = []
        for command in commands:
            result = run_cli("-c", str(node.ini), *command, environ=node.env)
            assert result.returncode == 0, (command, result.stdout, result.stderr)
            outputs.append(result.stdout.strip())
        return outputs

    def servers(self):
        """Every process of the nodes started so far (those stopped or killed too: their output)."""
        return [p for p in self.started if p.name.startswith(("gunicorn", "worker"))]

    def database(self):
        """The run's database directly (the test's own reads, not the site's)."""
        return create_engine(self.site.database_url, poolclass=NullPool)


@pytest.fixture(scope="module")
def topology(tmp_path_factory):
    if not server_database_url():
        pytest.fail("the topology runs on PostgreSQL + Redis (.ci/run's last pass)")
    began = time.monotonic()
    with contextlib.ExitStack() as stack:
        topology = Topology(stack, tmp_path_factory.mktemp("topology"))
        yield topology
        # Stopped at once rather than one after the other: nginx, then every node's processes
        # together (PgBouncer, Redis and the database stay until they have exited).
        stopping = time.monotonic()
        topology.nginx.process.stop()
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda process: process.stop(), [p for p in topology.started if p.name.startswith(
                ("gunicorn", "worker"))]))
        topology.timings["stop"] = time.monotonic() - stopping
        print(f"topology: {time.monotonic() - began:.1f}s in all; "
              + ", ".join(f"{k} {v:.1f}s" for k, v in topology.timings.items()))


def tails(topology):
    text = ""
    for proc in [*topology.servers(), topology.pgbouncer.process, topology.nginx.process]:
        text += f"\n--- {proc.name} ({proc.log_path}) ---\n{proc.tail(25)}"
    return text + f"\n--- nginx error.log ---\n{(topology.nginx.dir / 'error.log').read_text()[-3000:]}"


def assert_load(topology, outcome, problems, calls=()):
    """No failed request, nothing slower than the bound, nothing read back wrong, no traceback in
    any process's output."""
    found = failures(outcome, problems, list(calls), topology.servers())
    assert not found, "\n".join(found) + "\n\n" + summary(outcome, list(calls)) + tails(topology)


# --- the checks --------------------------------------------------------------------------------

def check_mixed_load_through_nginx_webhooks_and_mail_once_invoice_numbers_gapless(topology):
    t = topology
    t.hooks.register(t.nginx.connect, t.creds, t.nginx.process)
    baseline = list_totals(t.nginx.connect, t.creds)
    outcome = drive(t.nginx.connect, t.creds, CLIENTS, seconds=LOAD_SECONDS, tag="mixed")
    statuses = Counter(c.status for c in outcome.calls)
    assert not any(status and status >= 500 for status in statuses), statuses
    waited, rows = t.hooks.wait(t.site.database_url, outcome.ledger)
    hook_problems = t.hooks.check(t.nginx.connect, t.creds, outcome.ledger, rows, waited, t.servers())
    problems, calls = verify(t.nginx.connect, t.creds, outcome.ledger, baseline=baseline)
    print(summary(outcome, calls) + "\n" + "\n".join(t.hooks.lines))
    assert_load(t, outcome, problems + hook_problems, calls)

    # Each paid order's "order received" message reached the relay once, whichever node's
    # worker sent it.
    orders = set(outcome.ledger.orders)
    deadline = time.monotonic() + scaled(30)
    with t.database().connect() as db:
        while True:
            numbers = {row.order_id: row for row in db.execute(text(
                "SELECT (context->>'order_id')::int AS order_id, status FROM mail_outbox "
                "WHERE kind = 'store.order_received'"))}
            if all(numbers.get(o) is not None and numbers[o].status in ("sent", "failed") for o in orders) \
                    or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        documents = [row[0] for row in db.execute(text(
            "SELECT invoice_number FROM invoicing_documents WHERE document_type = 'invoice' ORDER BY invoice_number"))]
    received = Counter(m["Message-ID"] for m in t.smtp.keeper.messages())
    twice = {k: n for k, n in received.items() if n > 1}
    assert not twice, f"messages received more than once: {twice}"
    not_sent = {o: (numbers.get(o).status if numbers.get(o) is not None else None) for o in orders
                if numbers.get(o) is None or numbers[o].status != "sent"}
    assert not not_sent, f"orders whose message was not sent: {not_sent}"
    assert len(received) >= len(orders), (len(received), len(orders))
    # Gapless: 1..N, each once, N the number of orders invoiced (every paid order, by whichever worker).
    assert documents == list(range(1, len(documents) + 1)), documents
    assert len(documents) >= len(outcome.ledger.documents), (len(documents), len(outcome.ledger.documents))
    print(f"mail: {len(received)} messages for {len(orders)} orders; invoices 1..{len(documents)}; "
          f"load factor {load_factor():.1f}")
    # The tasks each machine's worker ran (its machine's scrape): both take from the one queue.
    # (Shown, not required: an idle Huey consumer polls less often, so one may take most.)
    print("tasks run: " + ", ".join(f"node {name} {_tasks_run(t, node):.0f}" for name, node in t.nodes.items()))
    # Every process went through PgBouncer in transaction mode: its clients (the processes'
    # kept connections) outnumber the server connections it used, within its pool.
    pool = t.pgbouncer.pool()
    clients = int(pool["cl_active"]) + int(pool["cl_waiting"])
    servers = sum(int(pool[key]) for key in ("sv_active", "sv_idle", "sv_used", "sv_tested", "sv_login"))
    print(f"pgbouncer: {clients} client connections, {servers} server connections ({pool})")
    assert pool["pool_mode"] == "transaction" and 0 < servers <= 25 and clients > servers, pool


def _tasks_run(t, node):
    """The task runs a node's scrape counts (its worker's, from the machine's metrics directory)."""
    conn = node.connect(scaled(10))
    try:
        conn.request("GET", "/metrics", headers={"Authorization": f"Bearer {t.metrics_token}"})
        res = conn.getresponse()
        text_ = res.read().decode()
    finally:
        conn.close()
    assert res.status == 200, text_[:300]
    return sum(float(line.rsplit(" ", 1)[1]) for line in text_.splitlines()
               if line.startswith("storeplatform_task_runs_total{"))


def _direct(topology, name, auth=None):
    """A client of node ``name`` itself (not through nginx)."""
    return Client(topology.nodes[name].connect, auth or topology.creds.admin)


def must(client, label, method, path, body=None, expect=200, **kwargs):
    """The answer of a request that must have the status ``expect`` (the test stops with the
    problem otherwise)."""
    answer = client.call(label, method, path, body, expect=expect, **kwargs)
    assert answer is not None, f"{label}: {client.calls[-1].problem}"
    return answer


def check_a_write_through_one_node_is_read_fresh_through_the_other(topology):
    t = topology
    a, b = _direct(t, "a"), _direct(t, "b")
    S, I = f"{API}/store/v1", f"{API}/invoicing/v1"
    try:
        # Cached answers and list totals: B has answered (and kept) them before A writes.
        before = must(b, "list", "GET", f"{S}/products?per_page=1")
        product = must(a, "create", "POST", f"{S}/products", {"name": "Fresh tea", "regular_price": "3.00"},
                         expect=201).json()
        after = must(b, "list", "GET", f"{S}/products?per_page=1")
        assert int(after.headers["X-Total"]) == int(before.headers["X-Total"]) + 1
        assert must(b, "read", "GET", f"{S}/products/{product['id']}").json()["name"] == "Fresh tea"
        must(a, "update", "PUT", f"{S}/products/{product['id']}", {"name": "Fresher tea"})
        assert must(b, "read", "GET", f"{S}/products/{product['id']}").json()["name"] == "Fresher tea"
        must(a, "delete", "DELETE", f"{S}/products/{product['id']}?force=true")
        must(b, "read gone", "GET", f"{S}/products/{product['id']}", expect=404)
        # Site options: set through one machine's CLI, seen at once by the other's processes.
        tea = must(a, "product", "POST", f"{S}/products", {"name": "Tea", "regular_price": "2.00"}, expect=201).json()
        order = must(a, "order", "POST", f"{S}/orders", {"status": "processing", "billing": {"first_name": "Ada"},
                                                          "line_items": [{"product_id": tea["id"], "quantity": 1}]},
                     expect=201).json()
        must(a, "invoice", "POST", f"{I}/documents/{order['id']}/regenerate", {})
        must(b, "invoicing on", "GET", f"{I}/documents/{order['id']}")
        t.cli(["option", "set", "invoicing.rest_api_enabled", "false"], node="a")
        try:
            must(b, "invoicing off", "GET", f"{I}/documents/{order['id']}", expect=404)
        finally:
            t.cli(["option", "set", "invoicing.rest_api_enabled", "true"], node="a")
        must(b, "invoicing on again", "GET", f"{I}/documents/{order['id']}")
        # Identities: an application password issued through A works on B at once; revoked
        # through A, B refuses it at once (B had just used it: its identity was fresh in B).
        user = must(a, "user", "POST", f"{S}/users", {"username": "nomad", "email": "nomad@example.com",
                                                      "password": "first-password-1", "roles": ["shop_manager"]},
                      expect=201).json()
        issued = must(a, "app password", "POST", f"{S}/users/{user['id']}/app-passwords", {"name": "topology"},
                        expect=201).json()
        assert issued["_links"]["self"][0]["href"].startswith("http"), issued
        nomad = basic("nomad", issued["password"])
        assert must(b, "me", "GET", f"{S}/users/me", auth=nomad).json()["id"] == user["id"]
        must(a, "revoke", "DELETE", f"{S}/users/{user['id']}/app-passwords/{issued['id']}")
        must(b, "me revoked", "GET", f"{S}/users/me", auth=nomad, expect=401)
        # A password change through A ends the cookie sessions begun on A and on B, and the
        # token B issued, at once on both.
        sessions = {}
        for name, node in (("a", a), ("b", b)):
            conn = t.nodes[name].connect(scaled(10))
            conn.request("POST", f"{S}/auth/login", body=json.dumps({"login": "nomad", "password": "first-password-1"}),
                         headers={"Content-Type": "application/json"})
            res = conn.getresponse()
            answer = res.read()
            assert res.status == 200, (res.status, answer)
            # A cookie session's REST request carries its nonce (X-Nonce), as the admin's pages do.
            sessions[name] = {"Cookie": res.headers["Set-Cookie"].split(";", 1)[0],
                              "X-Nonce": json.loads(answer)["nonce"]}
            conn.close()
        token = must(b, "token", "POST", f"{S}/auth/token", {"login": "nomad", "password": "first-password-1"},
                       auth=False).json()["token"]
        for name in ("a", "b"):
            for other in (a, b):
                must(other, "cookie", "GET", f"{S}/users/me", auth=False, headers=sessions[name])
                must(other, "session", "GET", f"{S}/auth/nonce", auth=False,
                     headers={"Cookie": sessions[name]["Cookie"]})
        must(a, "token", "GET", f"{S}/users/me", auth=f"Bearer {token}")
        must(a, "password", "PUT", f"{S}/users/{user['id']}", {"password": "second-password-2"})
        for name in ("a", "b"):
            for other in (a, b):
                must(other, "session ended", "GET", f"{S}/auth/nonce", auth=False, expect=401,
                     headers={"Cookie": sessions[name]["Cookie"]})
        for other in (a, b):
            must(other, "token ended", "GET", f"{S}/users/me", auth=f"Bearer {token}", expect=401)
        # The login throttle counts the guesses of both machines: three wrong ones from one
        # address (the proxy forwards it) spread over A and B, then the right password is
        # refused on either; another address is not.
        guess = {"login": "nomad", "password": "wrong-guess"}
        for node in (a, b, a):
            must(node, "guess", "POST", f"{S}/auth/login", guess, auth=False, expect=401,
                 headers={"X-Forwarded-For": "198.51.100.7"})
        right = {"login": "nomad", "password": "second-password-2"}
        for node in (b, a):
            must(node, "throttled", "POST", f"{S}/auth/login", right, auth=False, expect=429,
                 headers={"X-Forwarded-For": "198.51.100.7"})
        must(b, "other address", "POST", f"{S}/auth/login", right, auth=False,
             headers={"X-Forwarded-For": "198.51.100.8"})
    finally:
        a.close()
        b.close()
    problems = [c for c in a.calls + b.calls if c.problem]
    assert not problems, problems


def check_one_check_in_wins_among_scans_on_both_nodes(topology):
    t = topology
    c = _direct(t, "a")
    E, S = f"{API}/events/v1", f"{API}/store/v1"
    event = c.call("event", "POST", f"{E}/events", {"title": "Door", "start_date": "2027-05-01", "start_time": "20:00"},
                   expect=201).json()
    product = c.call("product", "POST", f"{S}/products", {"name": "Door ticket", "regular_price": "1.00",
                                                          "meta": {"event_id": event["id"]}}, expect=201).json()
    answers = Counter()
    for round_ in range(3):
        order = c.call("order", "POST", f"{S}/orders", {
            "status": "processing", "billing": {"first_name": "Door", "email": "door@example.com"},
            "line_items": [{"product_id": product["id"], "quantity": 1}]}, expect=201).json()
        code = c.call("ticket", "GET", f"{E}/attendees?order_id={order['id']}").json()[0]["ticket_code"]

        def scan(number):
            node = "a" if number % 2 else "b"
            conn = t.nodes[node].connect(scaled(20))
            try:
                conn.request("POST", f"{E}/checkin", body=json.dumps({"ticket_code": code}),
                             headers={"Authorization": t.creds.manager, "Content-Type": "application/json"})
                res = conn.getresponse()
                return res.status, json.loads(res.read())
            finally:
                conn.close()

        with ThreadPoolExecutor(12) as pool:
            results = list(pool.map(scan, range(12)))
        assert all(status == 200 and body["success"] for status, body in results), results
        winners = [body for _, body in results if not body["already_in"]]
        assert len(winners) == 1, results
        answers.update("won" if not body["already_in"] else "already in" for _, body in results)
    c.close()
    print(f"check-in: {dict(answers)}")


def _kill_group(process):
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.proc.pid, signal.SIGKILL)
    process.proc.wait(10)


def check_a_node_killed_under_load_loses_no_answered_write(topology):
    t = topology
    victim = t.nodes["b"]
    baseline = list_totals(t.nginx.connect, t.creds)
    with t.database().connect() as db:
        first_delivery, first_message = db.execute(text(
            "SELECT (SELECT coalesce(max(id), 0) FROM evt_webhook_deliveries), "
            "(SELECT coalesce(max(id), 0) FROM mail_outbox)")).one()
    stop = threading.Event()
    result = {}

    def load():
        result["outcome"] = drive(t.nginx.connect, t.creds, CLIENTS, seconds=scaled(60), tag="kill", stop=stop)

    loader = threading.Thread(target=load)
    began = time.monotonic()
    loader.start()
    try:
        time.sleep(1.5)  # requests under way on both nodes
        killed_at = time.monotonic()
        _kill_group(victim.web)
        _kill_group(victim.worker)
        time.sleep(1.5)  # the other node serves alone
    finally:
        stop.set()
        loader.join()
    # Its gunicorn starts again at once (the units' Restart=always), on its port; its worker once
    # what the killed one held is old enough for the sweep a worker runs as it starts to close it.
    victim.start(t.started, worker=False)
    wait_ready(victim.port, victim.web, host=victim.address, auth=t.creds.admin)
    time.sleep(max(0.0, killed_at + ABANDON_AFTER + 0.5 - time.monotonic()))
    victim.start_worker(t.started)
    outcome = result["outcome"]
    # The requests under way on the killed node when it died have no whole answer through nginx:
    # a 502 (nginx sends a request that reached a node to no other: a POST must not run twice),
    # or an answer cut short. Every client has at most one under way; no other request may fail.
    errors = outcome.errors()
    at_the_kill = [c for c in errors if c.status == 502 or (c.status is None and c.problem.startswith(
        ("IncompleteRead", "RemoteDisconnected", "ConnectionResetError")))]
    # A product's calculator whose configuration was lost so is not there for the round's next
    # two requests (a 404 each): what the lost request would have made, not a failure of its own.
    calculators = sum(c.label == "POST pricecalc/v1/products/{id}/calculator" for c in at_the_kill)
    without_calculator = [c for c in errors if c.status == 404 and "invalid_product" in c.problem and c.label in (
        "GET pricecalc/v1/products/{id}/calculator", "POST pricecalc/v1/calculate")]
    assert len(at_the_kill) <= CLIENTS and len(without_calculator) <= 2 * calculators and \
        len(errors) == len(at_the_kill) + len(without_calculator), \
        "\n".join(f"{c.label}: {c.problem}" for c in errors) + tails(t)
    # Every answered write is read back, the totals within what the unanswered creates may have
    # added.
    problems, calls = verify(t.nginx.connect, t.creds, outcome.ledger, baseline=baseline)
    print(summary(outcome, calls) + f"\n{len(at_the_kill)} requests without a whole answer at the kill; "
                                    f"node b killed {killed_at - began:.1f}s into the load")
    assert not problems, "\n".join(problems) + tails(t)
    check_nothing_claimed_is_lost(t, first_delivery, first_message)


def check_nothing_claimed_is_lost(t, first_delivery, first_message):
    """Every webhook delivery and every message of the phase ends delivered (sent) once, or,
    when the killed worker held it while sending, closed as abandoned (it may have reached the
    receiver: never sent again); none is left waiting, none arrives twice."""
    deadline = time.monotonic() + scaled(40)
    with t.database().connect() as db:
        while True:
            deliveries = db.execute(text("SELECT id, uuid, status, error FROM evt_webhook_deliveries WHERE id > :i"),
                                    {"i": first_delivery}).all()
            messages = db.execute(text("SELECT id, message_id, status, response FROM mail_outbox WHERE id > :i"),
                                  {"i": first_message}).all()
            waiting = [r for r in deliveries if r.status in ("pending", "sending")] + \
                [r for r in messages if r.status in ("composing", "pending", "sending")]
            if not waiting or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    assert not waiting, f"still waiting {scaled(40):.0f}s after the worker's restart: {waiting[:10]}" + tails(t)
    received = Counter(post.headers.get("X-EVT-Delivery") for topic in ("event.created", "event.updated")
                       for post in t.hooks.receiver.posts(f"/hook/{topic}"))
    twice = {u: n for u, n in received.items() if n > 1}
    assert not twice, f"deliveries received twice: {twice}"
    bad = [r for r in deliveries if not (r.status == "delivered" and received[r.uuid] == 1
                                         or r.status == "failed" and (r.error or "").startswith("abandoned"))]
    assert not bad, bad[:10]
    mail = Counter(m["Message-ID"] for m in t.smtp.keeper.messages())
    assert not {k: n for k, n in mail.items() if n > 1}, mail.most_common(3)
    bad = [r for r in messages if not (r.status == "sent" and mail[r.message_id] == 1
                                       or r.status == "failed" and (r.response or "").startswith("abandoned"))]
    assert not bad, bad[:10]
    abandoned = sum(r.status == "failed" for r in deliveries) + sum(r.status == "failed" for r in messages)
    print(f"after the kill: {len(deliveries)} webhook deliveries and {len(messages)} messages, each delivered "
          f"once but {abandoned} abandoned by the killed worker")


def _stop(process, timeout=40.0):
    """SIGTERM, as systemctl stop sends it; seconds until it exited."""
    began = time.monotonic()
    process.proc.send_signal(signal.SIGTERM)
    process.proc.wait(scaled(timeout))
    return time.monotonic() - began


def _get(node, path):
    conn = node.connect(scaled(10))
    try:
        conn.request("GET", path)
        res = conn.getresponse()
        return res.status, res.read()
    finally:
        conn.close()


def check_rolling_restart_under_load_fails_no_request_and_an_additive_migration_meanwhile(topology):
    t = topology
    baseline = list_totals(t.nginx.connect, t.creds)
    stop = threading.Event()
    result = {}

    def load():
        result["outcome"] = drive(t.nginx.connect, t.creds, CLIENTS, seconds=scaled(120), tag="roll", stop=stop)

    loader = threading.Thread(target=load)
    loader.start()
    steps = []
    try:
        time.sleep(1.0)  # requests under way on both nodes
        # A newer release's migration that only adds (a column, a table), applied through
        # PgBouncer while the old code serves on both nodes, as `storeplatform migrate` of that
        # release would: its DDL and its revision (one this code does not know) in
        # alembic_version. The old code neither reads nor minds the additions; it stays ready,
        # and the nodes restarted below (still this code) start and serve.
        engine = create_engine(t.pgbouncer.url(), poolclass=NullPool)
        with engine.begin() as db:
            db.execute(text("ALTER TABLE products ADD COLUMN topology_note text"))
            db.execute(text("CREATE TABLE topology_added (id serial PRIMARY KEY, note text NOT NULL)"))
            head = db.execute(text("SELECT version_num FROM alembic_version WHERE version_num LIKE 'sp%'")).scalar_one()
            db.execute(text("UPDATE alembic_version SET version_num = 'sp9001' WHERE version_num = :head"),
                       {"head": head})
        engine.dispose()
        for node in t.nodes.values():
            status, body = _get(node, "/readyz")
            assert status == 200, (node.name, status, body)
        for name, node in t.nodes.items():
            began = time.monotonic()
            # The balancer stops sending to the node before the node stops accepting.
            t.nginx.down.add(name)
            t.nginx.reload()
            # gunicorn's socket closes, each worker finishes its request; the worker's tasks
            # under way finish.
            with ThreadPoolExecutor(2) as pool:
                web, worker = pool.map(_stop, (node.web, node.worker))
            node.start(t.started)
            ready = wait_ready(node.port, node.web, host=node.address, auth=t.creds.admin)
            t.nginx.down.discard(name)
            t.nginx.reload()
            steps.append(f"node {name}: gunicorn stopped in {web:.1f}s, worker in {worker:.1f}s, ready again "
                         f"{ready:.1f}s after its start, back after {time.monotonic() - began:.1f}s")
        time.sleep(1.0)  # both nodes serve again under the load
    finally:
        stop.set()
        loader.join()
    outcome = result["outcome"]
    problems, calls = verify(t.nginx.connect, t.creds, outcome.ledger, baseline=baseline)
    print(summary(outcome, calls) + "\n" + "\n".join(steps))
    assert_load(t, outcome, problems, calls)
    assert len(outcome.calls) > 100, summary(outcome)


CHECKS = (check_mixed_load_through_nginx_webhooks_and_mail_once_invoice_numbers_gapless,
          check_a_write_through_one_node_is_read_fresh_through_the_other,
          check_one_check_in_wins_among_scans_on_both_nodes,
          check_a_node_killed_under_load_loses_no_answered_write,
          check_rolling_restart_under_load_fails_no_request_and_an_additive_migration_meanwhile)


def test_the_site_on_two_machines_behind_nginx_and_pgbouncer(topology):
    """The checks in turn on the one topology, the destructive ones last. One test rather than
    one per check: xdist's load distribution (dev.py's -n) may give a module's tests to several
    processes, each of which would start a topology of its own."""
    for check in CHECKS:
        began = time.monotonic()
        print(f"\n== {check.__name__[len('check_'):].replace('_', ' ')}")
        check(topology)
        topology.timings[" ".join(check.__name__.split("_")[1:5])] = time.monotonic() - began
