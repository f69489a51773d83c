"""docs/plugins.md's worked example, the door list (#45): a third party's plugin built on the events
plugin's face, installed as written (docs/examples/doorlist is the page's code, installed into the
test plugins by dev.py, as Datasette's tests run its documentation's plugins) and run here: its
route in events/v1, its field on every event answer, its option section, and the audit entry and
message it records when an event is created, in both variants of the namespace."""
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from storeplatform.components.mail.models import MailMessage
from storeplatform.api import hookimpl
from storeplatform.core.plugins import PluginError
from storeplatform.testing import assert_error

from .conftest import Evt

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "doorlist"
FILES = ("setup.py", "storeplatform_doorlist.py")


def door(evt, event_id, **kw):
    kw.setdefault("headers", evt.admin)
    return evt.get(f"/doorlist/{event_id}", **kw)


def test_the_page_shows_the_example_as_installed():
    """Every file of the example is a fenced block of docs/plugins.md, headed by its name, byte
    for byte; its Python is at most 30 lines of code (blank lines aside) and its packaging 8."""
    page = (ROOT / "docs" / "plugins.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", page, re.S | re.M)
    for name in FILES:
        text = (EXAMPLE / name).read_text()
        assert f"# doorlist/{name}\n{text}" in blocks, f"docs/plugins.md does not show {name} as it is"
    assert len([line for line in (EXAMPLE / FILES[1]).read_text().splitlines() if line.strip()]) <= 30
    assert len([line for line in (EXAMPLE / FILES[0]).read_text().splitlines() if line.strip()]) <= 8
    # Documented names only: the host's plugin API and the events plugin's face.
    imports = re.findall(r"^(?:from (\S+) import|import (\S+))", (EXAMPLE / FILES[1]).read_text(), re.M)
    assert sorted({a or b for a, b in imports}) == ["storeplatform.api", "storeplatform_events"]
    assert "from storeplatform_events import api as events" in (EXAMPLE / FILES[1]).read_text()


def test_the_door_list_pages_who_is_not_in_yet(make_site):
    evt = Evt(make_site(**{"storeplatform.plugins": "events doorlist"}))
    made = evt.event("Gala")
    other = evt.event("Other")
    sold = evt.tickets(made["id"], quantity=3)
    evt.tickets(other["id"], quantity=1)
    evt.post("/checkin", {"ticket_code": sold[0]["ticket_code"]})
    res = door(evt, made["id"])
    assert {row["ticket_code"] for row in res.json} == {sold[1]["ticket_code"], sold[2]["ticket_code"]}
    assert res.json[0] == {"name": "Anna Nowak", "ticket_code": res.json[0]["ticket_code"], "event": "Gala"}
    assert res.headers["X-Total"] == "2" and res.headers["X-TotalPages"] == "1"
    page = door(evt, made["id"], params={"per_page": 1, "page": 2})
    assert len(page.json) == 1 and 'rel="prev"' in page.headers["Link"]
    # A draft event has its list too (the back office's events), a trashed one does not.
    draft = evt.event("Draft", status="draft")
    assert door(evt, draft["id"]).json == []
    evt.delete(f"/events/{draft['id']}")
    assert_error(door(evt, draft["id"], status=404), 404, "evt_rest_event_invalid_id")
    # The namespace's answers: an unknown event, a venue, bad paging, no number, no login, no
    # capability, the switch off.
    assert_error(door(evt, 999999, status=404), 404, "evt_rest_event_invalid_id")
    assert_error(door(evt, evt.venue()["id"], status=404), 404, "evt_rest_event_invalid_id")
    assert_error(door(evt, 99999999999999999999, status=404), 404, "evt_rest_event_invalid_id")
    bad = assert_error(door(evt, made["id"], params={"per_page": 0}, status=400), 400, "rest_invalid_param")
    assert list(bad["data"]["params"]) == ["per_page"]
    assert_error(door(evt, "x", status=404), 404, "rest_no_route")
    assert_error(door(evt, made["id"], headers={}, status=401), 401, "evt_rest_forbidden")
    assert_error(door(evt, made["id"], headers=evt.site.headers_for("editor"), status=403), 403, "evt_rest_forbidden")
    evt.site.set_option("events.rest_api_enabled", False)
    assert_error(door(evt, made["id"], status=403), 403, "evt_api_disabled")
    evt.site.set_option("events.rest_api_enabled", True)
    # Listed where the owner's routes are: the namespace's index and the OpenAPI document.
    route = evt.get("/").json["routes"]["/events/v1/doorlist/{event_id}"]
    get = route["endpoints"][0]
    assert get["args"]["event_id"]["type"] == "integer" and get["args"]["per_page"]["maximum"] == 100
    assert "/events/v1/doorlist/{event_id}" in evt.app.get("/api/openapi.json").json["paths"]
    # Its field on every event answer.
    link = evt.get(f"/events/{made['id']}").json["doorlist"]
    assert link.endswith(f"/api/events/v1/doorlist/{made['id']}")
    assert all(e["doorlist"].endswith(f"/doorlist/{e['id']}") for e in evt.get("/events").json)


def test_the_alternate_variant_answers_with_its_own_codes(make_site):
    evt = Evt(make_site(**{"storeplatform.plugins": "events doorlist", "events.api_variant": "alternate"}))
    assert_error(door(evt, 999999, status=404), 404, "rest_not_found")
    assert_error(door(evt, 1, headers={}, status=401), 401, "rest_forbidden")
    made = evt.event("Gala")
    assert door(evt, made["id"]).json == []


def test_a_new_event_is_audited_and_told_in_its_change(make_site, tmp_path):
    site = make_site(**{"storeplatform.plugins": "events doorlist", "mail.directory": str(tmp_path / "mail")})
    evt = Evt(site)
    admin = evt.admin
    # The plugin's own options section, over REST as on the admin's settings pages.
    options = site.app.get("/api/store/v1/settings", headers=admin).json["sections"]["doorlist"]
    assert [o["id"] for o in options] == ["doorlist.notify"]
    site.app.put_json("/api/store/v1/settings/doorlist", {"doorlist.notify": "door@example.com"}, headers=admin)
    made = evt.event("Gala")
    # A create refused records neither.
    evt.post("/events", {"title": "Bad", "venue_id": 999999}, status=400)
    entries = site.app.get("/api/audit/v1/entries", params={"per_page": 100}, headers=admin).json
    mine = [e for e in entries if e["kind"] == "plugin:doorlist"]
    assert [(e["action"], e["subject"]) for e in mine] == [("event_created", str(made["id"]))]
    with site.session() as s:
        sent = s.execute(select(MailMessage.kind, MailMessage.subject)
                         .where(MailMessage.kind == "doorlist.event")).all()
    assert [tuple(row) for row in sent] == [("doorlist.event", f"New event #{made['id']}")]


class FailsAfter:
    """Another plugin whose action fails after the door list's: the change aborts."""

    @hookimpl(optionalhook=True)
    def evt_topic_announced(self, session, topic, object_id, info):
        raise RuntimeError("the change fails after the door list's hook ran")


def test_a_change_that_aborts_leaves_no_entry_and_no_message(make_site, tmp_path):
    site = make_site(plugins=[FailsAfter()], **{"storeplatform.plugins": "events doorlist",
                                                "mail.directory": str(tmp_path / "mail")})
    site.set_option("doorlist.notify", "door@example.com")
    evt = Evt(site)
    assert_error(evt.post("/events", {"title": "Lost"}, status=500), 500, "rest_internal_error")
    entries = site.app.get("/api/audit/v1/entries", params={"per_page": 100}, headers=evt.admin).json
    assert [e for e in entries if e["kind"] == "plugin:doorlist"] == []
    with site.session() as s:
        assert s.execute(select(MailMessage.id).where(MailMessage.kind == "doorlist.event")).all() == []
    assert evt.get("/events").json == []


def test_a_hidden_option_is_listed_and_set_over_rest(evt):
    """docs/plugins.md: ``hidden`` leaves an option off the admin's pages only; REST lists it and a
    user with manage_options sets it (the events plugin's ``events.webhooks_enabled``)."""
    admin = evt.admin
    advanced = evt.app.get("/api/store/v1/settings", headers=admin).json["sections"]["advanced"]
    assert any(o["id"] == "events.webhooks_enabled" for o in advanced)
    res = evt.app.put_json("/api/store/v1/settings/advanced", {"events.webhooks_enabled": False}, headers=admin)
    assert next(o for o in res.json if o["id"] == "events.webhooks_enabled")["value"] is False
    manager = evt.site.headers_for("shop_manager")
    assert_error(evt.app.put_json("/api/store/v1/settings/advanced", {"events.webhooks_enabled": True},
                                  headers=manager, status=403), 403, "rest_forbidden")


def test_without_the_events_plugin_the_site_does_not_start(make_site):
    with pytest.raises(PluginError) as raised:
        make_site(**{"storeplatform.plugins": "doorlist"})
    assert "plugin 'doorlist' adds routes to REST namespace 'events/v1'" in str(raised.value)
