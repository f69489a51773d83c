"""The site's choice of variant (ini key ``events.api_variant``): start-up refuses an unknown
value, both variants serve the same data (switching loses and converts nothing), the schema
index and the OpenAPI document describe the variant served, hooks and webhooks."""
import subprocess
import sys
from pathlib import Path

import pytest

from storeplatform.api import hookimpl
from storeplatform.testing import assert_error, cli_environ

from .conftest import ALTERNATE, Evt
from .webhook_fixtures import hooks_site, payload, signed_by
from .webhook_receiver import Receiver

STANDARD_ONLY = ["/events/v1/calendar/month", "/events/v1/calendar/range", "/events/v1/calendar/upcoming",
                 "/events/v1/calendar/categories"]
ALTERNATE_ONLY = ["/events/v1/calendar", "/events/v1/speakers", "/events/v1/speakers/{id}"]


def test_an_unknown_variant_stops_start_up_with_one_line(tmp_path):
    ini = tmp_path / "site.ini"
    ini.write_text(f"[app:main]\nuse = egg:storeplatform\nsqlalchemy.url = sqlite:///{tmp_path}/db.sqlite\n"
                   "huey.url = memory://\nstoreplatform.plugins = events\nevents.api_variant = beta\n\n"
                   "[server:main]\nuse = egg:storeplatform#waitress\nhost = 127.0.0.1\nport = 6543\n")
    proc = subprocess.run([Path(sys.executable).parent / "pserve", ini, "http_port=0"],
                          capture_output=True, text=True, timeout=60, env=cli_environ(), check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip() == "storeplatform: error: events.api_variant must be standard or alternate, not 'beta'"


@pytest.mark.parametrize("value,speakers", [("", 404), ("standard", 404), (" alternate ", 200)])
def test_the_variant_values(make_site, value, speakers):
    site = make_site(**{"storeplatform.plugins": "events", "events.api_variant": value})
    site.app.get("/api/events/v1/speakers", status=speakers)


def restarted(make_site, evt, **settings):
    """The site of ``evt`` (its database and users) started again with other settings."""
    site = make_site(**settings)
    site._users = dict(evt.site._users)
    return Evt(site)


def test_switching_loses_and_converts_nothing(make_site):
    standard = Evt(make_site(**{"storeplatform.plugins": "events"}))
    venue = standard.venue("Hall", postal="1010")
    event = standard.event("Gig", venue_id=venue["id"], content="<p>x</p>", event_status="postponed",
                           event_type="virtual", start_date="2031-01-05")
    ticket = standard.tickets(event["id"])[0]
    standard.post("/checkin", {"ticket_code": ticket["ticket_code"]}, status=200)

    # The same database served by the alternate variant (a restart with the other ini value).
    alt = restarted(make_site, standard, **ALTERNATE)
    seen = alt.get(f"/events/{event['id']}").json
    assert (seen["description"], seen["status"], seen["type"], seen["registered"]) == ("<p>x</p>", "postponed",
                                                                                     "virtual", 1)
    assert seen["venue"] == {"id": venue["id"], "name": "Hall"} and seen["link"] == event["permalink"]
    assert alt.get(f"/venues/{venue['id']}").json["postal_code"] == "1010"
    assert alt.get("/attendees", params={"event_id": event["id"]}, headers=alt.admin).json[0]["status"] == \
        "checked_in"
    speaker = alt.post("/speakers", {"name": "Ada", "bio": "b"}, status=201).json
    alt.put(f"/venues/{venue['id']}", {"postal_code": "1020"}, status=200)
    alt.put(f"/events/{event['id']}", {"status": "scheduled", "type": "hybrid"}, status=200)

    # And back: the standard variant sees every change, and speakers come back unchanged.
    assert standard.get(f"/venues/{venue['id']}").json["postal"] == "1020"
    back = standard.get(f"/events/{event['id']}").json
    assert (back["event_status"], back["event_type"], back["content"]) == ("scheduled", "hybrid", "<p>x</p>")
    assert_error(standard.get("/speakers", status=404), 404, "rest_no_route")
    again = restarted(make_site, standard, **ALTERNATE)
    assert again.get(f"/speakers/{speaker['id']}").json == speaker


def routes(evt):
    return evt.get("/").json["routes"]


def test_the_schema_index_describes_the_variant_served(alt, make_site):
    evt = restarted(make_site, alt, **{"storeplatform.plugins": "events"})
    alternate, standard = routes(alt), routes(evt)
    assert set(ALTERNATE_ONLY) <= set(alternate) and not set(STANDARD_ONLY) & set(alternate)
    assert set(STANDARD_ONLY) <= set(standard) and not set(ALTERNATE_ONLY) & set(standard)
    shared = set(alternate) - set(ALTERNATE_ONLY)
    assert shared == set(standard) - set(STANDARD_ONLY)

    def endpoint(table, path, method):
        return next(e for e in table[path]["endpoints"] if e["methods"] == [method])

    listing = endpoint(alternate, "/events/v1/events", "GET")["args"]
    assert set(listing) == {"type", "after", "before", "category", "per_page", "page", "status", "search"}
    assert listing["category"]["type"] == "integer" and listing["per_page"]["maximum"] == 100
    body = endpoint(alternate, "/events/v1/events", "POST")
    assert {"description", "status", "type", "venue", "organizer"} <= set(body["args"])
    assert not {"content", "event_status", "event_type", "venue_id"} & set(body["args"])
    assert body["permission"] == "edit_posts"
    assert body["args"]["status"]["enum"] == ["scheduled", "cancelled", "postponed", "sold-out"]
    assert "postal_code" in endpoint(alternate, "/events/v1/venues", "POST")["args"]
    assert set(endpoint(alternate, "/events/v1/attendees", "GET")["args"]) == {"event_id", "status", "search",
                                                                               "page", "per_page"}
    assert set(endpoint(alternate, "/events/v1/calendar", "GET")["args"]) == {"year", "month", "category"}
    assert endpoint(alternate, "/events/v1/speakers", "POST")["args"]["name"]["required"] is True
    assert "Event ticketing (alternate variant)" in alt.get("/").json["description"]


def test_the_openapi_document_describes_the_variant_served(alt, make_site):
    evt = restarted(make_site, alt, **{"storeplatform.plugins": "events"})
    paths = alt.app.get("/api/openapi.json").json["paths"]
    assert "/events/v1/speakers" in paths and "/events/v1/calendar" in paths
    assert "/events/v1/calendar/month" not in paths
    params = {p["name"] for p in paths["/events/v1/events"]["get"]["parameters"]}
    assert {"type", "after", "before"} <= params and "start_after" not in params
    standard = evt.app.get("/api/openapi.json").json["paths"]
    assert "/events/v1/speakers" not in standard and "/events/v1/calendar/month" in standard


def test_the_api_switch_applies_to_the_variant(alt):
    alt.site.set_option("events.rest_api_enabled", False)
    for path in ("/events", "/speakers", "/calendar", "/", "/nosuch"):
        assert_error(alt.get(path, status=403), 403, "evt_api_disabled")
    assert_error(alt.post("/speakers", {"name": "x"}, status=403), 403, "evt_api_disabled")


class Filters:
    def __init__(self):
        self.standard_filter_calls = 0

    @hookimpl
    def evt_rest_event_response(self, data, post, request):
        data["badge"] = f"badge-{post.id}-{data['type']}"
        return data

    @hookimpl
    def evt_rest_prepare_event(self, data, post, request):
        self.standard_filter_calls += 1
        return data

    @hookimpl
    def evt_rest_prepare_venue(self, data, post, request):
        data["seen_postal_code"] = "postal_code" in data
        return data


def test_hookspecs_of_the_variant(alt):
    hooks = alt.site.hooks
    for kind in ("created", "updated"):
        assert list(getattr(hooks, f"evt_rest_speaker_{kind}").spec.argnames) == ["post_id", "request"]
    assert list(hooks.evt_rest_speaker_deleted.spec.argnames) == ["post_id", "force"]
    for name in ("evt_rest_prepare_speaker", "evt_rest_event_response"):
        assert list(getattr(hooks, name).spec.argnames) == ["data", "post", "request"]


def test_the_variants_response_filter_runs_on_every_event(make_site):
    filters = Filters()
    alt = Evt(make_site(plugins=[filters], **ALTERNATE))
    event = alt.event("Gig", type="virtual")
    badge = f"badge-{event['id']}-virtual"
    assert event["badge"] == badge
    assert alt.get(f"/events/{event['id']}").json["badge"] == badge
    assert alt.get("/events").json[0]["badge"] == badge
    assert alt.put(f"/events/{event['id']}", {"title": "New"}, status=200).json["badge"] == badge
    assert alt.delete(f"/events/{event['id']}", status=200).json["previous"]["badge"] == badge
    assert filters.standard_filter_calls == 0  # the standard shape's filter does not see this one
    venue = alt.venue("Hall")
    assert venue["seen_postal_code"] is True
    assert alt.get("/venues").json[0]["seen_postal_code"] is True


def test_actions_fire_the_same_in_both_variants(make_site, evt_log):
    alt = Evt(make_site(**{**ALTERNATE, "storeplatform.plugins": "events thirdparty"}))
    event = alt.event("E")
    alt.put(f"/events/{event['id']}", {"capacity": 3}, status=200)
    ticket = alt.tickets(event["id"])[0]
    alt.post("/checkin", {"ticket_code": ticket["ticket_code"]}, status=200)
    alt.post("/checkin", {"ticket_code": "NOSUCH"}, status=404)
    alt.delete(f"/events/{event['id']}?force=true", status=200)
    assert evt_log() == [f"evt_rest_event_created {event['id']}", f"evt_rest_event_updated {event['id']}",
                         f"evt_attendee_checked_in {ticket['id']} {ticket['ticket_code']}",
                         f"evt_rest_event_deleted {event['id']} force=True"]
    # The third-party plugin's own speakers route gives way to the variant's.
    assert alt.get("/speakers").json == []


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def test_webhooks_send_the_same_payloads_in_both_variants(make_site, receiver):
    standard = hooks_site(make_site)
    alt = hooks_site(make_site, same_users_as=standard, **{"events.api_variant": "alternate"})
    hook = alt.post("/webhooks", {"name": "n", "url": receiver.url(), "topic": "event.created"}, status=201).json
    assert_error(alt.get("/webhooks/999999", headers=alt.admin, status=404), 404, "rest_not_found")
    assert_error(alt.get("/webhooks", status=401), 401, "rest_forbidden")
    assert alt.get("/webhooks/topics").json == standard.get("/webhooks/topics").json
    venue = standard.venue("Hall")
    made_standard = standard.event("Gig", venue_id=venue["id"], event_status="postponed", start_date="2031-01-05")
    made_alt = alt.event("Gig", venue=venue["id"], status="postponed", start_date="2031-01-05")
    sent = [payload(r) for r in receiver.posts()]
    assert [p["data"]["id"] for p in sent] == [made_standard["id"], made_alt["id"]]
    assert all(signed_by(r, hook["secret"]) for r in receiver.posts())
    for p in sent:
        p["data"].pop("id"), p["data"].pop("url"), p.pop("timestamp")
    assert sent[0] == sent[1] and sent[0]["topic"] == "event.created"
    assert sent[0]["data"]["event_status"] == "postponed" and sent[0]["data"]["venue_id"] == str(venue["id"])
