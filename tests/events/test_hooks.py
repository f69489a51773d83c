"""Extension points (hookspecs, filters, actions once per change, third-party route), the API
switch, demo data and the command line."""
import re
from pathlib import Path

import pytest

from storeplatform.api import hookimpl
from storeplatform.testing import assert_error, run_cli

from .conftest import Evt

ROOT = Path(__file__).resolve().parents[2]
ACTIONS = {
    "evt_rest_event_created": ["post_id", "request"], "evt_rest_event_updated": ["post_id", "request"],
    "evt_rest_event_deleted": ["post_id", "force"], "evt_rest_venue_created": ["post_id", "request"],
    "evt_rest_venue_updated": ["post_id", "request"], "evt_rest_venue_deleted": ["post_id", "force"],
    "evt_rest_organizer_created": ["post_id", "request"], "evt_rest_organizer_updated": ["post_id", "request"],
    "evt_rest_organizer_deleted": ["post_id", "force"], "evt_rest_attendee_updated": ["attendee_id", "request"],
    "evt_attendee_checked_in": ["attendee_id", "attendee"], "evt_attendee_checked_out": ["attendee_id", "attendee"],
    "evt_rest_prepare_event": ["data", "post", "request"], "evt_rest_prepare_venue": ["data", "post", "request"],
    "evt_rest_prepare_organizer": ["data", "post", "request"],
    "evt_rest_prepare_attendee": ["data", "attendee", "request"],
}


def test_hookspecs_have_the_spec_names_and_arguments(evt, site):
    hooks = evt.site.hooks
    for name, args in ACTIONS.items():
        assert list(getattr(hooks, name).spec.argnames) == args, name
    assert not hasattr(site.hooks, "evt_rest_event_created")


def test_every_evt_hook_is_documented(evt):
    text = (ROOT / "docs" / "events-hooks.md").read_text()
    specs = [n for n in dir(evt.site.hooks) if n.startswith("evt_")]
    assert set(ACTIONS) <= set(specs)
    assert [n for n in specs if f"`{n}`" not in text] == []


def test_third_party_plugin_loads_without_events(make_site):
    site = make_site(**{"storeplatform.plugins": "thirdparty"})
    assert site.app.get("/api/store/v1/thirdparty/ping").json == {"pong": True}
    assert "events/v1" not in site.app.get("/api/").json["namespaces"]


def test_third_party_route_and_filter(evt3):
    index = evt3.get("/").json
    assert index["routes"]["/events/v1/speakers"]["methods"] == ["GET"]
    assert evt3.get("/speakers").json[0]["name"] == "Ada Lovelace"
    venue = evt3.venue()
    created = evt3.event("Filtered", venue_id=venue["id"])
    assert created["thirdparty_badge"] == f"badge-{created['id']}"
    assert evt3.get(f"/events/{created['id']}").json["thirdparty_badge"] == f"badge-{created['id']}"
    assert evt3.get("/events?_embed=1").json[0]["thirdparty_badge"] == f"badge-{created['id']}"
    assert evt3.put(f"/events/{created['id']}", {"title": "x"}).json["thirdparty_badge"]
    assert evt3.delete(f"/events/{created['id']}").json["previous"]["thirdparty_badge"]


def test_speakers_route_is_absent_without_the_third_party_plugin(evt):
    assert_error(evt.get("/speakers", status=404), 404, "rest_no_route")
    routes = evt.get("/").json["routes"]
    assert "/events/v1/speakers" not in routes
    assert {"/events/v1/events", "/events/v1/events/{id}", "/events/v1/venues", "/events/v1/venues/{id}",
            "/events/v1/organizers", "/events/v1/organizers/{id}", "/events/v1/attendees", "/events/v1/attendees/{id}",
            "/events/v1/attendees/code/{ticket_code}", "/events/v1/checkin", "/events/v1/checkin/checkout",
            "/events/v1/checkin/validate", "/events/v1/checkin/stats/{event_id}", "/events/v1/checkin/recent/{event_id}",
            "/events/v1/calendar/month", "/events/v1/calendar/range", "/events/v1/calendar/upcoming",
            "/events/v1/calendar/categories", "/events/v1/tickets/{ticket_code}/qr"} <= set(routes)
    events = routes["/events/v1/events"]["endpoints"]
    get = next(e for e in events if e["methods"] == ["GET"])
    assert get["args"]["per_page"]["maximum"] == 100 and get["args"]["orderby"]["enum"] == [
        "date", "title", "modified", "id", "meta_value"]
    post = next(e for e in events if e["methods"] == ["POST"])
    assert post["args"]["title"]["required"] is True and post["permission"] == "edit_posts"


def test_actions_fire_once_per_rest_change(evt3, evt_log):
    kinds = {"event": ("events", {"title": "E"}), "venue": ("venues", {"name": "V"}),
             "organizer": ("organizers", {"name": "O"})}
    expected = []
    for kind, (path, body) in kinds.items():
        item = evt3.post(f"/{path}", body, status=201).json
        evt3.put(f"/{path}/{item['id']}", {"phone": "1"} if kind != "event" else {"capacity": 3}, status=200)
        evt3.delete(f"/{path}/{item['id']}", status=200)
        evt3.delete(f"/{path}/{item['id']}", status=200)  # already in the trash: no change, no action
        evt3.delete(f"/{path}/{item['id']}?force=true", status=200)
        expected += [f"evt_rest_{kind}_created {item['id']}", f"evt_rest_{kind}_updated {item['id']}",
                     f"evt_rest_{kind}_deleted {item['id']} force=False",
                     f"evt_rest_{kind}_deleted {item['id']} force=True"]
    # Refused changes fire nothing.
    evt3.post("/events", {"title": "x", "venue_id": 999}, status=400)
    evt3.post("/events", {"title": "x"}, headers=evt3.site.headers_for("subscriber"), status=403)
    event = evt3.event("Tickets")
    expected.append(f"evt_rest_event_created {event['id']}")
    ticket = evt3.tickets(event["id"])[0]
    evt3.put(f"/attendees/{ticket['id']}", {"first_name": "Z"}, status=200)
    code = ticket["ticket_code"]
    evt3.post("/checkin", {"ticket_code": code}, status=200)
    evt3.post("/checkin", {"ticket_code": code}, status=200)  # already in: no action
    evt3.post("/checkin/validate", {"ticket_code": code}, status=200)
    evt3.post("/checkin/checkout", {"ticket_code": code}, status=200)
    evt3.post("/checkin/checkout", {"ticket_code": code}, status=400)
    expected += [f"evt_rest_attendee_updated {ticket['id']}", f"evt_attendee_checked_in {ticket['id']} {code}",
                 f"evt_attendee_checked_out {ticket['id']} {code}"]
    assert evt_log() == expected


def test_api_switch(evt):
    event = evt.event()
    evt.site.set_option("events.rest_api_enabled", False)
    for path in ("/events", f"/events/{event['id']}", "/calendar/month", "/attendees", "/nosuch", "/",
                 "/tickets/X/qr"):
        assert_error(evt.get(path, status=403), 403, "evt_api_disabled")
        assert_error(evt.get(path, headers=evt.admin, status=403), 403, "evt_api_disabled")
    assert_error(evt.post("/events", {"title": "x"}, status=403), 403, "evt_api_disabled")
    assert_error(evt.post("/checkin", {"ticket_code": "x"}, status=403), 403, "evt_api_disabled")
    # Other namespaces are not affected.
    evt.app.get("/api/store/v1/products", headers=evt.admin, status=200)
    evt.site.set_option("events.rest_api_enabled", True)
    evt.get("/events", status=200)


def test_options_in_the_advanced_section(evt):
    options = {o["id"]: o for o in evt.app.get("/api/store/v1/settings/advanced", headers=evt.admin).json}
    assert options["events.rest_api_enabled"]["value"] is True and options["events.rest_api_enabled"]["type"] == "bool"
    assert options["events.webhooks_enabled"]["type"] == "bool"
    res = evt.app.put_json("/api/store/v1/settings/advanced", {"events.webhooks_enabled": False}, headers=evt.admin,
                           status=200).json
    assert {o["id"]: o["value"] for o in res}["events.webhooks_enabled"] is False
    evt.get("/events", status=200)  # stored, no effect
    evt.app.put_json("/api/store/v1/settings/advanced", {"events.rest_api_enabled": False}, headers=evt.admin,
                     status=200)
    assert_error(evt.get("/events", status=403), 403, "evt_api_disabled")


# --- command line and demo data ------------------------------------------------------------------

@pytest.fixture
def cli(evt3, database, tmp_path, evt_log):
    ini = tmp_path / "site.ini"
    ini.write_text(f"""[app:main]
use = egg:storeplatform
sqlalchemy.url = {database.url}
huey.url = memory://
storeplatform.plugins = events thirdparty
storeplatform.secret = {database.secret}
""")

    def run(*args, ok=True):
        proc = run_cli("-c", str(ini), *args)  # in-process: cli.main, its output captured
        if ok:
            assert proc.returncode == 0, proc.stderr
        return proc

    run.evt = evt3
    return run


def test_cli_checkin_and_checkout_fire_once(cli, evt_log):
    evt = cli.evt
    event = evt.event("Door")
    other = evt.event("Other")
    ticket = evt.tickets(event["id"])[0]
    code = ticket["ticket_code"]
    evt_log.path.write_text("")
    assert cli("events", "checkin", code).stdout.startswith("checked in: Anna Nowak")
    assert cli("events", "checkin", code).stdout.startswith("already checked in")
    assert cli("events", "checkout", code).stdout.startswith("checked out")
    assert evt_log() == [f"evt_attendee_checked_in {ticket['id']} {code}",
                         f"evt_attendee_checked_out {ticket['id']} {code}"]
    assert evt.get(f"/attendees/{ticket['id']}", headers=evt.admin).json["status"] == "checked_out"
    for args, code_name in ((("checkout", code), "evt_rest_not_checked_in"), (("checkin", "NOSUCH"),
                            "evt_rest_invalid_ticket"), (("checkin", code, "--event-id", str(other["id"])),
                                                         "evt_rest_wrong_event")):
        proc = cli("events", *args, ok=False)
        assert proc.returncode == 1 and proc.stderr.strip().count("\n") == 0 and code_name in proc.stderr


def test_demo_data_fires_each_action_once_and_is_idempotent(cli, evt_log):
    from storeplatform_events import demo

    evt = cli.evt
    cli("demo")
    lines = evt_log()
    names = [line.split()[0] for line in lines]
    sold = {}
    for planned in demo.ticket_orders():
        sold[planned.event] = sold.get(planned.event, 0) + planned.quantity
    came = sum(round(n * (demo.CAME_TODAY if demo.EVENTS[i][1] == 0 else demo.CAME_PAST))
               for i, n in sold.items() if demo.EVENTS[i][1] <= 0)
    assert names.count("evt_rest_venue_created") == 3 and names.count("evt_rest_organizer_created") == 2
    assert names.count("evt_rest_event_created") == 12 and names.count("evt_attendee_checked_in") == came > 10
    assert len(set(lines)) == len(lines)
    events = evt.get("/events", params={"per_page": 100})
    assert events.headers["X-Total"] == "12"
    # Around the day of the load: one today and nine to come, two past.
    upcoming = evt.get("/calendar/upcoming", params={"limit": 50}).json
    assert len(upcoming) == 10
    assert evt.get("/calendar/categories").json["total"] == 4
    attendees = evt.get("/attendees", headers=evt.admin)
    assert int(attendees.headers["X-Total"]) == sum(sold.values())
    assert len(evt.get("/venues").json) == 3 and len(evt.get("/organizers").json) == 2
    cli("demo")
    assert evt_log() == lines
    assert evt.get("/events").headers["X-Total"] == "12"


def test_ticket_codes_are_not_guessable():
    from storeplatform_events.tickets import new_ticket_code

    codes = {new_ticket_code() for _ in range(2000)}
    assert len(codes) == 2000 and all(re.fullmatch(r"[A-HJ-NP-Z2-9]{16}", c) for c in codes)


class Veto:
    """A plugin whose actions fail: the change they belong to must not happen."""

    @hookimpl
    def evt_rest_event_deleted(self, post_id, force):
        raise RuntimeError("veto")

    @hookimpl
    def evt_attendee_checked_in(self, attendee_id, attendee):
        raise RuntimeError("veto")


@pytest.fixture
def vetoed(make_site):
    return Evt(make_site(plugins=[Veto()], **{"storeplatform.plugins": "events"}))


def test_failed_delete_is_evt_rest_cannot_delete_and_deletes_nothing(vetoed):
    evt = vetoed
    event = evt.event("Keep")
    for query in ("", "?force=true"):
        assert_error(evt.delete(f"/events/{event['id']}{query}", status=500), 500, "evt_rest_cannot_delete")
        assert evt.get(f"/events/{event['id']}").json["status"] == "publish"


def test_failed_checkin_is_evt_rest_checkin_failed_and_leaves_the_ticket(vetoed):
    evt = vetoed
    ticket = evt.tickets(evt.event()["id"])[0]
    assert_error(evt.post("/checkin", {"ticket_code": ticket["ticket_code"]}, status=500), 500,
                 "evt_rest_checkin_failed")
    stored = evt.get(f"/attendees/{ticket['id']}", headers=evt.admin).json
    assert stored["status"] == "active" and stored["checked_in_at"] is None


def test_cli_creates_categories_the_calendar_serves(cli):
    evt = cli.evt
    first = cli("events", "category", "create", "Jazz & Blues", "--color", "#AA00FF",
                "--description", "Late sets").stdout.split()
    assert first[1] == "jazz-blues"
    categories = {c["id"]: c for c in evt.get("/calendar/categories").json["categories"]}
    assert categories[int(first[0])] == {"id": int(first[0]), "name": "Jazz & Blues", "slug": "jazz-blues",
                                         "description": "Late sets", "count": 0, "color": "#aa00ff"}
    event = evt.event("Night", categories=[int(first[0])])
    assert event["categories"] == [int(first[0])]
    for args, message in ((("Jazz Blues",), "slug 'jazz-blues' exists"), (("X", "--color", "red"), "#RRGGBB"),
                          (("  ",), "1 to 200 characters")):
        proc = cli("events", "category", "create", *args, ok=False)
        assert proc.returncode == 1 and message in proc.stderr and proc.stderr.strip().count("\n") == 0


class Recorder:
    """Keeps the attendee each check-in and check-out action receives."""

    def __init__(self):
        self.seen = []

    @hookimpl
    def evt_attendee_checked_in(self, attendee_id, attendee):
        self.seen.append(attendee)

    @hookimpl
    def evt_attendee_checked_out(self, attendee_id, attendee):
        self.seen.append(attendee)


def test_checked_in_action_gets_the_attendee_as_the_session_reads_it(make_site):
    """The check-in's attendee is made from the row its UPDATE returned (on the driver); the
    check-out's from the row its UPDATE returned too: an action sees the same fields and types."""
    from datetime import datetime

    recorder = Recorder()
    evt = Evt(make_site(plugins=[recorder], **{"storeplatform.plugins": "events"}))
    ticket = evt.tickets(evt.event()["id"])[0]
    evt.post("/checkin", {"ticket_code": ticket["ticket_code"]}, status=200)
    evt.post("/checkin/checkout", {"ticket_code": ticket["ticket_code"]}, status=200)
    checked_in, checked_out = recorder.seen
    assert list(checked_in) == list(checked_out) and "cancelled_by_order" not in checked_in
    for name, value in checked_out.items():
        assert type(checked_in[name]) is type(value) or name == "checked_out_at", name
    assert isinstance(checked_in["checked_in_at"], datetime) and checked_in["checked_in_at"].tzinfo is not None
    assert checked_in["checked_in_at"] == checked_out["checked_in_at"] and checked_in["checked_out_at"] is None
    assert (checked_in["status"], checked_out["status"]) == ("checked_in", "checked_out")
    assert {k: v for k, v in checked_in.items() if k not in ("status", "checked_out_at", "modified_at")} == \
        {k: v for k, v in checked_out.items() if k not in ("status", "checked_out_at", "modified_at")}


class Badges:
    """A filter of attendee objects: adds a badge made from the attendee record it receives."""

    def __init__(self):
        self.seen = []

    @hookimpl
    def evt_rest_prepare_attendee(self, data, attendee, request):
        self.seen.append(attendee)
        return {**data, "badge": f"{attendee['first_name']}/{attendee['status']}"}


def test_the_attendee_filter_sees_every_attendee_of_a_list_and_each_one_read(make_site):
    badges = Badges()
    evt = Evt(make_site(plugins=[badges], **{"storeplatform.plugins": "events"}))
    event = evt.event()
    tickets = evt.tickets(event["id"], 3)
    evt.post("/checkin", {"ticket_code": tickets[1]["ticket_code"]}, status=200)
    badges.seen.clear()
    listed = sorted(evt.get(f"/attendees?event={event['id']}", headers=evt.admin).json, key=lambda a: a["id"])
    assert [a["badge"] for a in listed] == [f"{t['first_name']}/{s}" for t, s in
                                            zip(tickets, ("active", "checked_in", "active"))]
    assert sorted(a["id"] for a in badges.seen) == [t["id"] for t in tickets]
    assert "cancelled_by_order" not in badges.seen[0]  # internal, never given to plugins
    one = evt.get(f"/attendees/{tickets[1]['id']}", headers=evt.admin).json
    listed_one = next(a for a in badges.seen[:3] if a["id"] == tickets[1]["id"])
    assert one["badge"] == f"{tickets[1]['first_name']}/checked_in" and badges.seen[-1] == listed_one
    # The record a filter receives: every public column, with its type.
    record = listed_one
    assert set(record) == set(badges.seen[-1]) and "ticket_code" in record and "custom_fields" in record
    assert record["checked_in_at"].tzinfo is not None and isinstance(record["custom_fields"], dict)


def test_without_an_attendee_filter_the_objects_are_the_plain_ones(evt):
    event = evt.event()
    evt.tickets(event["id"], 2)
    listed = evt.get(f"/attendees?event={event['id']}", headers=evt.admin).json
    assert len(listed) == 2 and all("badge" not in a for a in listed)
