"""Webhook worker benchmark (issue #12, webhook row): deliveries per second of one
`storeplatform worker --workers 4` draining queued `event.updated` deliveries, against a plain
pool of 4 threads doing `requests.post` of the same bodies with the same headers to the same
receiver, in the same run.

Production topology: a fresh PostgreSQL database (storeplatform.testing.TestDatabase), Huey on
Redis under a queue name of its own, the worker as a real process with the production webhook
policy (private targets refused, every address resolved, checked and pinned; the receiver's
127.0.0.1 trusted), and a fast keep-alive receiver on 127.0.0.1 in its own process
(bench/http/webhook_receiver.py, asyncio: it is not the bottleneck). The deliveries are made
the real way: 10 webhooks of `event.updated` and `deliveries / 10` event updates through the
REST API, each update's transaction writing its 10 deliveries and handing them to Huey after
commit. The worker is frozen (SIGSTOP) while the updates go through, so that the clock
measures the worker alone: it starts when the full queue is released (SIGCONT) and stops when
the receiver has counted the last delivery; the receiver also checks each was sent once. The
bare side then posts the very same bodies and headers. Rounds alternate; the best of each side
counts.

    .venv/bin/python bench/http/webhooks.py [--deliveries 2000] [--rounds 2] [--profile out.svg]

STOREPLATFORM_DATABASE_URL / STOREPLATFORM_HUEY_URL name the servers (default: PostgreSQL and
Redis on 127.0.0.1, as the test suite's production run uses).
"""
import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
TOOL = str(Path(sys.executable).with_name("storeplatform"))
RECEIVER = Path(__file__).with_name("webhook_receiver.py")
SERVERS = {"STOREPLATFORM_DATABASE_URL": "postgresql://postgres@127.0.0.1:5432/postgres",
           "STOREPLATFORM_HUEY_URL": "redis://127.0.0.1:6379/0"}
WEBHOOKS = 10
THREADS = 4
TOPIC = "event.updated"
# The production ini's logging: warnings only (config/production.ini).
LOGGING = """
[loggers]
keys = root

[handlers]
keys = console

[formatters]
keys = generic

[logger_root]
level = WARNING
handlers = console

[handler_console]
class = StreamHandler
args = (sys.stderr,)
level = NOTSET
formatter = generic

[formatter_generic]
format = %(asctime)s %(levelname)-5.5s [%(name)s][%(process)d] %(message)s
"""


@contextlib.contextmanager
def server_environment():
    """The database and queue servers of the production topology (the caller's own
    STOREPLATFORM_* variables win); the environment is restored afterwards."""
    saved = {key: os.environ.get(key) for key in SERVERS}
    for key, default in SERVERS.items():
        os.environ[key] = os.environ.get(key) or default
    try:
        yield os.environ["STOREPLATFORM_HUEY_URL"]
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextlib.contextmanager
def receiver_process():
    """The fast receiver in a process of its own; yields its base URL."""
    proc = subprocess.Popen([sys.executable, str(RECEIVER)], stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline())
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class Counter:
    """What the receiver has seen: POSTs and distinct delivery ids."""

    def __init__(self, base_url):
        self.url = base_url + "/count"
        self.http = requests.Session()

    def read(self):
        return self.http.get(self.url, timeout=10).json()

    def wait_for(self, posts, proc, timeout=300.0, interval=0.02):
        deadline = time.monotonic() + timeout
        while True:
            seen = self.read()
            if seen["posts"] >= posts:
                return seen
            if proc.poll() is not None:
                raise SystemExit(f"the worker stopped (exit {proc.returncode}) after {seen['posts']} posts")
            if time.monotonic() > deadline:
                raise SystemExit(f"only {seen['posts']} of {posts} posts arrived in {timeout:g} s")
            time.sleep(interval)


def write_worker_ini(path, settings):
    keys = ("sqlalchemy.url", "huey.url", "huey.name", "storeplatform.plugins", "storeplatform.secret",
            "events.webhooks.allow_private_targets", "events.webhooks.trusted_networks")
    path.write_text("[app:main]\nuse = egg:storeplatform\nhuey.embedded_consumer = false\n"
                    + "".join(f"{key} = {settings[key]}\n" for key in keys) + LOGGING)
    return path


def queued_attempts(site, finished=False):
    """(url, body, headers) of every pending delivery (or of the finished ones in the log),
    signed exactly as the worker signs them."""
    from sqlalchemy import select
    from storeplatform_events.webhooks.delivery import signed_attempt
    from storeplatform_events.webhooks.models import PENDING, Webhook, WebhookDelivery

    with site.session() as s:
        rows = s.execute(select(WebhookDelivery, Webhook).join(Webhook, Webhook.id == WebhookDelivery.webhook_id)
                         .where((WebhookDelivery.status != PENDING) if finished else (WebhookDelivery.status == PENDING))
                         .order_by(WebhookDelivery.id)).all()
        attempts = [signed_attempt(w.id, w.url, w.secret, d.topic, d.body.encode(), d.uuid, d.timestamp)
                    for d, w in rows]
    return [(a.url, a.body, a.headers) for a in attempts]


def unfinished(site):
    from sqlalchemy import func, select
    from storeplatform_events.webhooks.models import PENDING, SENDING, WebhookDelivery

    with site.session() as s:
        return s.execute(select(func.count()).where(WebhookDelivery.status.in_((PENDING, SENDING)))).scalar_one()


def cpu_seconds(pid):
    """(user, system) CPU seconds of process ``pid`` and its threads so far (Linux), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / ticks, int(fields[12]) / ticks


def start_profiler(pid, path):
    spy = Path(sys.executable).with_name("py-spy")
    kind = "flamegraph" if str(path).endswith(".svg") else "raw"
    proc = subprocess.Popen([str(spy), "record", "--pid", str(pid), "--threads", "--gil", "--nonblocking", "--rate", "250",
                             "--format", kind, "-o", str(path)], stdout=subprocess.DEVNULL)
    time.sleep(1.0)  # attached before the clock starts
    return proc


def bare_pool(attempts):
    """Posts/s of 4 threads, each posting its share with requests.post (a new session and
    connection each time)."""
    shares = [attempts[i::THREADS] for i in range(THREADS)]
    failures = []

    def send(share):
        for url, body, headers in share:
            if requests.post(url, data=body, headers=headers, timeout=30).status_code != 200:
                failures.append(url)

    threads = [threading.Thread(target=send, args=(share,)) for share in shares]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    if failures:
        raise SystemExit(f"{len(failures)} bare posts failed")
    return len(attempts) / elapsed


def measure(deliveries=2000, rounds=2, profile=None):
    """(ours, bare): deliveries/s of one `storeplatform worker --workers 4` and posts/s of the
    plain 4-thread requests.post pool for the same ``deliveries`` bodies and headers, the best
    of ``rounds`` alternating rounds of each (the machine may be shared: the best round is the
    least disturbed one). ``profile``: a file for py-spy's samples of the worker while it drains
    the first round (``.svg``: a flame graph, else py-spy's raw collapsed stacks)."""
    if deliveries % WEBHOOKS:
        raise ValueError(f"deliveries must be a multiple of {WEBHOOKS}")
    from storeplatform.testing import Site, TestDatabase, cli_environ

    tmp = Path(tempfile.mkdtemp(prefix="bench-webhooks-"))
    with server_environment() as huey_url, receiver_process() as receiver:
        database = TestDatabase(tmp)
        try:
            database.migrate("events")
            site = Site(database.settings(**{
                "storeplatform.plugins": "events", "huey.url": huey_url,
                "huey.name": f"bench-webhooks-{uuid.uuid4().hex[:8]}",
                # The production policy (private targets refused, each address resolved, checked
                # and pinned) with the receiver's address trusted.
                "events.webhooks.allow_private_targets": "false",
                "events.webhooks.trusted_networks": "127.0.0.1"}))
            try:
                bench = Bench(site, receiver, tmp, cli_environ())
                ours, bare = [], []
                with bench.worker():
                    for n in range(rounds):
                        ours.append(bench.drain(deliveries, profile if n == 0 else None))
                        bare.append(bare_pool(bench.attempts))
                return max(ours), max(bare)
            finally:
                site.close()
        finally:
            database.drop()


class Bench:
    """The site's 10 webhooks on the receiver, one event, and the worker process."""

    def __init__(self, site, receiver, tmp, environ):
        self.site, self.tmp, self.environ = site, tmp, environ
        self.admin = site.headers_for("administrator")
        self.api = site.url("/events/v1")
        self.event = site.app.post_json(f"{self.api}/events", {"title": "Bench", "status": "publish"},
                                        headers=self.admin).json
        for i in range(WEBHOOKS):
            site.app.post_json(f"{self.api}/webhooks", {"name": f"Bench {i}", "url": f"{receiver}/hook/{i}",
                                                        "topic": TOPIC}, headers=self.admin, status=201)
        self.counter = Counter(receiver)
        self.process = None
        self.attempts = []

    def update(self, n):
        """One event update through the REST API: its transaction writes 10 deliveries."""
        self.site.app.put_json(f"{self.api}/events/{self.event['id']}", {"title": f"Bench {n}"}, headers=self.admin)

    @contextlib.contextmanager
    def worker(self):
        ini = write_worker_ini(self.tmp / "worker.ini", self.site.settings)
        with open(self.tmp / "worker.log", "w") as log:
            self.process = subprocess.Popen([TOOL, "-c", str(ini), "worker", "--workers", str(THREADS)],
                                            env=self.environ, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
            try:
                self.update("warm-up")  # the worker's imports, connections and first deliveries
                self.counter.wait_for(WEBHOOKS, self.process, timeout=60)
                bare_pool(queued_attempts(self.site, finished=True)[:40])  # the bare side's warm-up
                yield
            finally:
                os.killpg(self.process.pid, signal.SIGCONT)
                os.killpg(self.process.pid, signal.SIGTERM)
                try:
                    self.process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(self.process.pid, signal.SIGKILL)
                    self.process.wait()

    def drain(self, deliveries, profile=None):
        """Freeze the worker, queue ``deliveries`` through the REST API, thaw it and time it
        until the receiver has counted the last one; checks each was sent once."""
        pid = self.process.pid
        # Attached before the freeze (py-spy cannot attach to a stopped process); idle samples
        # are left out, so what it records is the drain.
        spy = start_profiler(pid, profile) if profile else None
        os.killpg(pid, signal.SIGSTOP)
        try:
            for n in range(deliveries // WEBHOOKS):
                self.update(n)
            self.attempts = queued_attempts(self.site)
            if len(self.attempts) != deliveries:
                raise SystemExit(f"{len(self.attempts)} deliveries queued instead of {deliveries}")
            before = self.counter.read()
            cpu_before = cpu_seconds(pid)
            started = time.perf_counter()
        finally:
            os.killpg(pid, signal.SIGCONT)
        self.counter.wait_for(before["posts"] + deliveries, self.process)
        rate = deliveries / (time.perf_counter() - started)
        cpu_after = cpu_seconds(pid)
        if cpu_before and cpu_after:
            user, system = (1000 * (a - b) / deliveries for a, b in zip(cpu_after, cpu_before))
            print(f"worker: {rate:.0f} deliveries/s, CPU per delivery {user:.2f} ms user + {system:.2f} ms system",
                  file=sys.stderr)
        if spy is not None:
            spy.send_signal(signal.SIGINT)  # py-spy writes its file when interrupted
            spy.wait(timeout=60)
        time.sleep(0.2)
        seen = self.counter.read()
        # New delivery ids only (the bare side posts the same headers again, ids included).
        if (seen["posts"] - before["posts"], seen["distinct"] - before["distinct"]) != (deliveries, deliveries) \
                or unfinished(self.site):
            raise SystemExit(f"not every delivery was sent once: {before} -> {seen}, "
                             f"{unfinished(self.site)} unfinished")
        return rate


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deliveries", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds of each side (the best counts)")
    parser.add_argument("--profile", metavar="FILE", help="py-spy samples of the worker (.svg: flame graph)")
    args = parser.parse_args()
    ours, bare = measure(args.deliveries, args.rounds, args.profile)
    print(f"ours  {ours:8.0f} deliveries/s   (one `storeplatform worker --workers {THREADS}`)")
    print(f"bare  {bare:8.0f} posts/s        ({THREADS} threads of requests.post)")
    print(f"ratio {ours / bare:8.2f}           (goal >= 0.70)")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
