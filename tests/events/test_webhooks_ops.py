"""Webhook failures an operator can see: a WARNING per failed delivery and an ERROR per
disable on logger ``storeplatform_events.webhooks``, and the command line's tables
(``events webhooks list`` and ``events webhooks deliveries ID``), run in-process (``cli.main``)."""
import logging
import re
import socket
from zoneinfo import ZoneInfo

import pytest
from storeplatform_events.webhooks.delivery import Attempt, Outcome
from storeplatform_events.webhooks.models import SENDING, WebhookDelivery
from storeplatform_events.webhooks.outbox import Finished, record_outcomes

from storeplatform.api import utcnow
from storeplatform.testing import queue_url, run_cli, wait_for

from .webhook_fixtures import hooks_site, receiver  # noqa: F401  (fixture)

LOGGER = "storeplatform_events.webhooks"


def _dead_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


@pytest.fixture
def wh(make_site):
    return hooks_site(make_site)


@pytest.fixture
def cli(wh, database, tmp_path):
    ini = tmp_path / "site.ini"
    ini.write_text(f"""[app:main]
use = egg:storeplatform
sqlalchemy.url = {database.url}
huey.url = memory://
storeplatform.plugins = events
storeplatform.secret = {database.secret}
""")

    def run(*args, ok=True):
        proc = run_cli("-c", str(ini), "events", "webhooks", *args)
        if ok:
            assert proc.returncode == 0, proc.stderr
        return proc

    return run


def _records(caplog, level):
    return [r for r in caplog.records if r.name == LOGGER and r.levelno == level]


def _rows(output):
    """The table's lines split on runs of two or more spaces (cells hold single spaces)."""
    return [re.split(r"\s{2,}", line) for line in output.splitlines()]


# --- logging -------------------------------------------------------------------------------------

def test_a_delivery_to_a_dead_port_logs_a_warning_with_its_fields(wh, caplog):
    hook = wh.webhook("event.created", f"http://127.0.0.1:{_dead_port()}/gone")
    caplog.set_level(logging.INFO, logger=LOGGER)
    wh.event("Nobody listens")  # Huey in immediate mode: the worker path, recorded inline
    [record] = _records(caplog, logging.WARNING)
    [delivery] = wh.deliveries()
    assert delivery["status"] == "failed"
    assert (record.webhook_id, record.topic, record.delivery_id, record.response_code) == \
        (hook["id"], "event.created", delivery["id"], 0)
    assert record.error == delivery["error"] and "Connection" in record.error
    assert record.duration_ms == delivery["duration_ms"]
    message = record.getMessage()
    assert message.startswith(f"webhook {hook['id']} delivery {delivery['id']} (topic event.created) failed: "
                              "no answer, error: ")
    assert message.endswith(f", {delivery['duration_ms']} ms")
    assert _records(caplog, logging.ERROR) == []
    assert wh.webhook_row(hook["id"]) == {"status": "active", "failures": 1}


def test_answers_500_log_each_failure_and_the_disable_once(wh, receiver, caplog):  # noqa: F811
    hook = wh.webhook("event.created", receiver.url("/status/500"))
    caplog.set_level(logging.INFO, logger=LOGGER)
    for _ in range(6):  # the sixth is a test of a webhook disabled already: no second ERROR
        assert wh.post(f"/webhooks/{hook['id']}/test").json == {"success": False, "response_code": 500}
    warnings = _records(caplog, logging.WARNING)
    deliveries = wh.deliveries()
    assert [(r.webhook_id, r.topic, r.delivery_id, r.response_code) for r in warnings] == \
        [(hook["id"], "test", d["id"], 500) for d in deliveries]
    assert all(re.fullmatch(rf"webhook {hook['id']} delivery \d+ \(topic test\) failed: status 500, \d+ ms",
                            r.getMessage()) for r in warnings)
    [error] = _records(caplog, logging.ERROR)
    assert (error.webhook_id, error.topic, error.url) == (hook["id"], "event.created", hook["url"])
    assert error.getMessage().startswith(f"webhook {hook['id']} disabled: 5 consecutive failed deliveries")
    # The ERROR came with the fifth failure.
    assert caplog.records.index(error) > caplog.records.index(warnings[4])
    assert caplog.records.index(error) < caplog.records.index(warnings[5])
    assert wh.webhook_row(hook["id"]) == {"status": "disabled", "failures": 6}


def test_the_worker_logs_failures_and_the_disable_after_its_batches(make_site, tmp_path, caplog):
    """A real consumer: outcomes go through the process's recorder thread (batches)."""
    site = hooks_site(make_site, **{"huey.url": queue_url(tmp_path)})
    hook = site.webhook("event.created", f"http://127.0.0.1:{_dead_port()}/gone")
    for i in range(5):
        site.event(f"Queued {i}")
    caplog.set_level(logging.INFO, logger=LOGGER)
    with site.site.worker(workers=2):
        wait_for(lambda: [d["status"] for d in site.deliveries()] == ["failed"] * 5, timeout=20)
        wait_for(lambda: _records(caplog, logging.ERROR), timeout=5)
    warnings = _records(caplog, logging.WARNING)
    assert sorted(r.delivery_id for r in warnings) == [d["id"] for d in site.deliveries()]
    assert {(r.webhook_id, r.topic, r.response_code) for r in warnings} == {(hook["id"], "event.created", 0)}
    [error] = _records(caplog, logging.ERROR)
    assert error.webhook_id == hook["id"]
    assert site.webhook_row(hook["id"]) == {"status": "disabled", "failures": 5}


def test_successes_log_nothing(wh, receiver, caplog):  # noqa: F811
    hook = wh.webhook("event.created", receiver.url())
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    wh.event("Fine")
    assert wh.post(f"/webhooks/{hook['id']}/test").json["success"] is True
    assert [r for r in caplog.records if r.name == LOGGER and r.levelno >= logging.WARNING] == []


def test_one_batch_crossing_the_limit_disables_once(wh, receiver, caplog):  # noqa: F811
    """The recorder's path: several outcomes of one webhook written in one transaction."""
    hook = wh.webhook("event.created", receiver.url("/status/503"))
    other = wh.webhook("event.created", receiver.url())
    with wh.site.session() as s:
        rows = [WebhookDelivery(uuid=f"u-{i}", webhook_id=webhook_id, topic="event.created", body="{}",
                                timestamp="2026-01-01 00:00:00", status=SENDING)
                for i, webhook_id in enumerate([hook["id"]] * 6 + [other["id"]])]
        s.add_all(rows)
        s.flush()
        ids = [r.id for r in rows]
    finished = [Finished(delivery_id, Attempt(webhook_id, "http://x/", b"{}", {}),
                         Outcome(503 if webhook_id == hook["id"] else 200, 7, None), True, utcnow(), "event.created")
                for delivery_id, webhook_id in zip(ids, [hook["id"]] * 6 + [other["id"]])]
    caplog.set_level(logging.INFO, logger=LOGGER)
    with wh.site.engine.begin() as transaction:
        recorded = record_outcomes(transaction, finished)
    assert [r for r in caplog.records if r.name == LOGGER] == []  # nothing before it is committed
    recorded.log()
    assert [r.delivery_id for r in _records(caplog, logging.WARNING)] == ids[:6]
    [error] = _records(caplog, logging.ERROR)
    assert error.webhook_id == hook["id"]
    assert wh.webhook_row(hook["id"]) == {"status": "disabled", "failures": 6}
    assert wh.webhook_row(other["id"]) == {"status": "active", "failures": 0}


# --- command line --------------------------------------------------------------------------------

def test_cli_list_prints_every_webhook(wh, receiver, cli):  # noqa: F811
    assert _rows(cli("list").stdout) == [["ID", "NAME", "STATUS", "TOPIC", "URL", "FAILURES"]]
    first = wh.webhook("event.created", receiver.url("/status/500"), name="Shop sync")
    second = wh.webhook("attendee.checked_in", receiver.url(), name="Door", status="paused")
    wh.post(f"/webhooks/{first['id']}/test")
    out = cli("list").stdout
    assert _rows(out) == [
        ["ID", "NAME", "STATUS", "TOPIC", "URL", "FAILURES"],
        [str(first["id"]), "Shop sync", "active", "event.created", first["url"], "1"],
        [str(second["id"]), "Door", "paused", "attendee.checked_in", second["url"], "0"],
    ]
    # Aligned: each column starts at the same offset on every line.
    lines = out.splitlines()
    for column in ("NAME", "STATUS", "URL"):
        offset = lines[0].index(column)
        assert all(line[offset - 2:offset] == "  " and line[offset] != " " for line in lines)


def test_cli_deliveries_newest_first_limited_and_failed_only(wh, receiver, cli):  # noqa: F811
    wh.site.set_option("site.timezone", "Europe/Warsaw")
    hook = wh.webhook("event.created", receiver.url())
    wh.event("One")
    wh.put(f"/webhooks/{hook['id']}", {"url": f"http://127.0.0.1:{_dead_port()}/gone"})
    wh.event("Two")
    wh.put(f"/webhooks/{hook['id']}", {"url": receiver.url("/status/500")})
    wh.post(f"/webhooks/{hook['id']}/test")
    other = wh.webhook("event.created", receiver.url())  # its deliveries are not listed
    wh.post(f"/webhooks/{other['id']}/test")
    logged = {d["id"]: d for d in wh.deliveries() if d["webhook_id"] == hook["id"]}
    assert len(logged) == 3 and len(wh.deliveries()) == 4

    header, *rows = _rows(cli("deliveries", str(hook["id"])).stdout)
    assert header == ["ID", "TOPIC", "STATUS", "CODE", "MS", "ERROR", "TIME"]
    assert [row[0] for row in rows] == [str(i) for i in sorted(logged, reverse=True)]
    warsaw = ZoneInfo("Europe/Warsaw")
    for row in rows:
        d = logged[int(row[0])]
        when = d["finished_at"].astimezone(warsaw)  # aware UTC
        assert row[6] == when.strftime("%Y-%m-%d %H:%M:%S")
        assert row[4] == str(d["duration_ms"])
    newest, dead, first = rows
    assert newest[1:4] == ["test", "failed", "500"] and newest[5] == "HTTP 500"
    assert dead[1:4] == ["event.created", "failed", "-"] and "Connection" in dead[5]
    assert first[1:6] == ["event.created", "delivered", "200", first[4], "-"]

    assert [row[0] for row in _rows(cli("deliveries", str(hook["id"]), "--limit", "1").stdout)[1:]] == [newest[0]]
    failed = _rows(cli("deliveries", str(hook["id"]), "--failed").stdout)[1:]
    assert [row[0] for row in failed] == [newest[0], dead[0]]
    assert [row[1:4] for row in _rows(cli("deliveries", str(other["id"])).stdout)[1:]] == [["test", "delivered", "200"]]


@pytest.mark.parametrize("args, message", [
    (("deliveries", "999999"), "no webhook with id 999999"),
    (("deliveries", "abc"), "the webhook id must be an integer of at least 1, not 'abc'"),
    (("deliveries", "{id}", "--limit", "0"), "--limit must be an integer from 1 to 100, not '0'"),
    (("deliveries", "{id}", "--limit", "101"), "--limit must be an integer from 1 to 100, not '101'"),
    (("deliveries", "{id}", "--limit", "x"), "--limit must be an integer from 1 to 100, not 'x'"),
])
def test_cli_errors_are_one_line_exit_1(wh, receiver, cli, args, message):  # noqa: F811
    hook = wh.webhook("event.created", receiver.url())
    proc = cli(*(a.format(id=hook["id"]) for a in args), ok=False)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and message in proc.stderr


def test_cli_deleted_webhook_keeps_its_log(wh, receiver, cli):  # noqa: F811
    hook = wh.webhook("event.created", receiver.url())
    wh.post(f"/webhooks/{hook['id']}/test")
    wh.delete(f"/webhooks/{hook['id']}")
    assert _rows(cli("list").stdout) == [["ID", "NAME", "STATUS", "TOPIC", "URL", "FAILURES"]]
    [row] = _rows(cli("deliveries", str(hook["id"])).stdout)[1:]
    assert row[1:4] == ["test", "delivered", "200"]
