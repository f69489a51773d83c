"""The admin's check-in desk through its pages and JSON endpoints (WebTest): the event choice, every
result of a scan (the same check-in as POST /checkin: same actions, same webhook outbox), live
stats and recent check-ins, the capability gate, and hostile input (form token, ids, code
text, bytes that are not UTF-8): never a 500, nothing changed by a refused request."""
import re
from datetime import date, datetime, timedelta, timezone

import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import select

from storeplatform.testing import statements_run
from storeplatform_events import desk

from admin.helpers import assert_page, login, token
from storeplatform_events.webhooks.models import WebhookDelivery

from .conftest import Evt
from .webhook_fixtures import hooks_site

HUGE = "9" * 30


class Door:
    """A site with events and a logged-in shop manager at the desk."""

    def __init__(self, evt):
        self.evt = evt
        self.app = evt.app
        today = date.today()
        self.event = evt.event("Gala", start_date=today.isoformat(), end_date=today.isoformat())
        self.other = evt.event("Other night", start_date=(today + timedelta(days=3)).isoformat(),
                               end_date=(today + timedelta(days=3)).isoformat())
        self.tickets = evt.tickets(self.event["id"], 3, billing={"first_name": "Anna", "last_name": "Nowak",
                                                                 "email": "anna@example.com"})
        self.code = self.tickets[0]["ticket_code"]
        login(evt.site, "door", "shop_manager")
        self.page = self.app.get(self.desk_url())
        self.token = token(self.page)

    def desk_url(self, event_id=None, tail=""):
        return f"/admin/checkin/{self.event['id'] if event_id is None else event_id}{tail}"

    def scan(self, code, event_id=None, status=200, **extra):
        body = {"code": code, "csrf_token": self.token, **extra}
        return self.app.post(self.desk_url(event_id, "/scan"), body, status=status)

    def live(self, event_id=None, status=200):
        return self.app.get(self.desk_url(event_id, "/live"), status=status)

    def attendee(self, ticket):
        return self.evt.get(f"/attendees/{ticket['id']}", headers=self.evt.admin).json


@pytest.fixture
def door(make_site):
    return Door(Evt(make_site(**{"storeplatform.plugins": "events"})))


def test_the_desk_page_shows_the_event_the_stats_and_the_scripts(door):
    page = assert_page(door.page, 200, "Gala")
    assert 'id="desk-result"' in page.text and 'id="desk-code"' in page.text and 'id="desk-camera"' in page.text
    assert '<dd id="desk-stat-pending">3</dd>' in page.text and "No check-ins yet." in page.text
    # The scripts are the app's own files: our desk script and the vendored decoder.
    for path in ("/admin/static/events/desk.js", "/admin/static/events/vendor/jsQR-1.4.0.js",
                 "/admin/static/events/desk.css"):
        assert f'src="http://localhost{path}"' in page.text or f'href="http://localhost{path}"' in page.text
        assert door.app.get(path).status_int == 200
    decoder = door.app.get("/admin/static/events/vendor/jsQR-1.4.0.js")
    assert decoder.content_type in ("application/javascript", "text/javascript") and len(decoder.body) == 256885


def chooser_ids(page, part):
    """The event ids listed under ``part`` (today, upcoming, past, found), in their order."""
    match = re.search(rf'<ul class="desk-events" id="desk-{part}-list">(.*?)</ul>', page.text, re.S)
    return [int(n) for n in re.findall(r'data-id="(\d+)"', match.group(1))] if match else []


def test_the_event_choice_has_today_upcoming_and_past_and_leaves_trashed_ones_out(door):
    evt = door.evt
    past = evt.event("Last year", start_date="2020-05-01", end_date="2020-05-01")
    gone = evt.event("Trashed", start_date=date.today().isoformat(), end_date=date.today().isoformat())
    evt.delete(f"/events/{gone['id']}", status=200)
    page = assert_page(door.app.get("/admin/checkin"), 200, "Choose the event")
    text = page.text
    assert text.index("Gala") < text.index("Other night") < text.index("Last year")
    assert chooser_ids(page, "today") == [door.event["id"]]
    assert chooser_ids(page, "upcoming") == [door.other["id"]]
    assert chooser_ids(page, "past") == [past["id"]]
    assert "Trashed" not in text
    assert f'href="http://localhost/admin/checkin/{past["id"]}"' in text
    assert_page(door.app.get(f"/admin/checkin/{gone['id']}", status=404), 404)


@pytest.mark.parametrize("zone, local_today", [("Europe/Vienna", "2026-03-11"), ("UTC", "2026-03-10"),
                                               ("America/Los_Angeles", "2026-03-10")])
def test_the_choice_splits_events_around_local_midnight_in_the_site_time_zone(door, monkeypatch, zone, local_today):
    """At 23:30 UTC it is already tomorrow in Vienna (00:30) and still today in Los Angeles."""
    instant = datetime(2026, 3, 10, 23, 30, tzinfo=timezone.utc)
    monkeypatch.setattr(desk, "local_now", lambda tz: instant.astimezone(tz))
    evt = door.evt
    evt.site.set_option("site.timezone", zone)
    festival = evt.event("Festival", start_date="2026-03-01", end_date="2026-03-20")
    late = evt.event("Late show", start_date="2026-03-10", start_time="22:00", end_date="2026-03-10", end_time="23:59")
    overnight = evt.event("Over midnight", start_date="2026-03-10", start_time="22:00", end_date="2026-03-11",
                          end_time="02:00")
    breakfast = evt.event("Breakfast", start_date="2026-03-11", start_time="00:00", end_date="2026-03-11")
    later = evt.event("Next day", start_date="2026-03-12", end_date="2026-03-12")
    old = evt.event("Old", start_date="2025-01-01", end_date="2025-01-01")
    page = assert_page(door.app.get("/admin/checkin"), 200, f"today is {local_today}")
    mine = {e["id"] for e in (festival, late, overnight, breakfast, later, old)}

    def part(name):
        return [n for n in chooser_ids(page, name) if n in mine]

    if local_today == "2026-03-11":
        assert part("today") == [festival["id"], overnight["id"], breakfast["id"]]
        assert part("upcoming") == [later["id"]]
        assert part("past") == [late["id"], old["id"]]
    else:
        assert part("today") == [festival["id"], late["id"], overnight["id"]]
        assert part("upcoming") == [breakfast["id"], later["id"]]
        assert part("past") == [old["id"]]
    # A running event says since when and until when.
    assert "Since 2026-03-01 · until 2026-03-20" in page.text


def test_the_choice_shows_the_next_and_last_few_and_finds_the_others(door, monkeypatch):
    monkeypatch.setattr(desk, "UPCOMING_SHOWN", 3)
    monkeypatch.setattr(desk, "PAST_SHOWN", 2)
    evt = door.evt
    today = date.today()
    coming = [evt.event(f"Coming {n}", start_date=(today + timedelta(days=10 + n)).isoformat(),
                        end_date=(today + timedelta(days=10 + n)).isoformat()) for n in range(4)]
    gone = [evt.event(f"Gone {n}", start_date=(today - timedelta(days=10 + n)).isoformat(),
                      end_date=(today - timedelta(days=10 + n)).isoformat()) for n in range(3)]
    with statements_run(evt.site.engine) as seen:
        page = assert_page(door.app.get("/admin/checkin"), 200, "search for later ones")
    # The other night (in three days) first, then the soonest; the latest past first.
    assert chooser_ids(page, "upcoming") == [door.other["id"], coming[0]["id"], coming[1]["id"]]
    assert chooser_ids(page, "past") == [gone[0]["id"], gone[1]["id"]]
    assert "search for earlier ones" in page.text
    event_reads = [q for q in seen if "evt_events" in q]
    assert len(event_reads) == 3 and all("LIMIT" in q for q in event_reads)
    # The search: by title, any date, latest first; its own part of the page.
    found = assert_page(door.app.get("/admin/checkin", {"search": "coming"}), 200, "Events named like")
    assert chooser_ids(found, "found") == [c["id"] for c in reversed(coming)]
    assert chooser_ids(found, "today") == [] and 'value="coming"' in found.text
    assert chooser_ids(door.app.get("/admin/checkin", {"search": "Gone 2"}), "found") == [gone[2]["id"]]
    nothing = assert_page(door.app.get("/admin/checkin", {"search": "100%_"}), 200, "No event has that in its title.")
    assert chooser_ids(nothing, "found") == []
    assert_page(door.app.get("/admin/checkin?search=%ff", status=400), 400)
    assert_page(door.app.get("/admin/checkin?search=a%00", status=400), 400)
    long = assert_page(door.app.get("/admin/checkin", {"search": "x" * 5000}), 200, "No event has that")
    assert "x" * 201 not in long.text


def test_a_scan_checks_the_ticket_in_as_rest_does(door):
    res = door.scan(door.code).json
    assert res["result"] == "checked_in" and res["title"] == "Checked in"
    assert res["attendee"] == {"name": "Anna Nowak", "ticket_code": door.code, "status": "checked_in",
                               "event_id": door.event["id"], "event_name": "Gala"}
    stored = door.attendee(door.tickets[0])
    assert stored["status"] == "checked_in" and stored["checked_in_at"] == res["checked_in_at"]
    again = door.scan(door.code).json
    assert again["result"] == "already_in" and again["title"] == "Already checked in"
    assert again["attendee"]["name"] == "Anna Nowak" and again["checked_in_at"] == res["checked_in_at"]


def test_a_code_typed_in_small_letters_or_with_blanks_is_the_same_ticket(door):
    res = door.scan(f"  {door.code.lower()} \n").json
    assert res["result"] == "checked_in" and res["attendee"]["ticket_code"] == door.code
    assert door.attendee(door.tickets[0])["status"] == "checked_in"


METRICS_TOKEN = "a-metrics-token-of-32-characters"


def checkins_counted(door):
    """{result: count} of the site's check-in counter, as /metrics serves it."""
    res = door.app.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, status=200)
    return {sample.labels["result"]: sample.value for family in text_string_to_metric_families(res.text)
            for sample in family.samples if sample.name == "storeplatform_events_checkins_total"}


def counted_since(door, before):
    after = checkins_counted(door)
    return {result: after[result] - before.get(result, 0) for result in after if after[result] != before.get(result, 0)}


def test_one_scan_is_one_check_in_in_the_metrics_whatever_the_letters(make_site):
    """A code typed in small letters was tried as typed, counted ``invalid``, then tried again in
    capitals: every such scan left a phantom refusal beside its check-in."""
    door = Door(Evt(make_site(**{"storeplatform.plugins": "events", "storeplatform.metrics": "true",
                                 "storeplatform.metrics_token": METRICS_TOKEN})))
    before = checkins_counted(door)
    assert door.scan(door.code.lower()).json["result"] == "checked_in"
    assert counted_since(door, before) == {"checked_in": 1}

    # A mistyped code (a real refusal) corrected and scanned again: one of each.
    before = checkins_counted(door)
    second = door.tickets[1]["ticket_code"]
    assert door.scan(second[:-1].lower()).json["result"] == "unknown"
    assert door.scan(f" {second.lower()} ").json["result"] == "checked_in"
    assert counted_since(door, before) == {"invalid": 1, "checked_in": 1}

    # Scanned again: already in, not a second check-in; REST counts as the desk does.
    before = checkins_counted(door)
    assert door.scan(second).json["result"] == "already_in"
    door.evt.post("/checkin", {"ticket_code": door.tickets[2]["ticket_code"].lower()}, status=200)
    assert counted_since(door, before) == {"already_in": 1, "checked_in": 1}
    stats = door.live().json["stats"]
    assert stats["checked_in"] == 3 and stats["pending"] == 0


def test_refused_tickets_say_why_and_stay_as_they_were(door):
    evt = door.evt
    cancelled = door.tickets[1]
    evt.put(f"/attendees/{cancelled['id']}", {"status": "cancelled"}, status=200)
    res = door.scan(cancelled["ticket_code"]).json
    assert res["result"] == "cancelled" and res["title"] == "Cancelled ticket"
    assert res["attendee"]["name"] == "Anna Nowak" and res["attendee"]["status"] == "cancelled"
    assert door.attendee(cancelled)["status"] == "cancelled"

    res = door.scan(door.code, event_id=door.other["id"]).json
    assert res["result"] == "wrong_event" and res["title"] == "Wrong event"
    assert res["attendee"]["event_name"] == "Gala" and res["attendee"]["name"] == "Anna Nowak"
    assert door.attendee(door.tickets[0])["status"] == "active"

    res = door.scan("NOSUCHTICKET").json
    assert res == {"result": "unknown", "title": "Unknown ticket", "message": "Invalid ticket code.",
                   "attendee": None, "checked_in_at": None}


def test_live_stats_and_recent_check_ins(door):
    first = door.live().json
    assert first["event_id"] == door.event["id"] and first["event_name"] == "Gala"
    assert first["stats"] == {"total": 3, "pending": 3, "checked_in": 0, "checked_out": 0, "cancelled": 0,
                              "percentage": 0.0}
    assert first["recent"] == []
    door.scan(door.tickets[0]["ticket_code"])
    door.scan(door.tickets[2]["ticket_code"])
    live = door.live().json
    assert live["stats"] == {"total": 3, "pending": 1, "checked_in": 2, "checked_out": 0, "cancelled": 0,
                             "percentage": 66.7}
    assert [r["ticket_code"] for r in live["recent"]] == [door.tickets[2]["ticket_code"],
                                                          door.tickets[0]["ticket_code"]]
    # The same numbers as the REST route.
    rest = door.evt.get(f"/checkin/stats/{door.event['id']}", headers=door.evt.admin).json
    assert {k: rest[k] for k in live["stats"]} == live["stats"]
    page = door.app.get(door.desk_url())
    assert '<dd id="desk-stat-in">2</dd>' in page.text and "Anna Nowak" in page.text


def test_the_desk_works_while_the_events_rest_api_is_off(door):
    door.evt.site.set_option("events.rest_api_enabled", False)
    assert door.scan(door.code).json["result"] == "checked_in"
    assert door.live().json["stats"]["checked_in"] == 1


def test_the_alternate_variant_site_has_the_same_desk(make_site):
    door = Door(Evt(make_site(**{"storeplatform.plugins": "events", "events.api_variant": "alternate"})))
    assert door.scan(door.code).json["result"] == "checked_in"


class Veto:
    from storeplatform.api import hookimpl

    @hookimpl
    def evt_attendee_checked_in(self, attendee_id, attendee):
        raise RuntimeError("veto")


def test_a_failing_action_is_a_failed_result_and_the_ticket_stays_active(make_site):
    door = Door(hooks_site(make_site, plugins=[Veto()]))
    door.evt.webhook("attendee.checked_in", "http://127.0.0.1:9/hook")
    res = door.scan(door.code).json
    assert res["result"] == "failed" and res["title"] == "Check-in failed" and res["attendee"] is None
    assert door.attendee(door.tickets[0])["status"] == "active"
    with door.evt.site.session() as s:
        assert s.execute(select(WebhookDelivery)).first() is None


def test_a_checkin_at_the_desk_writes_the_webhook_delivery_as_rest_does(make_site, evt_log):
    from .webhook_fixtures import Hooks

    hooks = Hooks(make_site(**{"storeplatform.plugins": "events thirdparty",
                               "events.webhooks.allow_private_targets": "true"}))
    door = Door(hooks)
    hook = hooks.webhook("attendee.checked_in", "http://127.0.0.1:9/hook")
    door.scan(door.code)
    assert evt_log()[-1] == f"evt_attendee_checked_in {door.tickets[0]['id']} {door.code}"
    deliveries = [d for d in hooks.deliveries() if d["topic"] == "attendee.checked_in"]
    assert len(deliveries) == 1 and deliveries[0]["webhook_id"] == hook["id"]


def test_pages_need_a_login_and_manage_shop(make_site):
    evt = Evt(make_site(**{"storeplatform.plugins": "events"}))
    event = evt.event("Gala")
    res = evt.app.get(f"/admin/checkin/{event['id']}", status=303)
    assert res.location == f"http://localhost/admin/login?next=/admin/checkin/{event['id']}"
    assert evt.app.post(f"/admin/checkin/{event['id']}/scan", {"code": "X"}, status=303)
    login(evt.site, "writer", "editor")
    assert_page(evt.app.get("/admin/checkin", status=403), 403, "may not use this page")
    assert_page(evt.app.get(f"/admin/checkin/{event['id']}/live", status=403), 403)
    evt.app.reset()
    login(evt.site, "door", "shop_manager")
    assert "Check-in desk" in evt.app.get("/admin/").text


def test_a_scan_needs_the_form_token(door):
    for body in ({"code": door.code}, {"code": door.code, "csrf_token": "0" * 20},
                 {"code": door.code, "csrf_token": ""}):
        assert_page(door.app.post(door.desk_url(tail="/scan"), body, status=403), 403, "did not come from this site")
    # The header the desk's script sends is as good as the field.
    assert door.attendee(door.tickets[0])["status"] == "active"
    res = door.app.post(door.desk_url(tail="/scan"), {"code": door.code}, headers={"X-CSRF-Token": door.token})
    assert res.json["result"] == "checked_in"


@pytest.mark.parametrize("code, message", [
    ("", "Enter a ticket code."),
    ("   ", "Enter a ticket code."),
    ("A" * 101, "A ticket code has at most 100 characters."),
    ("ABC\tDEF", "A ticket code has no control characters."),
])
def test_bad_codes_are_refused_with_a_clear_message(door, code, message):
    res = door.scan(code, status=400)
    assert res.json == {"message": message}
    assert door.live().json["stats"]["checked_in"] == 0


def test_a_missing_code_field_is_refused(door):
    res = door.app.post(door.desk_url(tail="/scan"), {"csrf_token": door.token}, status=400)
    assert res.json == {"message": "Enter a ticket code."}


def test_nul_and_bytes_that_are_not_utf8_are_a_400_page(door):
    res = door.app.post(door.desk_url(tail="/scan"), {"code": "AB\x00C", "csrf_token": door.token}, status=400)
    assert_page(res, 400, "NUL")
    raw = b"code=%FF%FE&csrf_token=" + door.token.encode()
    res = door.app.post(door.desk_url(tail="/scan"), raw, content_type="application/x-www-form-urlencoded",
                        status=400)
    assert_page(res, 400, "UTF-8")
    assert door.live().json["stats"]["checked_in"] == 0


@pytest.mark.parametrize("event_id", ["0", "999999", HUGE])
def test_unknown_and_huge_event_ids(door, event_id):
    assert_page(door.app.get(f"/admin/checkin/{event_id}", status=404), 404)
    assert door.live(event_id, status=404).json == {"message": "There is no such event."}
    assert door.scan(door.code, event_id=event_id, status=404).json == {"message": "There is no such event."}
    assert door.attendee(door.tickets[0])["status"] == "active"


def test_other_paths_and_methods_are_admin_pages_not_500(door):
    assert_page(door.app.get("/admin/checkin/abc", status=404), 404)
    assert_page(door.app.get(door.desk_url(tail="/scan"), status=405), 405, "does not take that kind of request")
    assert_page(door.app.put(door.desk_url(tail="/scan"), {"code": door.code}, status=405), 405)
    assert door.attendee(door.tickets[0])["status"] == "active"
