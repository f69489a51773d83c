"""The webhooks pages of the admin (WebTest): list, create, edit, pause/resume, delete, the test
button, the delivery log (newest first by the time it shows), each delivery's request and
response, and "Deliver again", through the code of the REST routes; hostile forms."""
import json
import re
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from storeplatform.api import utcnow
from storeplatform_events.webhooks.models import WebhookDelivery

from storeplatform.testing import admin_login, admin_token, assert_admin_page

from .webhook_fixtures import hooks_site
from .answer_receiver import AnswerReceiver
from .webhook_receiver import Receiver


@pytest.fixture
def receiver():
    """A real HTTP receiver on 127.0.0.1 for the test."""
    r = Receiver()
    yield r
    r.close()


API = "/api/events/v1"


def logged_in(make_site, role="administrator", **settings):
    wh = hooks_site(make_site, **settings)
    page = admin_login(wh.site, "boss", role).follow(status="*")
    return wh, page


def rest_hooks(wh):
    return wh.site.app.get(API + "/webhooks", headers=wh.site.headers_for("administrator")).json


def field_error(page, name):
    match = re.search(rf'id="error-{name}" role="alert">([^<]*)<', page.text)
    return match and match.group(1)


def log_rows(page):
    """(time, topic, delivery id, status, response, duration, error) of each row of the log; the
    delivery id in full (the link's data-uuid: the cell shows its first 8 characters)."""
    names = ("Time", "Topic", "Delivery ID", "Status", "Response", "Duration", "Error")
    rows = []
    for row in re.findall(r'<tr data-id="\d+">(.*?)</tr>', page.text, re.S):
        cells = dict(re.findall(r'<td data-label="([^"]+)"[^>]*>(.*?)</td>', row, re.S))
        cells["Delivery ID"] = re.search(r'data-uuid="([^"]+)"', cells["Delivery ID"]).group(1)
        rows.append(tuple(re.sub(r"<[^>]+>", "", cells[name]).strip() for name in names))
    return rows


def log_ids(page):
    """The delivery row ids of the log, top to bottom."""
    return [int(n) for n in re.findall(r'<tr data-id="(\d+)">', page.text)]


def create(wh, **fields):
    page = wh.site.app.get("/admin/webhooks/new")
    form = page.forms["webhook-form"]
    for name, value in fields.items():
        form[name] = value
    return form.submit(status="*")


def test_create_list_edit_pause_resume_delete(make_site, receiver):
    wh, page = logged_in(make_site)
    assert ">Webhooks</a>" in page.text
    assert_admin_page(wh.site.app.get("/admin/webhooks"), 200, "No webhooks yet.")
    res = create(wh, name="Door", url=receiver.url("/hook"), topic="attendee.checked_in", secret="s3cret")
    assert res.status_int == 303 and res.location == "http://localhost/admin/webhooks"
    listing = assert_admin_page(res.follow(), 200, "Webhook Door created.")
    [hook] = rest_hooks(wh)
    assert {k: hook[k] for k in ("name", "url", "topic", "secret", "status", "failures")} == {
        "name": "Door", "url": receiver.url("/hook"), "topic": "attendee.checked_in", "secret": "s3cret",
        "status": "active", "failures": 0}
    assert f'<tr data-id="{hook["id"]}">' in listing.text and '<span class="badge active">active</span>' in listing.text
    # Edit: the form shows the stored values; an empty secret makes a new random one (as PUT).
    form = wh.site.app.get(f"/admin/webhooks/{hook['id']}/edit").forms["webhook-form"]
    assert form["name"].value == "Door" and form["secret"].value == "s3cret"
    form["name"], form["secret"], form["topic"] = "Front door", "", "attendee.checked_out"
    assert form.submit(status=303).location == "http://localhost/admin/webhooks"
    [hook] = rest_hooks(wh)
    assert hook["name"] == "Front door" and hook["topic"] == "attendee.checked_out"
    assert len(hook["secret"]) == 32 and hook["secret"] != "s3cret"
    token = admin_token(listing)
    wh.site.app.post(f"/admin/webhooks/{hook['id']}/pause", {"csrf_token": token}, status=303)
    assert rest_hooks(wh)[0]["status"] == "paused"
    assert '<button type="submit" class="resume">' in wh.site.app.get("/admin/webhooks").text
    wh.site.app.post(f"/admin/webhooks/{hook['id']}/resume", {"csrf_token": token}, status=303)
    assert rest_hooks(wh)[0]["status"] == "active"
    confirm = assert_admin_page(wh.site.app.get(f"/admin/webhooks/{hook['id']}/delete"), 200, "Its delivery log stays.")
    res = confirm.forms["delete-form"].submit(status=303)
    assert_admin_page(res.follow(), 200, "Webhook Front door deleted")
    assert rest_hooks(wh) == []


def test_the_test_button_shows_the_response_code_and_the_log_has_the_delivery(make_site, receiver):
    wh, page = logged_in(make_site)
    ok = wh.webhook("event.created", receiver.url("/ok"))
    bad = wh.webhook("event.created", receiver.url("/status/410"))
    token = admin_token(page)
    res = wh.site.app.post(f"/admin/webhooks/{ok['id']}/test", {"csrf_token": token}, status=303)
    assert res.location == f"http://localhost/admin/webhooks/{ok['id']}/deliveries"
    log = assert_admin_page(res.follow(), 200, f"Test delivery to {ok['name']}: response 200.")
    [received] = receiver.posts("/ok")
    delivery_id = received.headers["X-EVT-Delivery"]
    rows = log_rows(log)
    assert len(rows) == 1
    time, topic, uuid, status, code, duration, error = rows[0]
    assert (topic, status, code, error) == ("test", "delivered", "200", "")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", time) and re.fullmatch(r"\d+ ms", duration)
    assert uuid == delivery_id
    res = wh.site.app.post(f"/admin/webhooks/{bad['id']}/test", {"csrf_token": token}, status=303)
    log = assert_admin_page(res.follow(), 200, f"Test delivery to {bad['name']} failed: response 410 (HTTP 410).")
    assert '<span class="badge failed">failed</span>' in log.text and ">HTTP 410</td>" in log.text
    # A real change: the delivery written with it (Huey in immediate mode here) is in the log.
    wh.event("Gala")
    log = wh.site.app.get(f"/admin/webhooks/{ok['id']}/deliveries")
    assert log.text.count('<span class="badge delivered">delivered</span>') == 2
    assert "<code>event.created</code>" in log.text


def test_the_log_shows_the_last_100_and_stays_after_a_delete(make_site, receiver):
    wh, page = logged_in(make_site)
    hook = wh.webhook("event.created", receiver.url("/ok"))
    for n in range(103):
        wh.event(f"E{n}")
    log = wh.site.app.get(f"/admin/webhooks/{hook['id']}/deliveries")
    assert log.text.count('<a class="uuid"') == 100
    wh.delete(f"/webhooks/{hook['id']}", status=200)
    log = assert_admin_page(wh.site.app.get(f"/admin/webhooks/{hook['id']}/deliveries"), 200,
                            f"Deliveries of deleted webhook {hook['id']}")
    assert log.text.count('<a class="uuid"') == 100


def test_refused_webhook_forms_save_nothing(make_site):
    wh, page = logged_in(make_site, **{"events.webhooks.allow_private_targets": "false"})
    token = admin_token(page)
    res = create(wh, name="  ", url="http://127.0.0.1:9/x", topic="event.created", secret="x" * 256)
    assert_admin_page(res, 400, "Nothing was saved")
    assert field_error(res, "name") and field_error(res, "secret")
    assert field_error(res, "url").startswith("url ")
    assert 'value="http://127.0.0.1:9/x"' in res.text
    for body in ({"name": "A", "url": "ftp://example.com/", "topic": "event.created"},
                 {"name": "A", "url": "https://example.com/", "topic": "nope"},
                 {"name": "A", "url": "https://example.com/", "topic": "event.created", "status": "gone"},
                 {"name": "A" * 201, "url": "https://example.com/", "topic": "event.created"},
                 {"url": "https://example.com/", "topic": "event.created"},
                 {"name": "A", "url": "https://" + "x" * 99_000 + ".com/", "topic": "event.created"}):
        res = wh.site.app.post("/admin/webhooks/new", {**body, "csrf_token": token}, status=400)
        assert_admin_page(res, 400, "Nothing was saved")
    assert rest_hooks(wh) == []
    hook = wh.webhook("event.created", "https://93.184.215.14/in", name="Kept")
    res = wh.site.app.post(f"/admin/webhooks/{hook['id']}/edit",
                           {"name": "Changed", "topic": "bad", "csrf_token": token}, status=400)
    assert field_error(res, "topic") and 'value="Changed"' in res.text
    assert rest_hooks(wh)[0]["name"] == "Kept"
    # Invalid UTF-8, NUL, no token: refused whole.
    for raw in (b"name=%ff&url=https%3A%2F%2Fexample.com%2F&topic=event.created&csrf_token=",
                b"name=a%00&url=https%3A%2F%2Fexample.com%2F&topic=event.created&csrf_token="):
        assert_admin_page(wh.site.app.post("/admin/webhooks/new", raw + token.encode(),
                                           content_type="application/x-www-form-urlencoded", status=400), 400)
    assert_admin_page(wh.site.app.post("/admin/webhooks/new", {"name": "A", "url": "https://example.com/",
                                                               "topic": "event.created"}, status=403), 403)
    assert_admin_page(wh.site.app.post(f"/admin/webhooks/{hook['id']}/delete", status=403), 403)
    assert [h["name"] for h in rest_hooks(wh)] == ["Kept"]


def test_missing_webhooks_are_404_pages(make_site):
    wh, page = logged_in(make_site)
    token = admin_token(page)
    for path in ("/999/edit", "/999/delete", "/999/deliveries", "/99999999999999999999/edit",
                 "/99999999999999999999/deliveries", "/0/edit"):
        assert_admin_page(wh.site.app.get("/admin/webhooks" + path, status=404), 404)
    for path in ("/999/edit", "/999/delete", "/999/test", "/999/pause", "/999/resume", "/99999999999999999999/test"):
        assert_admin_page(wh.site.app.post("/admin/webhooks" + path, {"csrf_token": token, "name": "x"}, status=404),
                          404)
    assert_admin_page(wh.site.app.get("/admin/webhooks/abc/edit", status=404), 404)


def test_webhooks_pages_need_manage_options(make_site):
    wh, page = logged_in(make_site, role="shop_manager")
    hook = wh.webhook("event.created", "http://127.0.0.1:9/in")
    assert ">Webhooks</a>" not in page.text
    token = admin_token(page)
    assert_admin_page(wh.site.app.get("/admin/webhooks", status=403), 403)
    assert_admin_page(wh.site.app.get(f"/admin/webhooks/{hook['id']}/deliveries", status=403), 403)
    assert_admin_page(wh.site.app.post(f"/admin/webhooks/{hook['id']}/delete", {"csrf_token": token}, status=403), 403)
    assert len(rest_hooks(wh)) == 1


def test_the_pages_are_the_same_under_the_alternate_variant(make_site, receiver):
    wh, page = logged_in(make_site, **{"events.api_variant": "alternate"})
    res = create(wh, name="Alt", url=receiver.url("/alt"), topic="event.created")
    assert res.status_int == 303
    [hook] = rest_hooks(wh)
    res = wh.site.app.post(f"/admin/webhooks/{hook['id']}/test", {"csrf_token": admin_token(page)}, status=303)
    assert_admin_page(res.follow(), 200, "Test delivery to Alt: response 200.")


# -- the log's order, each delivery's page, "Deliver again" -----------------------------------

def _set_times(wh, times):
    """``{delivery id: (created_at, finished_at)}`` written to the rows (as concurrent changes
    and a slow worker leave them)."""
    with wh.site.session() as s:
        for delivery_id, (made, finished) in times.items():
            s.execute(update(WebhookDelivery).where(WebhookDelivery.id == delivery_id)
                      .values(created_at=made, finished_at=finished))


def test_the_log_is_newest_first_by_the_time_it_shows_ties_by_id(make_site, receiver):
    wh, page = logged_in(make_site)
    hook = wh.webhook("event.created", receiver.url("/ok"))
    for n in range(4):
        wh.event(f"E{n}")
    first, second, third, fourth = [d["id"] for d in wh.deliveries()]
    now = utcnow().replace(microsecond=0)
    # The second made last and finished first; the fourth made in the same instant as the second;
    # the third finished last: the order is the time the log shows, not the id or the finish.
    _set_times(wh, {first: (now - timedelta(minutes=10), now - timedelta(minutes=1)),
                    second: (now - timedelta(minutes=2), now - timedelta(minutes=9)),
                    third: (now - timedelta(minutes=5), now),
                    fourth: (now - timedelta(minutes=2), now - timedelta(minutes=8))})
    log = wh.site.app.get(f"/admin/webhooks/{hook['id']}/deliveries")
    assert log_ids(log) == [fourth, second, third, first]
    times = [row[0] for row in log_rows(log)]
    assert times == sorted(times, reverse=True) and times[0] == times[1]
    assert "newest first by the time each was made" in log.text
    # The command line's log reads the same rows; a pending delivery is made now: on top.
    with wh.site.session() as s:
        s.add(WebhookDelivery(uuid="00000000-0000-4000-8000-000000000001", webhook_id=hook["id"], topic="event.created",
                              body="{}", timestamp="2026-01-01 00:00:00", status="pending"))
    log = wh.site.app.get(f"/admin/webhooks/{hook['id']}/deliveries")
    assert log_ids(log)[1:] == [fourth, second, third, first]
    assert '<span class="badge pending">pending</span>' in log.text


def test_the_log_page_costs_the_same_statements_whatever_its_rows(make_site, receiver):
    from storeplatform.testing import statements_run

    wh, page = logged_in(make_site)
    hook = wh.webhook("event.created", receiver.url("/ok"))
    wh.event("One")
    counts = []
    for more in (0, 30):
        for n in range(more):
            wh.event(f"E{n}")
        with statements_run(wh.site.engine) as seen:
            wh.site.app.get(f"/admin/webhooks/{hook['id']}/deliveries", status=200)
        counts.append(len(seen))
    assert counts[0] == counts[1]


@pytest.fixture
def answering():
    r = AnswerReceiver()
    yield r
    r.close()


def delivery_page(wh, hook_id, delivery_id, status=200):
    return wh.site.app.get(f"/admin/webhooks/{hook_id}/deliveries/{delivery_id}", status=status)


def test_a_delivery_page_shows_its_request_and_response(make_site, answering):
    wh, page = logged_in(make_site)
    hook = wh.webhook("event.created", answering.url("/in"), secret="page-secret")
    answering.answer = (200, "Merci, reçu.".encode(), "length")
    event = wh.event("Gala <b>night</b>")
    [delivery] = wh.deliveries()
    [received] = answering.posts()
    log = wh.site.app.get(f"/admin/webhooks/{hook['id']}/deliveries")
    assert f'href="http://localhost/admin/webhooks/{hook["id"]}/deliveries/{delivery["id"]}"' in log.text
    res = assert_admin_page(delivery_page(wh, hook["id"], delivery["id"]), 200, "Request")
    text = res.text
    assert f'<span class="url" id="request-url">{answering.url("/in")}</span>' in text
    # The headers that were sent, the signature among them, and the exact body (escaped).
    for name in ("Content-Type", "X-EVT-Signature", "X-EVT-Delivery", "X-EVT-Timestamp", "X-EVT-Topic"):
        assert f"<th scope=\"row\">{name}</th><td><code>{received.headers[name]}</code>" in text
    body = re.search(r'<pre class="body" id="request-body">([^<]*)</pre>', text).group(1)
    assert body.replace("&lt;", "<").replace("&gt;", ">").replace("&#34;", '"').replace("&amp;", "&") \
        == received.body.decode()
    assert json.loads(received.body)["data"]["id"] == event["id"]
    assert "<b>night</b>" not in text  # the payload is text on the page, never HTML
    assert '<strong id="response-code">200</strong>' in text
    assert '<pre class="body" id="response-body">Merci, reçu.</pre>' in text
    assert 'id="response-truncated"' not in text
    assert 'id="again-form"' in text


@pytest.mark.parametrize("how, size, truncated", [
    ("length", 4096, False), ("length", 4097, True), ("length", 200_000, True),
    ("chunked", 300, False), ("chunked", 10_000, True), ("gzip", 9_000, True), ("gzip", 100, False)])
def test_the_response_body_kept_is_at_most_4_kib_and_says_when_it_was_cut(make_site, answering, how, size,
                                                                            truncated):
    wh, page = logged_in(make_site)
    hook = wh.webhook("event.created", answering.url("/in"))
    answer = (b"0123456789abcde\n" * (size // 16 + 1))[:size]
    answering.answer = (200, answer, how)
    wh.event("Gala")
    [delivery] = wh.deliveries()
    assert delivery["status"] == "delivered"
    assert delivery["response_truncated"] is truncated
    assert delivery["response_body"] == answer[:4096].decode()
    text = delivery_page(wh, hook["id"], delivery["id"]).text
    assert ('id="response-truncated"' in text) is truncated
    if truncated:
        assert "truncated: the first 4 KiB are kept" in text


def test_a_failed_answer_keeps_its_body_and_bytes_that_are_not_text_are_replaced(make_site, answering):
    wh, page = logged_in(make_site)
    hook = wh.webhook("event.created", answering.url("/in"))
    answering.answer = (500, b"boom\x00\xff\xfe end", "length")
    wh.event("Gala")
    [delivery] = wh.deliveries()
    assert delivery["status"] == "failed" and delivery["error"] == "HTTP 500"
    assert delivery["response_body"] == "boom\ufffd\ufffd\ufffd end"
    # A character cut in two by the 4 KiB is left out, not shown as a replacement.
    answering.answer = (200, ("x" + "é" * 3000).encode(), "length")
    wh.event("Accents")
    cut = wh.deliveries()[-1]
    assert cut["response_body"] == "x" + "é" * 2047 and cut["response_truncated"] is True
    text = delivery_page(wh, hook["id"], delivery["id"]).text
    assert '<strong id="response-code">500</strong>' in text and "boom" in text
    answering.answer = (204, b"", "length")
    wh.event("Quiet")
    quiet = wh.deliveries()[-1]
    assert quiet["response_body"] == "" and quiet["response_truncated"] is False
    assert 'id="response-body-empty"' in delivery_page(wh, hook["id"], quiet["id"]).text


def test_a_body_that_stops_coming_holds_the_worker_about_a_second(make_site, answering):
    wh, page = logged_in(make_site, **{"events.webhooks.timeout": "10"})
    wh.webhook("event.created", answering.url("/in"))
    answering.answer = (200, b"first part", "stall")
    wh.event("Gala")
    [delivery] = wh.deliveries()
    assert delivery["status"] == "delivered" and delivery["response_code"] == 200
    assert delivery["response_body"] == "first part" and delivery["response_truncated"] is True
    assert delivery["duration_ms"] < 3000, delivery["duration_ms"]


def test_an_unreachable_receiver_shows_the_error_and_no_response(make_site):
    from storeplatform.testing import free_port

    wh, page = logged_in(make_site)
    hook = wh.webhook("event.created", f"http://127.0.0.1:{free_port()}/gone")
    wh.event("Gala")
    [delivery] = wh.deliveries()
    assert delivery["status"] == "failed" and delivery["response_code"] is None
    assert delivery["response_body"] is None
    text = delivery_page(wh, hook["id"], delivery["id"]).text
    assert 'id="response-error"' in text and 'id="response-body"' not in text


def test_deliver_again_sends_the_same_payload_signed_as_a_new_delivery(make_site, receiver):
    from .webhook_fixtures import signed_by

    wh, page = logged_in(make_site)
    hook = wh.webhook("event.created", receiver.url("/again"), secret="again-secret")
    wh.event("Gala")
    [first] = wh.deliveries()
    token = admin_token(page)
    res = wh.site.app.post(f"/admin/webhooks/{hook['id']}/deliveries/{first['id']}/again", {"csrf_token": token},
                           status=303)
    assert res.location == f"http://localhost/admin/webhooks/{hook['id']}/deliveries"
    log = assert_admin_page(res.follow(), 200, "Delivery queued again as ")
    original, again = receiver.posts("/again")
    assert again.body == original.body  # the same bytes: the same payload and envelope timestamp
    assert signed_by(again, "again-secret")
    assert again.headers["X-EVT-Timestamp"] == original.headers["X-EVT-Timestamp"]
    assert again.headers["X-EVT-Delivery"] != original.headers["X-EVT-Delivery"]
    second = wh.deliveries()[-1]
    assert second["redelivery_of"] == first["id"] and second["status"] == "delivered"
    assert second["uuid"] == again.headers["X-EVT-Delivery"] and second["body"] == first["body"]
    assert log_ids(log) == [second["id"], first["id"]]
    assert '<span class="again-mark">again</span>' in log.text
    text = delivery_page(wh, hook["id"], second["id"]).text
    assert f'href="http://localhost/admin/webhooks/{hook["id"]}/deliveries/{first["id"]}">delivery #{first["id"]}' in text
    # The webhook's secret as it is now signs it (a rotated secret: the receiver has the new one).
    wh.put(f"/webhooks/{hook['id']}", {"secret": "rotated"}, status=200)
    wh.site.app.post(f"/admin/webhooks/{hook['id']}/deliveries/{first['id']}/again", {"csrf_token": token},
                     status=303)
    assert signed_by(receiver.posts("/again")[-1], "rotated")


def test_deliver_again_is_refused_when_it_could_not_be_sent(make_site, receiver):
    wh, page = logged_in(make_site)
    hook = wh.webhook("event.created", receiver.url("/x"))
    other = wh.webhook("event.created", receiver.url("/y"))
    wh.event("Gala")
    mine, theirs = wh.deliveries()
    token = admin_token(page)
    again = f"/admin/webhooks/{hook['id']}/deliveries/{mine['id']}/again"
    # Paused: refused with the reason, nothing written or sent.
    wh.put(f"/webhooks/{hook['id']}", {"status": "paused"}, status=200)
    text = delivery_page(wh, hook["id"], mine["id"]).text
    assert 'id="again-form"' not in text and "The webhook is paused: make it active to deliver again." in text
    res = wh.site.app.post(again, {"csrf_token": token}, status=303)
    assert_admin_page(res.follow(), 200, "Not sent again: The webhook is paused")
    assert len(wh.deliveries()) == 2 and len(receiver.posts("/x")) == 1
    wh.put(f"/webhooks/{hook['id']}", {"status": "active"}, status=200)
    # Still pending (the worker has not sent it): refused.
    with wh.site.session() as s:
        s.execute(update(WebhookDelivery).where(WebhookDelivery.id == mine["id"]).values(status="pending"))
    wh.site.app.post(again, {"csrf_token": token}, status=303)
    assert len(wh.deliveries()) == 2
    with wh.site.session() as s:
        s.execute(update(WebhookDelivery).where(WebhookDelivery.id == mine["id"]).values(status="failed"))
    # No token: 403; another webhook's delivery, unknown and huge ids: 404 pages.
    assert_admin_page(wh.site.app.post(again, status=403), 403)
    for path in (f"/{hook['id']}/deliveries/{theirs['id']}", f"/{hook['id']}/deliveries/99999",
                 f"/{hook['id']}/deliveries/99999999999999999999", f"/99999999999999999999/deliveries/{mine['id']}",
                 f"/{hook['id']}/deliveries/abc"):
        assert_admin_page(wh.site.app.get("/admin/webhooks" + path, status=404), 404)
        assert_admin_page(wh.site.app.post("/admin/webhooks" + path + "/again", {"csrf_token": token}, status=404),
                          404)
    assert len(wh.deliveries()) == 2
    # Deleted: its log and delivery pages stay, without the button.
    wh.delete(f"/webhooks/{hook['id']}", status=200)
    text = assert_admin_page(delivery_page(wh, hook["id"], mine["id"]), 200, "Deliveries of deleted webhook").text
    assert 'id="again-form"' not in text and "The webhook was deleted" in text
    res = wh.site.app.post(again, {"csrf_token": token}, status=303)
    assert_admin_page(res.follow(), 200, "Not sent again: The webhook was deleted")
    assert len(wh.deliveries()) == 2


def test_delivery_pages_need_manage_options(make_site, receiver):
    wh, page = logged_in(make_site, role="shop_manager")
    hook = wh.webhook("event.created", receiver.url("/x"))
    wh.event("Gala")
    [mine] = wh.deliveries()
    assert_admin_page(delivery_page(wh, hook["id"], mine["id"], status=403), 403)
    assert_admin_page(wh.site.app.post(f"/admin/webhooks/{hook['id']}/deliveries/{mine['id']}/again",
                                       {"csrf_token": admin_token(page)}, status=403), 403)
    assert len(wh.deliveries()) == 1
