"""Webhook routes: CRUD, validation, permissions, list parameters, topics, URL refusal, and the
test route (sent at once, counted toward the failure limit)."""
import re
import socket

import pytest

from storeplatform.testing import assert_error, count_queries

from .webhook_fixtures import WEBHOOK_KEYS, hooks_site, payload, receiver, signed_by, strict, wh  # noqa: F401


def test_create_generates_secret_and_get_returns_it(wh, receiver):
    res = wh.post("/webhooks", {"name": " Orders ", "url": receiver.url(), "topic": "event.created"}, status=201)
    hook = res.json
    assert set(hook) == WEBHOOK_KEYS
    assert res.headers["Location"] == f"http://localhost/api/events/v1/webhooks/{hook['id']}"
    assert hook["name"] == "Orders" and hook["topic"] == "event.created"
    assert re.fullmatch(r"[A-Za-z0-9]{32}", hook["secret"])
    assert hook["status"] == "active" and hook["failures"] == 0
    assert hook["url"] == hook["delivery_url"] == receiver.url()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", hook["created_at"])
    assert wh.get(f"/webhooks/{hook['id']}", headers=wh.admin).json == hook
    other = wh.webhook("event.created", receiver.url())
    assert other["secret"] != hook["secret"]


def test_create_with_secret_status_and_every_listed_topic(wh, receiver):
    topics = [t["name"] for t in wh.get("/webhooks/topics").json["topics"]]
    for topic in topics:
        hook = wh.webhook(topic, receiver.url(), secret="s3cret", status="paused")
        assert (hook["topic"], hook["secret"], hook["status"]) == (topic, "s3cret", "paused")
    # Empty or null secret: one is generated.
    assert len(wh.webhook("event.created", receiver.url(), secret="")["secret"]) == 32
    assert len(wh.webhook("event.created", receiver.url(), secret=None)["secret"]) == 32


def test_topics_are_public_and_list_the_twelve_topics(wh):
    body = wh.get("/webhooks/topics").json
    assert [t["name"] for t in body["topics"]] == [
        "event.created", "event.updated", "event.deleted", "attendee.created", "attendee.updated",
        "attendee.checked_in", "attendee.checked_out", "attendee.cancelled", "ticket.sold", "ticket.refunded",
        "capacity.reached", "event.reminder"]
    assert [t["fires"] for t in body["topics"]] == [True] * 7 + [False] * 5
    assert all(set(t) == {"name", "description", "fires"} and t["description"] for t in body["topics"])


@pytest.mark.parametrize("body, bad", [
    ({}, {"name", "url", "topic"}),
    ({"name": "", "url": "http://127.0.0.1/", "topic": "event.created"}, {"name"}),
    ({"name": "   ", "url": "http://127.0.0.1/", "topic": "event.created"}, {"name"}),
    ({"name": 5, "url": "http://127.0.0.1/", "topic": "event.created"}, {"name"}),
    ({"name": "x" * 201, "url": "http://127.0.0.1/", "topic": "event.created"}, {"name"}),
    ({"name": "A", "url": "http://127.0.0.1/", "topic": "test"}, {"topic"}),
    ({"name": "A", "url": "http://127.0.0.1/", "topic": "event.*"}, {"topic"}),
    ({"name": "A", "url": "http://127.0.0.1/", "topic": "event.created", "status": "on"}, {"status"}),
    ({"name": "A", "url": "http://127.0.0.1/", "topic": "event.created", "secret": "s" * 256}, {"secret"}),
    ({"name": "A", "url": "ftp://127.0.0.1/", "topic": "event.created"}, {"url"}),
    ({"name": "A", "url": "not a url", "topic": "event.created"}, {"url"}),
    ({"name": "A", "url": "http:///nohost", "topic": "event.created"}, {"url"}),
    ({"name": "A", "url": "http://127.0.0.1:99999/", "topic": "event.created"}, {"url"}),
    ({"name": "A", "url": "http://" + "a" * 2000 + ".com/", "topic": "event.created"}, {"url"}),
    ({"name": "A", "url": ["http://127.0.0.1/"], "topic": "event.created"}, {"url"}),
    # The URL's rules (the site's webhook settings) are reported with every other bad field.
    ({"name": "", "url": "ftp://127.0.0.1/", "topic": "event.*", "status": "on"}, {"name", "url", "topic", "status"}),
])
def test_invalid_bodies_are_rest_invalid_param_and_store_nothing(wh, body, bad):
    res = wh.post("/webhooks", body, status=400)
    assert set(assert_error(res, 400, "rest_invalid_param")["data"]["params"]) == bad
    assert wh.get("/webhooks", headers=wh.admin).json == []


def test_permissions(wh, receiver):
    hook = wh.webhook("event.created", receiver.url())
    routes = [("get", "/webhooks"), ("post", "/webhooks"), ("get", f"/webhooks/{hook['id']}"),
              ("put", f"/webhooks/{hook['id']}"), ("delete", f"/webhooks/{hook['id']}"),
              ("post", f"/webhooks/{hook['id']}/test")]
    manager = wh.site.headers_for("shop_manager")
    for method, path in routes:
        kw = {"status": "*"}
        call = getattr(wh.app, method + ("_json" if method in ("post", "put") else ""))
        args = (wh.url(path), {"name": "x"}) if method in ("post", "put") else (wh.url(path),)
        assert_error(call(*args, **kw), 401, "evt_rest_forbidden")
        assert_error(call(*args, headers=manager, **kw), 403, "evt_rest_forbidden")
    assert receiver.posts() == []
    assert wh.webhook_row(hook["id"]) == {"status": "active", "failures": 0}
    wh.site.set_option("events.rest_api_enabled", False)
    assert_error(wh.get("/webhooks/topics", status=403), 403, "evt_api_disabled")


def test_unknown_id_is_evt_rest_webhook_invalid_id(wh):
    for method in ("get", "put", "delete"):
        kw = {"headers": wh.admin, "status": 404}
        res = wh.app.put_json(wh.url("/webhooks/999"), {}, **kw) if method == "put" else \
            getattr(wh.app, method)(wh.url("/webhooks/999"), **kw)
        assert_error(res, 404, "evt_rest_webhook_invalid_id")
    assert_error(wh.post("/webhooks/999/test", status=404), 404, "evt_rest_webhook_invalid_id")
    for big in ("2147483648", "999999999999999", "99999999999999999999999"):
        assert_error(wh.get(f"/webhooks/{big}", headers=wh.admin, status=404), 404, "evt_rest_webhook_invalid_id")
        assert_error(wh.post(f"/webhooks/{big}/test", status=404), 404, "evt_rest_webhook_invalid_id")


def test_list_filters_pagination_and_constant_queries(wh, receiver):
    a = wh.webhook("event.created", receiver.url("/a"), name="Alpha")
    b = wh.webhook("attendee.created", receiver.url("/b"), name="Beta", status="paused")
    c = wh.webhook("event.created", receiver.url("/c"), name="Gamma", status="disabled")

    def ids(**params):
        return [w["id"] for w in wh.get("/webhooks", params=params, headers=wh.admin).json]

    assert ids() == [a["id"], b["id"], c["id"]]
    assert ids(status="paused") == [b["id"]]
    assert ids(topic="event.created") == [a["id"], c["id"]]
    assert ids(topic="event.created", status="disabled") == [c["id"]]
    assert ids(search="gam") == [c["id"]]
    assert ids(search="/b") == [b["id"]]
    assert ids(search="%") == []
    res = wh.get("/webhooks", params={"per_page": 2, "page": 2}, headers=wh.admin)
    assert [w["id"] for w in res.json] == [c["id"]]
    assert (res.headers["X-Total"], res.headers["X-TotalPages"]) == ("3", "2")
    assert 'rel="prev"' in res.headers["Link"] and 'rel="next"' not in res.headers["Link"]
    for params, name in [({"per_page": 0}, "per_page"), ({"per_page": 101}, "per_page"), ({"page": 0}, "page"),
                         ({"status": "on"}, "status"), ({"topic": "test"}, "topic")]:
        res = wh.get("/webhooks", params=params, headers=wh.admin, status=400)
        assert set(assert_error(res, 400, "rest_invalid_param")["data"]["params"]) == {name}
    with count_queries(wh.site.engine) as small:
        wh.get("/webhooks", params={"per_page": 1}, headers=wh.admin)
    for i in range(5):
        wh.webhook("event.updated", receiver.url(f"/{i}"))
    with count_queries(wh.site.engine) as big:
        assert len(wh.get("/webhooks", params={"per_page": 100}, headers=wh.admin).json) == 8
    assert small() == big()


def test_update_changes_only_sent_fields(wh, receiver):
    hook = wh.webhook("event.created", receiver.url(), secret="first")
    res = wh.put(f"/webhooks/{hook['id']}", {"name": "Renamed"}).json
    assert res["name"] == "Renamed"
    assert {k: res[k] for k in ("url", "topic", "secret", "status")} == \
        {k: hook[k] for k in ("url", "topic", "secret", "status")}
    res = wh.put(f"/webhooks/{hook['id']}", {"topic": "attendee.updated", "url": receiver.url("/new"),
                                             "status": "paused"}).json
    assert (res["topic"], res["url"], res["delivery_url"], res["status"]) == \
        ("attendee.updated", receiver.url("/new"), receiver.url("/new"), "paused")
    # An empty secret asks for a new random one.
    res = wh.put(f"/webhooks/{hook['id']}", {"secret": ""}).json
    assert re.fullmatch(r"[A-Za-z0-9]{32}", res["secret"])
    for body, bad in [({"topic": "nope"}, "topic"), ({"url": "gopher://x/"}, "url"), ({"name": ""}, "name"),
                      ({"status": "deleted"}, "status")]:
        res = wh.put(f"/webhooks/{hook['id']}", body, status=400)
        assert set(assert_error(res, 400, "rest_invalid_param")["data"]["params"]) == {bad}
    assert wh.get(f"/webhooks/{hook['id']}", headers=wh.admin).json["status"] == "paused"


def test_delete_answers_previous_and_forgets_the_webhook(wh, receiver):
    hook = wh.webhook("event.created", receiver.url())
    res = wh.delete(f"/webhooks/{hook['id']}").json
    assert res == {"deleted": True, "previous": hook}
    assert_error(wh.get(f"/webhooks/{hook['id']}", headers=wh.admin, status=404), 404, "evt_rest_webhook_invalid_id")
    wh.event("After")
    assert receiver.posts() == []


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_test_route_sends_at_once_signed(wh, receiver):
    hook = wh.webhook("attendee.checked_in", receiver.url())
    assert wh.post(f"/webhooks/{hook['id']}/test").json == {"success": True, "response_code": 200}
    [received] = receiver.posts()
    body = payload(received)
    assert set(body) == {"topic", "webhook_id", "timestamp", "data"}
    assert body["topic"] == "test" and body["webhook_id"] == hook["id"] and body["data"] == {"test": True}
    assert received.headers["X-EVT-Topic"] == "test"
    assert received.headers["X-EVT-Webhook-ID"] == str(hook["id"])
    assert received.headers["X-EVT-Timestamp"] == body["timestamp"]
    assert signed_by(received, hook["secret"])
    [logged] = wh.deliveries()
    assert (logged["topic"], logged["status"], logged["response_code"]) == ("test", "delivered", 200)


def test_test_route_failures_count_and_disable(wh, receiver):
    hook = wh.webhook("event.created", receiver.url("/status/500"))
    wh.put(f"/webhooks/{hook['id']}", {"secret": "k"})
    for attempt in range(1, 6):
        assert wh.post(f"/webhooks/{hook['id']}/test").json == {"success": False, "response_code": 500}
        assert wh.webhook_row(hook["id"]) == {"status": "active" if attempt < 5 else "disabled",
                                              "failures": attempt}
    # A test of a disabled webhook is still sent (that is how a receiver is checked before resuming).
    wh.put(f"/webhooks/{hook['id']}", {"url": receiver.url("/fixed")})
    assert wh.post(f"/webhooks/{hook['id']}/test").json == {"success": True, "response_code": 200}
    assert wh.webhook_row(hook["id"]) == {"status": "disabled", "failures": 0}
    assert len(receiver.posts()) == 6
    assert all(signed_by(r, "k") for r in receiver.posts())


def test_test_route_without_answer_is_code_0(wh):
    hook = wh.webhook("event.created", f"http://127.0.0.1:{_free_port()}/gone")
    assert wh.post(f"/webhooks/{hook['id']}/test").json == {"success": False, "response_code": 0}
    assert wh.webhook_row(hook["id"])["failures"] == 1
    [logged] = wh.deliveries()
    assert logged["status"] == "failed" and logged["response_code"] is None and "Connection" in logged["error"]


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/hook", "http://localhost:8080/hook", "http://10.1.2.3/", "https://192.168.0.10/",
    "http://172.16.5.4/", "http://169.254.169.254/latest/meta-data/", "http://[::1]/", "http://0.0.0.0/",
    "http://2130706433/", "http://[::ffff:127.0.0.1]/", "http://100.64.0.1/", "http://[fe80::1]/",
    "http://no-such-host.invalid/",
])
def test_private_targets_are_refused_at_save(strict, url):
    res = strict.post("/webhooks", {"name": "A", "url": url, "topic": "event.created"}, status=400)
    assert set(assert_error(res, 400, "rest_invalid_param")["data"]["params"]) == {"url"}
    assert strict.get("/webhooks", headers=strict.admin).json == []


def test_public_address_accepted_and_put_checked_too(strict):
    hook = strict.webhook("event.created", "https://93.184.215.14/hook")
    res = strict.put(f"/webhooks/{hook['id']}", {"url": "http://localhost/"}, status=400)
    assert set(assert_error(res, 400, "rest_invalid_param")["data"]["params"]) == {"url"}
    res = strict.put(f"/webhooks/{hook['id']}", {"url": "http://localhost/", "topic": "x"}, status=400)
    assert set(assert_error(res, 400, "rest_invalid_param")["data"]["params"]) == {"url", "topic"}
    assert strict.get(f"/webhooks/{hook['id']}", headers=strict.admin).json["url"] == "https://93.184.215.14/hook"


def test_trusted_networks_allow_one_internal_receiver(make_site, receiver):
    site = hooks_site(make_site, **{"events.webhooks.allow_private_targets": "false",
                                    "events.webhooks.trusted_networks": "127.0.0.1/32"})
    hook = site.webhook("event.created", receiver.url())
    assert site.post(f"/webhooks/{hook['id']}/test").json == {"success": True, "response_code": 200}
    res = site.post("/webhooks", {"name": "A", "url": "http://127.0.0.2/", "topic": "event.created"}, status=400)
    assert_error(res, 400, "rest_invalid_param")


def test_schema_index_describes_the_webhook_routes(wh):
    routes = wh.get("/", headers=wh.admin).json["routes"]
    assert routes["/events/v1/webhooks"]["methods"] == ["GET", "POST"]
    post = [e for e in routes["/events/v1/webhooks"]["endpoints"] if e["methods"] == ["POST"]][0]
    assert {k: post["args"][k]["required"] for k in ("name", "url", "topic", "secret", "status")} == \
        {"name": True, "url": True, "topic": True, "secret": False, "status": False}
    assert post["args"]["status"]["enum"] == ["active", "paused", "disabled"] and post["permission"] == "manage_options"
    assert routes["/events/v1/webhooks/{id}/test"]["methods"] == ["POST"]
    assert routes["/events/v1/webhooks/topics"]["endpoints"][0]["permission"] is None


def test_a_slow_test_delivery_holds_no_database_lock(make_site, receiver):
    import threading
    import time

    site = hooks_site(make_site, **{"events.webhooks.timeout": "5"})
    hook = site.webhook("event.created", receiver.url("/slow/1.5"))
    answers = []
    sender = threading.Thread(target=lambda: answers.append(site.post(f"/webhooks/{hook['id']}/test").json))
    sender.start()
    while not receiver.posts("/slow"):
        time.sleep(0.01)
    started = time.monotonic()
    site.venue("Written meanwhile")  # a write while the receiver is still answering
    assert time.monotonic() - started < 1.0
    sender.join()
    assert answers == [{"success": True, "response_code": 200}]


def test_check_ins_see_every_webhook_change_and_ask_nothing_while_none_happens(wh, receiver):
    event = wh.event("Door")
    tickets = wh.tickets(event["id"], quantity=5)
    wh.post("/checkin", {"ticket_code": tickets[0]["ticket_code"]}, status=200)
    with count_queries(wh.site.engine) as n:
        wh.post("/checkin", {"ticket_code": tickets[1]["ticket_code"]}, status=200)
    # The site's state and the ticket's move (on SQLite its scan for the order's history is a
    # statement of its own; PostgreSQL records it in the move's); the webhooks are kept by generation.
    assert n() == (2 if wh.site.engine.dialect.name == "postgresql" else 3)
    hook = wh.webhook("attendee.checked_in", receiver.url())
    wh.post("/checkin", {"ticket_code": tickets[2]["ticket_code"]}, status=200)
    assert [(d["webhook_id"], d["topic"]) for d in wh.deliveries()] == [(hook["id"], "attendee.checked_in")]
    wh.put(f"/webhooks/{hook['id']}", {"status": "paused"}, status=200)
    wh.post("/checkin", {"ticket_code": tickets[3]["ticket_code"]}, status=200)
    assert len(wh.deliveries()) == 1
    # A failed test delivery bumps the failure counter, not what check-ins look up.
    wh.put(f"/webhooks/{hook['id']}", {"status": "active"}, status=200)
    wh.post(f"/webhooks/{hook['id']}/test", status=200)
    wh.post("/checkin", {"ticket_code": tickets[4]["ticket_code"]}, status=200)
    assert [d["topic"] for d in wh.deliveries()] == ["attendee.checked_in", "test", "attendee.checked_in"]
