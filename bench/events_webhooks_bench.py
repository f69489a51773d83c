"""Benchmark of webhook delivery: deliveries per second from one worker process
(`storeplatform worker --workers N`) to a local receiver, against a plain loop of HTTP posts
(requests.post, one connection each, as a delivery makes) to the same receiver in the same run.

Each delivery is a claim (conditional UPDATE), the signed POST through the hardened session and
the outcome (log row, failure counter, log pruning), each in its own short transaction.
SQLite database and Huey on SQLite in a temporary folder by default; PostgreSQL and Redis
when STOREPLATFORM_DATABASE_URL / STOREPLATFORM_HUEY_URL name servers.

    .venv/bin/python bench/events_webhooks_bench.py [--deliveries 400] [--threads 1 4 8]
"""
import argparse
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import requests
from sqlalchemy import func, insert, select

from storeplatform.testing import cli_environ

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TOOL = str(Path(sys.executable).with_name("storeplatform"))


def plain_loop(url, n):
    body = b'{"topic":"attendee.created","webhook_id":1,"timestamp":"2031-01-01 10:00:00","data":{}}'
    started = time.perf_counter()
    for _ in range(n):
        requests.post(url, data=body, headers={"Content-Type": "application/json"}, timeout=30).raise_for_status()
    return n / (time.perf_counter() - started)


def write_pending(site, webhook_id, n):
    from storeplatform_events.webhooks.models import WebhookDelivery
    from storeplatform_events.webhooks.payloads import envelope_body

    rows = []
    for i in range(n):
        body = envelope_body("attendee.created", webhook_id, "2031-01-01 10:00:00",
                             {"id": i, "event_id": 1, "event_name": "Bench", "order_id": 1, "first_name": "A",
                              "last_name": "B", "email": "a@example.com", "ticket_code": f"T{i}", "status": "active"})
        rows.append({"uuid": str(uuid.uuid4()), "webhook_id": webhook_id, "topic": "attendee.created",
                     "body": body.decode(), "timestamp": "2031-01-01 10:00:00", "status": "pending"})
    with site.session() as s:
        first = s.execute(select(func.coalesce(func.max(WebhookDelivery.id), 0))).scalar_one()
        s.execute(insert(WebhookDelivery), rows)
    return list(range(first + 1, first + n + 1))


def delivered(receiver):
    # Counted at the receiver: the delivery log itself keeps only the last 100.
    return len(receiver.posts("/bench"))


def statuses(site):
    from storeplatform_events.webhooks.models import WebhookDelivery

    with site.session() as s:
        return dict(s.execute(select(WebhookDelivery.status, func.count()).group_by(WebhookDelivery.status)).all())


def run_worker_round(site, receiver, ini, webhook_id, threads, n, log_base):
    """Start a worker process, warm it up, then time n queued deliveries."""
    from storeplatform_events.webhooks.outbox import DELIVER_TASK

    env = cli_environ()
    log = open(log_base / f"worker-{threads}.log", "w")
    proc = subprocess.Popen([TOOL, "-c", str(ini), "worker", "--workers", str(threads)], env=env,
                            stdout=log, stderr=subprocess.STDOUT)

    def wait(count):
        deadline = time.monotonic() + 120
        while delivered(receiver) < count:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise SystemExit(f"the worker did not deliver ({statuses(site)}); its log:\n"
                                 f"{Path(log.name).read_text()[-3000:]}")
            time.sleep(0.01)

    try:
        base = delivered(receiver)
        for delivery_id in write_pending(site, webhook_id, threads):
            site.enqueue(DELIVER_TASK, delivery_id)
        wait(base + threads)
        base = delivered(receiver)
        ids = write_pending(site, webhook_id, n)
        started = time.perf_counter()
        for delivery_id in ids:
            site.enqueue(DELIVER_TASK, delivery_id)
        wait(base + n)
        return n / (time.perf_counter() - started)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--deliveries", type=int, default=400)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 4, 8])
    args = parser.parse_args()

    from storeplatform.testing import Site, TestDatabase, queue_url
    from tests.events.webhook_receiver import Receiver

    tmp = Path(tempfile.mkdtemp(prefix="evt-webhooks-bench-"))
    database = TestDatabase(tmp)
    receiver = Receiver()
    try:
        database.migrate("events")
        site = Site(database.settings(**{"storeplatform.plugins": "events", "huey.url": queue_url(tmp),
                                         "events.webhooks.allow_private_targets": "true"}))
        site.create_user("admin", "administrator")
        res = site.app.post_json("/api/events/v1/webhooks", {"name": "Bench", "url": receiver.url("/bench"),
                                                             "topic": "attendee.created"},
                                 headers=site.headers_for("admin"), status=201)
        webhook_id = res.json["id"]
        settings = site.registry.settings
        ini = tmp / "worker.ini"
        ini.write_text("[app:main]\nuse = egg:storeplatform\n" + "".join(
            f"{k} = {settings[k]}\n" for k in ("sqlalchemy.url", "huey.url", "huey.name", "storeplatform.plugins",
                                               "storeplatform.secret", "events.webhooks.allow_private_targets")))
        backend = f"{site.engine.dialect.name} + huey on {settings['huey.url'].split(':')[0]}"
        print(f"webhook deliveries to a local receiver ({backend}), {args.deliveries} per run")
        plain_loop(receiver.url("/plain"), 20)  # warm-up
        plain = plain_loop(receiver.url("/plain"), args.deliveries)
        print(f"  plain loop of requests.post:           {plain:8.0f} posts/s")
        for threads in args.threads:
            rate = run_worker_round(site, receiver, ini, webhook_id, threads, args.deliveries, tmp)
            print(f"  one worker process, {threads} thread(s):       {rate:8.0f} deliveries/s"
                  f"   ratio to the plain loop {rate / plain:5.2f}")
        site.close()
    finally:
        receiver.close()
        database.drop()


if __name__ == "__main__":
    main()
