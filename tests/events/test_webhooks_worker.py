"""Deliveries through a real Huey consumer (Redis in the PostgreSQL run, SQLite otherwise):
queued after commit, the sweep of lost hand-offs, and no delivery sent twice when several
threads and processes run the same queued work."""
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

from sqlalchemy import update

from storeplatform.api import utcnow
from storeplatform.testing import cli_environ, queue_url, run_cli, wait_for
from storeplatform_events.webhooks.models import WebhookDelivery
from storeplatform_events.webhooks.outbox import DELIVER_TASK
from storeplatform_events.webhooks.payloads import envelope_body
from storeplatform_events.webhooks.tasks import REQUEUE_TASK

from .webhook_fixtures import hooks_site, payload, receiver, signed_by  # noqa: F401

TOOL = str(Path(sys.executable).with_name("storeplatform"))


def queued_site(make_site, tmp_path, **settings):
    return hooks_site(make_site, **{"huey.url": queue_url(tmp_path), **settings})


def statuses(site):
    return [d["status"] for d in site.deliveries()]


def test_deliveries_wait_for_the_worker(make_site, tmp_path, receiver):
    site = queued_site(make_site, tmp_path)
    hook = site.webhook("event.created", receiver.url())
    event = site.event("Queued")
    time.sleep(0.3)
    assert receiver.posts() == [] and statuses(site) == ["pending"]  # written with the change, not sent yet
    with site.site.worker(workers=2):
        wait_for(lambda: statuses(site) == ["delivered"], timeout=15)
    [received] = receiver.posts()
    assert signed_by(received, hook["secret"]) and payload(received)["data"]["id"] == event["id"]


def test_nothing_is_written_or_sent_when_the_change_fails(make_site, tmp_path, receiver):
    site = queued_site(make_site, tmp_path)
    site.webhook("event.created", receiver.url())
    site.post("/events", {"title": "Bad", "start_date": "not a date"}, status=400)
    with site.site.worker(workers=1):
        time.sleep(0.5)
    assert site.deliveries() == [] and receiver.posts() == []


def _lost_delivery(site, webhook_id, age_seconds, status="pending"):
    """A delivery committed with its change whose hand-off to Huey never happened (crash)."""
    with site.site.session() as s:
        row = WebhookDelivery(uuid=str(uuid.uuid4()), webhook_id=webhook_id, topic="event.deleted", status=status,
                              body=envelope_body("event.deleted", webhook_id, "2031-01-01 10:00:00",
                                                 {"id": 77, "force": True}).decode(),
                              timestamp="2031-01-01 10:00:00")
        s.add(row)
        s.flush()
        old = utcnow() - timedelta(seconds=age_seconds)
        s.execute(update(WebhookDelivery).where(WebhookDelivery.id == row.id)
                  .values(queued_at=old, created_at=old, claimed_at=old if status == "sending" else None))
        return row.id


def test_the_sweep_requeues_lost_hand_offs(make_site, tmp_path, receiver):
    site = queued_site(make_site, tmp_path)  # default grace period: 300 s
    hook = site.webhook("event.deleted", receiver.url())
    lost = _lost_delivery(site, hook["id"], 600)
    recent = _lost_delivery(site, hook["id"], 5)  # may still be in the queue: left alone
    stuck = _lost_delivery(site, hook["id"], 3600, status="sending")  # its worker died mid-send
    with site.site.worker(workers=2):
        time.sleep(0.3)
        assert receiver.posts() == []
        site.site.enqueue(REQUEUE_TASK)
        wait_for(lambda: len(receiver.posts()) == 1, timeout=15)
        time.sleep(0.3)
    by_id = {d["id"]: d for d in site.deliveries()}
    assert by_id[lost]["status"] == "delivered" and by_id[recent]["status"] == "pending"
    assert by_id[stuck]["status"] == "failed" and "abandoned" in by_id[stuck]["error"]
    [received] = receiver.posts()
    assert received.headers["X-EVT-Delivery"] == by_id[lost]["uuid"]
    assert payload(received)["data"] == {"id": 77, "force": True} and signed_by(received, hook["secret"])
    assert site.webhook_row(hook["id"]) == {"status": "active", "failures": 0}


def test_no_duplicates_with_many_threads_and_repeated_hand_offs(make_site, tmp_path, receiver):
    site = queued_site(make_site, tmp_path, **{"events.webhooks.requeue_after": "0"})
    for i in range(3):
        site.webhook("event.updated", receiver.url(f"/slow/0.02?hook={i}"))
    event = site.event("Popular")
    for i in range(10):
        site.put(f"/events/{event['id']}", {"title": f"Popular {i}"})
    ids = [d["id"] for d in site.deliveries()]
    assert len(ids) == 30
    # Every delivery handed to Huey three more times, and the sweep (grace 0) re-queues them all.
    for delivery_id in ids * 3:
        site.site.enqueue(DELIVER_TASK, delivery_id)
    site.site.enqueue(REQUEUE_TASK)
    with site.site.worker(workers=6):
        wait_for(lambda: statuses(site) == ["delivered"] * 30, timeout=30)
        wait_for(lambda: site.site.queued() == 0, timeout=30)
        time.sleep(0.3)
    uuids = [r.headers["X-EVT-Delivery"] for r in receiver.posts()]
    assert len(uuids) == 30 and sorted(uuids) == sorted(d["uuid"] for d in site.deliveries())


def _write_ini(path, site):
    settings = site.site.settings
    keys = ["sqlalchemy.url", "huey.url", "huey.name", "storeplatform.plugins", "storeplatform.secret",
            "events.webhooks.allow_private_targets", "events.webhooks.timeout"]
    path.write_text("[app:main]\nuse = egg:storeplatform\n" + "".join(f"{k} = {settings[k]}\n" for k in keys))
    return path


def test_worker_processes_share_the_queue_without_duplicates(make_site, tmp_path, receiver):
    site = queued_site(make_site, tmp_path)
    site.webhook("attendee.created", receiver.url("/slow/0.01"))
    event = site.event("Festival")
    site.tickets(event["id"], 24)
    assert statuses(site) == ["pending"] * 24
    ini = _write_ini(tmp_path / "worker.ini", site)
    env = cli_environ()
    workers = [subprocess.Popen([TOOL, "-c", str(ini), "worker", "--workers", "3"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(2)]
    try:
        wait_for(lambda: statuses(site) == ["delivered"] * 24, timeout=40)
    finally:
        for proc in workers:
            proc.terminate()
        for proc in workers:
            proc.wait(timeout=20)
    uuids = {r.headers["X-EVT-Delivery"] for r in receiver.posts()}
    assert len(receiver.posts()) == len(uuids) == 24


def test_check_in_at_the_door_through_the_cli_is_delivered(make_site, tmp_path, receiver):
    """The admin path (`storeplatform events checkin`) queues its deliveries like REST does."""
    site = queued_site(make_site, tmp_path)
    hooks = {t: site.webhook(t, receiver.url(f"/{t}")) for t in ("attendee.checked_in", "attendee.checked_out")}
    event = site.event("Door")
    [ticket] = site.tickets(event["id"], 1)
    ini = _write_ini(tmp_path / "cli.ini", site)
    for command in ("checkin", "checkout"):  # in-process (cli.main): the command, not its process start
        done = run_cli("-c", str(ini), "events", command, ticket["ticket_code"])
        assert done.returncode == 0, done.stderr
    assert statuses(site) == ["pending", "pending"]
    with site.site.worker(workers=2):
        wait_for(lambda: statuses(site) == ["delivered", "delivered"], timeout=15)
    [checked_in] = receiver.posts("/attendee.checked_in")
    [checked_out] = receiver.posts("/attendee.checked_out")
    assert signed_by(checked_in, hooks["attendee.checked_in"]["secret"])
    assert payload(checked_in)["data"]["status"] == "checked_in"
    assert payload(checked_out)["data"]["status"] == "checked_out"
    assert payload(checked_out)["data"]["ticket_code"] == ticket["ticket_code"]
