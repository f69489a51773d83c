"""A worker that dies (SIGKILL, a crash) loses no delivery and sends none twice.

A delivery is taken (pending -> sending, ``attempted_at``) with the connection to the receiver
open, right before its request is written. A worker that dies before that leaves it pending:
the sweep hands it to the queue again and it is sent. One that dies after it has attempted it:
the sweep closes it as failed (not counted toward the failure limit: its outcome is unknown)
and it is never sent again. The deterministic tests stop a worker at each point; the last one kills real
``storeplatform worker`` processes (their process group, SIGKILL) in the middle of a batch, in a
loop, against a real receiver.
"""
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from storeplatform_events.webhooks import connections, sender
from storeplatform_events.webhooks.outbox import ABANDONED, DELIVER_TASK
from storeplatform_events.webhooks.tasks import REQUEUE_TASK

from storeplatform.testing import cli_environ, queue_url, wait_for

from . import webhook_fixtures
from .webhook_fixtures import hooks_site

receiver = webhook_fixtures.receiver  # the real receiver on 127.0.0.1 (a fixture)

TOOL = str(Path(sys.executable).with_name("storeplatform"))


class WorkerDied(BaseException):
    """Stands for the end of the process: nothing after it runs, no handler catches it."""


def queued_site(make_site, tmp_path, **settings):
    """Deliveries wait in a real queue (no worker runs unless a test starts one); the sweep's
    grace period is 0 and the time-out short, so that what a dead worker left is settled at
    once."""
    return hooks_site(make_site, **{"huey.url": queue_url(tmp_path), "events.webhooks.requeue_after": "0",
                                    "events.webhooks.timeout": "0.5", **settings})


def received_uuids(receiver):
    return [r.headers["X-EVT-Delivery"] for r in receiver.posts()]


def test_a_worker_that_dies_before_the_request_is_written_leaves_the_delivery_pending(
        make_site, tmp_path, receiver, monkeypatch):
    site = queued_site(make_site, tmp_path)
    hook = site.webhook("event.created", receiver.url())
    site.event("Almost")
    [row] = site.deliveries()

    def dies_while_connecting(self):
        raise WorkerDied()

    with monkeypatch.context() as patch:
        patch.setattr(connections.CallbackHTTPConnection, "connect", dies_while_connecting)
        with pytest.raises(WorkerDied):
            sender.delivery_sender(site.site.registry).deliver(row["id"], inline=True)
    [row] = site.deliveries()
    assert (row["status"], row["attempted_at"], receiver.posts()) == ("pending", None, [])
    # Its hand-off was lost with the worker: the sweep hands it over again, and it is sent once.
    with site.site.worker(workers=2):
        site.site.enqueue(REQUEUE_TASK)
        wait_for(lambda: [d["status"] for d in site.deliveries()] == ["delivered"], timeout=15)
    assert received_uuids(receiver) == [row["uuid"]]
    assert site.webhook_row(hook["id"]) == {"status": "active", "failures": 0}


def die_after_taking(site, row, monkeypatch):
    """The worker takes the delivery (pending -> sending, attempted_at), then dies before it sends."""
    take = sender.take

    def takes_then_dies(*args):
        take(*args)
        raise WorkerDied()

    with monkeypatch.context() as patch:
        patch.setattr(sender, "take", takes_then_dies)
        with pytest.raises(WorkerDied):
            sender.delivery_sender(site.site.registry).deliver(row["id"], inline=True)


def test_a_worker_that_dies_after_taking_a_delivery_has_attempted_it(make_site, tmp_path, receiver, monkeypatch):
    site = queued_site(make_site, tmp_path)
    hook = site.webhook("event.created", receiver.url())
    site.event("Taken")
    [row] = site.deliveries()
    die_after_taking(site, row, monkeypatch)
    [row] = site.deliveries()
    assert row["status"] == "sending" and row["attempted_at"] is not None and receiver.posts() == []
    with site.site.worker(workers=2):
        site.site.enqueue(DELIVER_TASK, row["id"])  # the same id again: it is not sent
        time.sleep(0.6)  # past the time-out: an attempt cannot last longer
        site.site.enqueue(REQUEUE_TASK)
        wait_for(lambda: [d["status"] for d in site.deliveries()] == ["failed"], timeout=15)
        site.site.enqueue(REQUEUE_TASK)  # a second sweep changes nothing
        wait_for(lambda: site.site.queued() == 0, timeout=15)
        time.sleep(0.3)
    [row] = site.deliveries()
    assert row["error"] == ABANDONED and receiver.posts() == []
    # Not counted: a dead worker says nothing about the receiver.
    assert site.webhook_row(hook["id"]) == {"status": "active", "failures": 0}


def test_a_recent_attempt_is_left_to_its_worker(make_site, tmp_path, receiver, monkeypatch):
    """The sweep closes an attempt only once it is older than the time-out (plus the grace):
    a worker still sending keeps its delivery."""
    site = queued_site(make_site, tmp_path, **{"events.webhooks.timeout": "30"})
    site.webhook("event.created", receiver.url())
    site.event("Busy")
    [row] = site.deliveries()
    die_after_taking(site, row, monkeypatch)
    site.site.run_task(REQUEUE_TASK)
    assert [d["status"] for d in site.deliveries()] == ["sending"]


def write_worker_ini(path, site):
    settings = site.site.settings
    keys = ["sqlalchemy.url", "huey.url", "huey.name", "storeplatform.plugins", "storeplatform.secret",
            "events.webhooks.allow_private_targets", "events.webhooks.timeout", "events.webhooks.requeue_after"]
    path.write_text("[app:main]\nuse = egg:storeplatform\n" + "".join(f"{k} = {settings[k]}\n" for k in keys))
    return path


def start_worker(ini):
    # A process group of its own: SIGKILL of the group is how a machine loses a worker. Its
    # output goes to worker-N.log beside the ini (shown when a test fails).
    logs = sorted(Path(ini).parent.glob("worker-*.log"))
    with open(Path(ini).parent / f"worker-{len(logs)}.log", "wb") as out:
        return subprocess.Popen([TOOL, "-c", str(ini), "worker", "--workers", "4"], env=cli_environ(),
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def worker_logs(tmp_path):
    return "\n".join(f"--- {log.name}\n{log.read_text()[-3000:]}" for log in sorted(tmp_path.glob("worker-*.log")))


def kill(proc):
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=20)


def rows_of(site, uuids=None):
    return [r for r in site.deliveries() if uuids is None or r["uuid"] in uuids]


def test_killed_workers_lose_no_delivery_and_send_none_twice(make_site, tmp_path, receiver):
    """Each round starts two workers on a batch and kills each (SIGKILL of its process group)
    when the receiver has seen a few more deliveries; a last worker settles what they left.
    SP_WEBHOOK_KILL_REPEAT=20 repeats the whole scenario (a stress run)."""
    site = queued_site(make_site, tmp_path)
    # The receiver answers after a few milliseconds: kills land while requests are out.
    hooks = [site.webhook("attendee.created", receiver.url(f"/slow/0.004?hook={i}")) for i in range(3)]
    event = site.event("Crowded")
    ini = write_worker_ini(tmp_path / "worker.ini", site)
    rng = random.Random(16)
    for _ in range(int(os.environ.get("SP_WEBHOOK_KILL_REPEAT", "1"))):
        known = {r["uuid"] for r in rows_of(site)}
        site.tickets(event["id"], 30)  # 90 deliveries: they all stay in the log of 100
        batch = {r["uuid"] for r in rows_of(site)} - known
        assert len(batch) == 90
        kills = kill_rounds(site, receiver, ini, rng, batch)
        assert kills >= 2
        # Attempts older than the time-out and hand-offs lost with the workers are settled by the
        # sweep when the next worker starts.
        time.sleep(0.6)
        last = start_worker(ini)
        try:
            wait_for(lambda batch=batch: {r["status"] for r in rows_of(site, batch)} <= {"delivered", "failed"},
                     timeout=60)
        finally:
            kill(last)
        received = [r.headers["X-EVT-Delivery"] for r in receiver.posts()
                    if r.headers["X-EVT-Delivery"] in batch]
        assert len(received) == len(set(received)), "a delivery was sent twice"
        rows = rows_of(site, batch)
        assert len(rows) == 90 and {r["status"] for r in rows} <= {"delivered", "failed"}, "a delivery was lost"
        # Delivered: it arrived, once. Failed: attempted once by a worker that died (it may
        # have arrived, once), recorded as one failed attempt.
        assert {r["uuid"] for r in rows if r["status"] == "delivered"} <= set(received)
        assert all(r["attempted_at"] is not None and r["finished_at"] is not None for r in rows)
    assert all(site.webhook_row(h["id"])["status"] == "active" for h in hooks)


def test_a_worker_stopped_with_sigterm_finishes_what_it_was_sending(make_site, tmp_path, receiver):
    site = queued_site(make_site, tmp_path, **{"events.webhooks.timeout": "5"})
    site.webhook("attendee.created", receiver.url("/slow/0.5"))
    event = site.event("Closing")
    site.tickets(event["id"], 12)
    worker = start_worker(write_worker_ini(tmp_path / "worker.ini", site))
    try:
        wait_for(lambda: receiver.posts(), timeout=30, interval=0.01)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=30)
    statuses = [r["status"] for r in rows_of(site)]
    # The requests under way were answered and recorded; the rest waits in the queue.
    assert "sending" not in statuses and statuses.count("delivered") == len(receiver.posts()) >= 1, \
        (statuses, worker_logs(tmp_path))
    assert set(statuses) == {"delivered", "pending"}


def kill_rounds(site, receiver, ini, rng, batch, rounds=2):
    kills = 0
    for _ in range(rounds):
        workers = [start_worker(ini), start_worker(ini)]
        try:
            for proc in workers:
                pending = sum(1 for r in rows_of(site, batch) if r["status"] == "pending")
                if pending < 16:  # the rest is for the last worker
                    return kills
                target = len(receiver.posts()) + rng.randint(2, 8)
                wait_for(lambda target=target: len(receiver.posts()) >= target, timeout=30, interval=0.005)
                kill(proc)
                kills += 1
        finally:
            for proc in workers:
                if proc.poll() is None:
                    kill(proc)
    return kills
