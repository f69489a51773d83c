"""The webhooks pages of the admin (WebTest): list, create, edit, pause/resume, delete, the test
button and the delivery log, through the code of the REST routes; hostile forms."""
import re

import pytest

from storeplatform.testing import admin_login, admin_token, assert_admin_page

from .webhook_fixtures import hooks_site
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
    """(time, topic, delivery id, status, response, duration, error) of each row of the log."""
    cells = r'<td data-label="{}"[^>]*>(?:<code[^>]*>|<span class="badge \w+">)?([^<]*)(?:</code>|</span>)?</td>\s*'
    names = ("Time", "Topic", "Delivery ID", "Status", "Response", "Duration", "Error")
    return re.findall("".join(cells.format(name) for name in names), page.text)


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
    assert log.text.count('<code class="uuid">') == 100
    wh.delete(f"/webhooks/{hook['id']}", status=200)
    log = assert_admin_page(wh.site.app.get(f"/admin/webhooks/{hook['id']}/deliveries"), 200,
                            f"Deliveries of deleted webhook {hook['id']}")
    assert log.text.count('<code class="uuid">') == 100


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
