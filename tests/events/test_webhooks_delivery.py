"""Deliveries (Huey in immediate mode, a real receiver): envelope, headers and signature, each
topic's data, paused/disabled skips, failure counting, redirects, time-out, the log, and the
address check when connecting."""
import ipaddress
import re
import uuid
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from storeplatform.api import hookimpl
from storeplatform.testing import assert_error
from storeplatform_events.webhooks.settings import webhook_settings
from storeplatform_events.webhooks.targets import address_refused, url_problem

from .webhook_fixtures import hooks_site, payload, receiver, signed_by, wh  # noqa: F401
from .webhook_receiver import Receiver

EVENT_FIELDS = {"id", "title", "status", "start_date", "start_time", "end_date", "end_time", "venue_id",
                "organizer_id", "capacity", "event_status", "url"}
ATTENDEE_FIELDS = {"id", "event_id", "event_name", "order_id", "first_name", "last_name", "email", "ticket_code",
                   "status"}


def check_envelope(received, hook, topic):
    body = payload(received)
    assert set(body) == {"topic", "webhook_id", "timestamp", "data"}
    assert (body["topic"], body["webhook_id"]) == (topic, hook["id"])
    headers = received.headers
    assert headers["Content-Type"] == "application/json"
    assert headers["X-EVT-Webhook-ID"] == str(hook["id"])
    assert headers["X-EVT-Topic"] == topic
    assert re.fullmatch(r"[0-9a-f]{64}", headers["X-EVT-Signature"])
    assert signed_by(received, hook["secret"])
    assert str(uuid.UUID(headers["X-EVT-Delivery"])) == headers["X-EVT-Delivery"]
    assert headers["X-EVT-Timestamp"] == body["timestamp"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", body["timestamp"])
    return body["data"]


def test_event_topics_carry_the_spec_fields(wh, receiver):
    wh.site.set_option("site.timezone", "Pacific/Kiritimati")
    hooks = {t: wh.webhook(t, receiver.url(f"/{t}")) for t in ("event.created", "event.updated", "event.deleted")}
    venue, organizer = wh.venue()["id"], wh.organizer()["id"]
    event = wh.event("Gala", start_date="2031-05-02", start_time="19:30", end_date="2031-05-03", end_time="01:00",
                     venue_id=venue, organizer_id=organizer, capacity=250, event_status="scheduled", status="draft")
    [created] = receiver.posts("/event.created")
    data = check_envelope(created, hooks["event.created"], "event.created")
    assert data == {"id": event["id"], "title": "Gala", "status": "draft", "start_date": "2031-05-02",
                    "start_time": "19:30", "end_date": "2031-05-03", "end_time": "01:00", "venue_id": str(venue),
                    "organizer_id": str(organizer), "capacity": "250", "event_status": "scheduled",
                    "url": event["permalink"]}
    stamp = datetime.strptime(payload(created)["timestamp"], "%Y-%m-%d %H:%M:%S")
    now = datetime.now(ZoneInfo("Pacific/Kiritimati")).replace(tzinfo=None)
    assert abs(now - stamp) < timedelta(minutes=1)  # site local time (UTC+14), not UTC

    wh.put(f"/events/{event['id']}", {"event_status": "cancelled", "title": "Gala (off)"})
    [updated] = receiver.posts("/event.updated")
    data = check_envelope(updated, hooks["event.updated"], "event.updated")
    assert set(data) == EVENT_FIELDS
    assert (data["title"], data["event_status"]) == ("Gala (off)", "cancelled")
    bare = wh.event("Bare")
    assert {k: v for k, v in payload(receiver.posts("/event.created")[-1])["data"].items()
            if k in ("venue_id", "organizer_id", "capacity")} == {"venue_id": "0", "organizer_id": "0", "capacity": "0"}

    wh.delete(f"/events/{event['id']}")  # trash
    wh.delete(f"/events/{event['id']}")  # already trashed: nothing changes, nothing fires
    wh.delete(f"/events/{bare['id']}?force=true")
    deleted = receiver.posts("/event.deleted")
    assert [check_envelope(r, hooks["event.deleted"], "event.deleted") for r in deleted] == [
        {"id": event["id"], "force": False}, {"id": bare["id"], "force": True}]
    assert len(receiver.posts("/event.created")) == 2 and len(receiver.posts("/event.updated")) == 1
    assert len({r.headers["X-EVT-Delivery"] for r in receiver.posts()}) == len(receiver.posts()) == 5
    assert {d["status"] for d in wh.deliveries()} == {"delivered"}


def test_attendee_topics_carry_the_spec_fields(wh, receiver):
    topics = ("attendee.created", "attendee.updated", "attendee.checked_in", "attendee.checked_out")
    hooks = {t: wh.webhook(t, receiver.url(f"/{t}")) for t in topics}
    event = wh.event("Recital")
    first, second = wh.tickets(event["id"], 2)
    created = receiver.posts("/attendee.created")
    assert [check_envelope(r, hooks["attendee.created"], "attendee.created") for r in created] == [
        {"id": a["id"], "event_id": event["id"], "event_name": "Recital", "order_id": a["order_id"],
         "first_name": "Anna", "last_name": "Nowak", "email": "anna@example.com", "ticket_code": a["ticket_code"],
         "status": "active"} for a in (first, second)]
    wh.put(f"/attendees/{first['id']}", {"first_name": "Ann", "email": "ann@example.com"}, status=200)
    [updated] = receiver.posts("/attendee.updated")
    data = check_envelope(updated, hooks["attendee.updated"], "attendee.updated")
    assert set(data) == ATTENDEE_FIELDS and (data["first_name"], data["email"]) == ("Ann", "ann@example.com")
    wh.post("/checkin", {"ticket_code": first["ticket_code"]}, status=200)
    wh.post("/checkin", {"ticket_code": first["ticket_code"]}, status=200)  # already in: no second delivery
    wh.post("/checkin/checkout", {"ticket_code": first["ticket_code"]}, status=200)
    [checked_in] = receiver.posts("/attendee.checked_in")
    [checked_out] = receiver.posts("/attendee.checked_out")
    assert check_envelope(checked_in, hooks["attendee.checked_in"], "attendee.checked_in")["status"] == "checked_in"
    assert check_envelope(checked_out, hooks["attendee.checked_out"], "attendee.checked_out")["status"] == \
        "checked_out"
    assert len(receiver.posts("/attendee.updated")) == 1


def test_only_active_webhooks_of_the_topic_receive(wh, receiver):
    active = wh.webhook("event.created", receiver.url("/active"))
    wh.webhook("event.created", receiver.url("/paused"), status="paused")
    disabled = wh.webhook("event.created", receiver.url("/disabled"), status="disabled")
    wh.webhook("event.updated", receiver.url("/other-topic"))
    wh.webhook("ticket.sold", receiver.url("/never"))
    wh.venue("Hall")  # venue.* is no webhook topic
    wh.event("One")
    assert [r.path for r in receiver.posts()] == ["/active"]
    # Resuming does not send what happened while paused or disabled: nothing was queued for later.
    wh.put(f"/webhooks/{disabled['id']}", {"status": "active"})
    wh.put(f"/webhooks/{active['id']}", {"status": "paused"})
    assert [r.path for r in receiver.posts()] == ["/active"]
    wh.event("Two")
    assert [r.path for r in receiver.posts()] == ["/active", "/disabled"]
    assert len(wh.deliveries()) == 2


def test_failures_count_to_disabled_and_success_resets(wh, receiver):
    hook = wh.webhook("event.created", receiver.url("/status/503"))
    for i in range(3):
        wh.event(f"E{i}")
    assert wh.webhook_row(hook["id"]) == {"status": "active", "failures": 3}
    wh.put(f"/webhooks/{hook['id']}", {"url": receiver.url("/status/302")})  # below 400: success
    wh.event("ok")
    assert wh.webhook_row(hook["id"]) == {"status": "active", "failures": 0}
    wh.put(f"/webhooks/{hook['id']}", {"url": receiver.url("/status/400")})
    for i in range(5):
        wh.event(f"F{i}")
    assert wh.webhook_row(hook["id"]) == {"status": "disabled", "failures": 5}
    assert wh.get(f"/webhooks/{hook['id']}", headers=wh.admin).json["failures"] == 5
    sent = len(receiver.posts())
    wh.event("while disabled")
    assert len(receiver.posts()) == sent == 9
    # PUT status active resumes, with a fresh counter.
    res = wh.put(f"/webhooks/{hook['id']}", {"status": "active", "url": receiver.url("/fine")}).json
    assert (res["status"], res["failures"]) == ("active", 0)
    wh.event("resumed")
    assert receiver.posts()[-1].path == "/fine" and len(receiver.posts()) == 10
    logged = wh.deliveries()
    assert [d["response_code"] for d in logged] == [503] * 3 + [302] + [400] * 5 + [200]
    assert [d["status"] for d in logged] == ["failed"] * 3 + ["delivered"] + ["failed"] * 5 + ["delivered"]
    assert all(d["duration_ms"] is not None and d["request_headers"]["X-EVT-Topic"] == "event.created"
               for d in logged)
    assert logged[0]["error"] == "HTTP 503" and logged[-1]["error"] is None


def test_up_to_five_redirects_are_followed(wh, receiver):
    five = wh.webhook("event.created", receiver.url("/redirect/5"))
    six = wh.webhook("event.created", receiver.url("/redirect/6"))
    wh.event("Hop")
    assert [r.path for r in receiver.posts("/redirect/")] == [f"/redirect/{n}" for n in (5, 4, 3, 2, 1, 0)] + \
        [f"/redirect/{n}" for n in (6, 5, 4, 3, 2, 1)]
    # 307 keeps the method, the body and the signature on every hop.
    assert all(signed_by(r, five["secret"]) for r in receiver.posts()[:6])
    assert wh.webhook_row(five["id"])["failures"] == 0
    assert wh.webhook_row(six["id"])["failures"] == 1
    logged = {d["webhook_id"]: d for d in wh.deliveries()}
    assert logged[five["id"]]["response_code"] == 200
    assert logged[six["id"]]["status"] == "failed" and "redirects" in logged[six["id"]]["error"]


def test_a_slow_receiver_times_out(make_site, receiver):
    site = hooks_site(make_site, **{"events.webhooks.timeout": "0.3"})
    hook = site.webhook("event.created", receiver.url("/slow/1.5"))
    started = datetime.now()
    site.event("Slow")
    assert datetime.now() - started < timedelta(seconds=1.4)
    assert site.webhook_row(hook["id"]) == {"status": "active", "failures": 1}
    [logged] = site.deliveries()
    assert logged["status"] == "failed" and logged["response_code"] is None and "time-out" in logged["error"]
    assert 250 <= logged["duration_ms"] < 1400


def test_the_time_out_covers_all_redirect_hops_together(make_site, receiver):
    site = hooks_site(make_site, **{"events.webhooks.timeout": "0.6"})
    hook = site.webhook("event.created", receiver.url("/slowhop/3/0.25"))  # each hop alone is in time
    site.event("Chain")
    assert site.webhook_row(hook["id"])["failures"] == 1
    [logged] = site.deliveries()
    # Stopped at the deadline, not after every hop (0.75 s); the bound leaves room for a loaded machine.
    assert logged["status"] == "failed" and "time-out" in logged["error"] and logged["duration_ms"] < 2000
    assert len(receiver.posts("/slowhop")) <= 3


def test_the_log_keeps_the_last_100_deliveries(wh, receiver):
    for i in range(4):
        wh.webhook("event.updated", receiver.url(f"/{i}"))
    event = wh.event("Busy")
    for i in range(26):
        wh.put(f"/events/{event['id']}", {"title": f"Busy {i}"})
    logged = wh.deliveries()
    assert len(receiver.posts()) == 104 and len(logged) == 100
    assert [d["uuid"] for d in logged] == [r.headers["X-EVT-Delivery"] for r in receiver.posts()][4:]


@pytest.mark.parametrize("address, refused", [
    ("127.0.0.1", True), ("127.9.9.9", True), ("::1", True), ("10.0.0.1", True), ("172.31.255.255", True),
    ("192.168.1.1", True), ("169.254.169.254", True), ("fe80::1", True), ("fc00::1", True), ("0.0.0.0", True),
    ("::", True), ("100.64.0.1", True), ("224.0.0.1", True), ("::ffff:10.0.0.1", True), ("240.0.0.1", True),
    ("93.184.215.14", False), ("8.8.8.8", False), ("2606:4700:4700::1111", False), ("::ffff:8.8.8.8", False),
])
def test_address_rule(address, refused):
    assert address_refused(address) is refused


def test_address_rule_trusted_networks_and_host_names():
    trusted = (ipaddress.ip_network("10.20.0.0/16"),)
    assert not address_refused("10.20.3.4", trusted)
    assert address_refused("10.21.0.1", trusted)
    policy = webhook_settings({"events.webhooks.allow_private_targets": "false"})
    assert "not allowed" in url_problem("http://localhost:9000/x", policy)
    assert url_problem("https://93.184.215.14/x", policy) is None
    open_policy = webhook_settings({"events.webhooks.allow_private_targets": "true"})
    assert url_problem("http://localhost:9000/x", open_policy) is None


def test_connect_time_check_on_every_hop(make_site, receiver):
    """The first hop is a trusted internal receiver; it redirects to a private address that
    listens too: the second hop is refused when connecting, so nothing reaches it."""
    try:
        inner = Receiver("127.0.0.2")
    except OSError:  # pragma: no cover - every Linux routes 127.0.0.0/8 to loopback
        pytest.fail("cannot listen on 127.0.0.2")
    try:
        site = hooks_site(make_site, **{"events.webhooks.allow_private_targets": "false",
                                        "events.webhooks.trusted_networks": "127.0.0.1"})
        hook = site.webhook("event.created", receiver.url(f"/to?url={inner.url('/internal')}"))
        site.event("Sneaky")
        assert len(receiver.posts("/to")) == 1 and inner.requests == []
        [logged] = site.deliveries()
        assert logged["status"] == "failed" and "127.0.0.2" in logged["error"]
        assert site.webhook_row(hook["id"])["failures"] == 1
        # The same redirect is followed where private targets are allowed (the receiver is real).
        open_site = hooks_site(make_site, same_users_as=site)
        open_site.post(f"/webhooks/{hook['id']}/test")
        assert len(inner.posts("/internal")) == 1
    finally:
        inner.close()


def test_an_address_accepted_at_save_is_checked_again_when_sending(make_site, receiver):
    """A URL saved while private targets were allowed (or a name whose DNS changed since) is
    refused when connecting."""
    open_site = hooks_site(make_site)
    hook = open_site.webhook("event.created", receiver.url())
    strict = hooks_site(make_site, same_users_as=open_site, **{"events.webhooks.allow_private_targets": "false"})
    strict.event("Later")
    assert strict.post(f"/webhooks/{hook['id']}/test").json == {"success": False, "response_code": 0}
    assert receiver.posts() == []
    assert [d["status"] for d in strict.deliveries()] == ["failed", "failed"]
    assert all("127.0.0.1" in d["error"] for d in strict.deliveries())


class FailingListener:
    """A plugin beside events whose ``evt_topic_announced`` fails on event.created (the
    outbox's implementation still runs: every implementation of an action does)."""

    @hookimpl
    def evt_topic_announced(self, topic):
        if topic == "event.created":
            raise RuntimeError("a later listener fails")


def test_a_change_that_fails_after_the_trigger_leaves_no_delivery(make_site, receiver):
    """The deliveries belong to the change's transaction: when a later implementation of the
    topic hook fails, the change, its deliveries and their hand-off to Huey are all gone."""
    wh = hooks_site(make_site, plugins=[FailingListener()])
    wh.webhook("event.created", receiver.url())
    assert_error(wh.post("/events", {"title": "Doomed"}, status=500), 500, "rest_internal_error")
    assert wh.deliveries() == [] and receiver.posts() == []
    assert wh.get("/events", headers=wh.admin).json == []


@pytest.mark.parametrize("key, value", [("events.webhooks.trusted_networks", "10.0.0.0/8 not-a-network"),
                                        ("events.webhooks.timeout", "soon"), ("events.webhooks.timeout", "0"),
                                        ("events.webhooks.timeout", "nan"), ("events.webhooks.timeout", "inf"),
                                        ("events.webhooks.requeue_after", "-1")])
def test_bad_webhook_settings_fail_at_start_up(make_site, key, value):
    with pytest.raises(ValueError, match="events.webhooks"):
        make_site(**{"storeplatform.plugins": "events", key: value})
