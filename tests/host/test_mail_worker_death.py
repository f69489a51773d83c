"""A worker that dies (SIGKILL, a crash) loses no message and sends none twice, as the webhooks'
deliveries (tests/events/test_webhooks_worker_death.py).

A message is taken (pending -> sending, committed) once the SMTP server has accepted its sender
and recipients, right before its data is written. A worker that dies before that leaves it
pending: the sweep hands it to the queue again and it is sent once. One that dies after it: the
sweep closes it as failed (abandoned; the server may have it), never sent again. The
deterministic tests stop a worker at each point; the last kills real ``storeplatform worker``
processes in the middle of a batch, against a real SMTP server."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from storeplatform.api import send_mail
from storeplatform.components.mail import tasks, transports
from storeplatform.components.mail.models import MailMessage
from storeplatform.components.mail.outbox import ABANDONED, SEND_TASK
from storeplatform.components.mail.tasks import SWEEP_TASK, send_message
from storeplatform.testing import cli_environ, queue_url, wait_for

from .mail_servers import SmtpServer

TOOL = str(Path(sys.executable).with_name("storeplatform"))


class WorkerDied(BaseException):
    """Stands for the end of the process: nothing after it runs, no handler catches it."""


@pytest.fixture
def smtp():
    with SmtpServer() as server:
        yield server


def queued_site(make_site, tmp_path, smtp, **settings):
    """Messages wait in a real queue (no worker runs unless a test starts one); the sweep's
    grace period is 0 and the time-out short, so that what a dead worker left is settled at once."""
    return make_site(**{"huey.url": queue_url(tmp_path), "mail.url": smtp.url(), "mail.timeout": "0.2",
                        "mail.requeue_after": "0", "mail.directory": str(tmp_path / "mail"), **settings})


def rows(site):
    with site.session() as s:
        return [dict(r._mapping) for r in s.execute(
            select(MailMessage.id, MailMessage.status, MailMessage.message_id, MailMessage.attempts,
                   MailMessage.response).order_by(MailMessage.id))]


def record(site, n=1):
    with site.session() as s:
        return [send_mail(s, to=f"buyer{i}@example.com", subject=f"Order {i}", text="Thanks.\n", kind="test")
                for i in range(n)]


def received_ids(smtp):
    return [m["Message-ID"] for m in smtp.keeper.messages()]


def test_a_worker_that_dies_before_the_data_is_written_leaves_the_message_pending(
        make_site, tmp_path, smtp, monkeypatch):
    site = queued_site(make_site, tmp_path, smtp)
    [message_id] = record(site)

    def dies_while_connecting(self):
        raise WorkerDied()

    with monkeypatch.context() as patch:
        patch.setattr(transports.SmtpTransport, "_connect", dies_while_connecting)
        with pytest.raises(WorkerDied):
            send_message(site.registry, message_id)
    [row] = rows(site)
    assert (row["status"], row["attempts"], smtp.keeper.received) == ("pending", 0, [])
    # Its hand-off was lost with the worker: the sweep hands it over again, and it is sent once.
    with site.worker(workers=2):
        site.enqueue(SWEEP_TASK)
        wait_for(lambda: [r["status"] for r in rows(site)] == ["sent"], timeout=15)
        wait_for(lambda: site.queued() == 0, timeout=15)
    assert received_ids(smtp) == [row["message_id"]]


def die_after_taking(site, message_id, monkeypatch):
    take = tasks.take_now

    def takes_then_dies(*args):
        take(*args)  # committed
        raise WorkerDied()

    with monkeypatch.context() as patch:
        patch.setattr(tasks, "take_now", takes_then_dies)
        with pytest.raises(WorkerDied):
            send_message(site.registry, message_id)


def test_a_worker_that_dies_after_taking_a_message_never_sends_it_again(make_site, tmp_path, smtp, monkeypatch):
    site = queued_site(make_site, tmp_path, smtp)
    [message_id] = record(site)
    die_after_taking(site, message_id, monkeypatch)
    assert [(r["status"], r["attempts"]) for r in rows(site)] == [("sending", 1)]
    with site.worker(workers=2):
        site.enqueue(SEND_TASK, message_id)  # the same id again: it is not sent
        time.sleep(1.0)  # past four time-outs: an attempt cannot last longer
        site.enqueue(SWEEP_TASK)
        wait_for(lambda: [r["status"] for r in rows(site)] == ["failed"], timeout=15)
        site.enqueue(SWEEP_TASK)  # a second sweep changes nothing
        wait_for(lambda: site.queued() == 0, timeout=15)
        time.sleep(0.3)
    [row] = rows(site)
    assert row["response"] == ABANDONED and smtp.keeper.received == []


def test_a_recent_attempt_is_left_to_its_worker(make_site, tmp_path, smtp, monkeypatch):
    site = queued_site(make_site, tmp_path, smtp, **{"mail.timeout": "30"})
    [message_id] = record(site)
    die_after_taking(site, message_id, monkeypatch)
    site.run_task(SWEEP_TASK)
    assert [r["status"] for r in rows(site)] == ["sending"]


def write_worker_ini(path, site):
    settings = site.settings
    keys = ["sqlalchemy.url", "huey.url", "huey.name", "storeplatform.secret", "mail.url", "mail.timeout",
            "mail.requeue_after", "mail.directory"]
    path.write_text("[app:main]\nuse = egg:storeplatform\n" + "".join(f"{k} = {settings[k]}\n" for k in keys))
    return path


def start_worker(ini):
    logs = sorted(Path(ini).parent.glob("worker-*.log"))
    with open(Path(ini).parent / f"worker-{len(logs)}.log", "wb") as out:
        return subprocess.Popen([TOOL, "-c", str(ini), "worker", "--workers", "4"], env=cli_environ(),
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def kill(proc):
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=20)


def test_killed_workers_lose_no_message_and_send_none_twice(make_site, tmp_path, smtp):
    """Two workers start on a batch of 40 and are killed (SIGKILL of their process groups) when
    the server has received a few more messages; a last worker settles what they left."""
    site = queued_site(make_site, tmp_path, smtp)
    smtp.keeper.delay = 0.01  # the server answers DATA after a moment: kills land while messages are out
    record(site, 40)
    ini = write_worker_ini(tmp_path / "worker.ini", site)
    kills = 0
    for _ in range(2):
        workers = [start_worker(ini), start_worker(ini)]
        try:
            for proc in workers:
                if sum(1 for r in rows(site) if r["status"] == "pending") < 10:
                    break
                target = len(smtp.keeper.received) + 3
                wait_for(lambda target=target: len(smtp.keeper.received) >= target, timeout=60, interval=0.005)
                kill(proc)
                kills += 1
        finally:
            for proc in workers:
                if proc.poll() is None:
                    kill(proc)
    assert kills >= 2
    time.sleep(1.0)  # past four time-outs
    last = start_worker(ini)
    try:
        wait_for(lambda: {r["status"] for r in rows(site)} <= {"sent", "failed"}, timeout=60)
    finally:
        kill(last)
    received = received_ids(smtp)
    assert len(received) == len(set(received)), "a message was sent twice"
    found = rows(site)
    assert len(found) == 40, "a message was lost"
    # Sent: it arrived, once. Failed: abandoned by a worker that died after taking it (it may have
    # arrived, once).
    assert {r["message_id"] for r in found if r["status"] == "sent"} <= set(received)
    assert all(r["response"] == ABANDONED for r in found if r["status"] == "failed")
