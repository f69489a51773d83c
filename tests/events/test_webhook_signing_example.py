"""docs/examples/webhook_receiver.py, the receiver docs/events.md shows, run as it is (its own
process, a real HTTP server on 127.0.0.1): it accepts a real delivery of the site's worker, whose
signature it checks as documented, and refuses the same delivery with its body tampered with,
an unsigned one and one signed with another secret."""
import http.client
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from storeplatform.testing import queue_url, wait_for
from storeplatform_events.webhooks.delivery import delivery_headers
from storeplatform_events.webhooks.models import WebhookDelivery

from .webhook_fixtures import hooks_site

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "webhook_receiver.py"
SECRET = "s3cret-of-the-receiver-0123456789"


class ExampleReceiver:
    """The example file in a process of its own; its stdout (accepted deliveries) and stderr
    (refusals) collected line by line."""

    def __init__(self, secret):
        self.proc = subprocess.Popen([sys.executable, str(EXAMPLE), "--port", "0", "--secret", secret],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = self.proc.stderr.readline()  # "listening on http://127.0.0.1:PORT/"
        assert first.startswith("listening on http://127.0.0.1:"), first
        self.url = first.split()[-1]
        self.port = int(self.url.rstrip("/").rsplit(":", 1)[1])
        self.accepted, self.refused = [], []
        for stream, into in ((self.proc.stdout, self.accepted), (self.proc.stderr, self.refused)):
            threading.Thread(target=self._collect, args=(stream, into), daemon=True).start()

    @staticmethod
    def _collect(stream, into):
        for line in stream:
            into.append(line.rstrip("\n"))

    def wait_for(self, lines, count=1, timeout=15):
        deadline = time.monotonic() + timeout
        while len(lines) < count:
            assert time.monotonic() < deadline, (self.accepted, self.refused)
            time.sleep(0.05)
        return lines

    def post(self, body, headers):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request("POST", "/", body=body, headers=headers)
            return conn.getresponse().status
        finally:
            conn.close()

    def close(self):
        self.proc.terminate()
        self.proc.wait(10)


@pytest.fixture
def wh(make_site, tmp_path):
    """Events with webhooks on a real queue: the site's worker (a Huey consumer) delivers."""
    return hooks_site(make_site, **{"huey.url": queue_url(tmp_path)})


def delivered_by_the_worker(wh, status):
    """Run the site's worker until the one delivery has its outcome written; the row."""
    with wh.site.worker(workers=1):
        wait_for(lambda: [r["status"] for r in delivery_rows(wh.site)] == [status], timeout=30)
    [row] = delivery_rows(wh.site)
    return row


@pytest.fixture
def example():
    receiver = ExampleReceiver(SECRET)
    yield receiver
    receiver.close()


def delivery_rows(site):
    table = WebhookDelivery.__table__
    with site.session() as s:
        return [row._asdict() for row in s.execute(
            select(table.c.webhook_id, table.c.topic, table.c.uuid, table.c.body, table.c.timestamp,
                   table.c.status, table.c.response_code).order_by(table.c.id))]


def test_the_example_receiver_verifies_a_real_delivery_and_refuses_a_tampered_one(wh, example):
    hook = wh.webhook("event.created", example.url, secret=SECRET)
    event = wh.event("Gala")
    row = delivered_by_the_worker(wh, "delivered")
    [line] = example.wait_for(example.accepted)
    accepted = json.loads(line)
    # The worker's delivery was accepted (204) and is what the example printed.
    assert (row["status"], row["response_code"]) == ("delivered", 204)
    assert accepted["delivery"] == row["uuid"] and accepted["topic"] == "event.created"
    assert accepted["webhook_id"] == hook["id"] and accepted["data"]["id"] == event["id"]
    assert accepted["timestamp"] == row["timestamp"]

    # The same delivery again, as the site signs it: accepted (the check is not a blanket refusal).
    body = row["body"].encode("utf-8")
    headers = delivery_headers(hook["id"], "event.created", SECRET, body, row["uuid"], row["timestamp"])
    assert example.post(body, headers) == 204
    # The body changed by one character under the same signature: refused.
    tampered = body.replace(b'"Gala"', b'"Gal4"')
    assert tampered != body
    assert example.post(tampered, headers) == 401
    # Without a signature, or with the timestamp header changed (it is not signed, so a
    # receiver must not rely on it: the signed body's timestamp is what counts).
    unsigned = {k: v for k, v in headers.items() if k != "X-EVT-Signature"}
    assert example.post(body, unsigned) == 401
    assert example.post(body, {**headers, "X-EVT-Timestamp": "1999-01-01 00:00:00"}) == 204
    # The example prints each line after it answered: a busy machine may show it a moment later.
    example.wait_for(example.refused, 2)
    example.wait_for(example.accepted, 3)
    assert all("refused: the X-EVT-Signature does not match the body" in line for line in example.refused)
    assert len(example.accepted) == 3 and len(example.refused) == 2


def test_a_webhook_signed_with_another_secret_fails_at_the_example(wh, example):
    wh.webhook("event.created", example.url, secret="not-the-receivers-secret")
    wh.event("Gala")
    row = delivered_by_the_worker(wh, "failed")
    example.wait_for(example.refused)
    assert (row["status"], row["response_code"]) == ("failed", 401)
    assert example.accepted == []
