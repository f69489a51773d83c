"""Check-ins in the order's history (#40): each scan of a ticket of an order, in or out, at the
door (REST), the admin's desk or the CLI, becomes a note of its order, dated when it happened and
signed by whoever scanned, through the periodic task that writes the door's scans."""
import datetime

import pytest
from sqlalchemy import func, select

from storeplatform.testing import run_cli
from storeplatform_events import checkin_history
from storeplatform_events.models import CheckinScan

NOTE_TASK = checkin_history.NOTE_TASK


@pytest.fixture
def door(evt):
    event = evt.event("Gala")
    tickets = evt.tickets(event["id"], 3)
    return evt, event, tickets


def notes(evt, order_id):
    return evt.app.get(f"/api/store/v1/orders/{order_id}/notes", headers=evt.admin).json


def door_notes(evt, order_id):
    return [n for n in notes(evt, order_id) if n["note"].startswith("Ticket ")]


def waiting_scans(evt):
    with evt.site.session() as s:
        return s.scalar(select(func.count()).select_from(CheckinScan))


def parse(text):
    return datetime.datetime.fromisoformat(text)


def test_each_scan_becomes_a_note_signed_and_dated(door):
    evt, event, tickets = door
    code, order_id = tickets[0]["ticket_code"], tickets[0]["order_id"]
    before = {n["id"] for n in notes(evt, order_id)}
    came = evt.post("/checkin", {"ticket_code": code}, status=200).json
    assert evt.post("/checkin", {"ticket_code": code}, status=200).json["already_in"] is True  # no scan
    evt.post("/checkin/checkout", {"ticket_code": code}, status=200)
    evt.post("/checkin", {"ticket_code": code, "event_id": event["id"]}, status=200)  # a pass-out's return
    assert waiting_scans(evt) == 3 and door_notes(evt, order_id) == []  # written by the task, not the door

    evt.site.run_task(NOTE_TASK)
    written = [n for n in notes(evt, order_id) if n["id"] not in before]
    assert [n["note"] for n in written] == [  # newest first
        f"Ticket {code} (Gala) checked in.", f"Ticket {code} (Gala) checked out.", f"Ticket {code} (Gala) checked in."]
    assert {n["author"] for n in written} == {"Administrator"}
    assert {(n["customer_note"], n["added_by_user"]) for n in written} == {(False, False)}
    stored = evt.get(f"/attendees/{tickets[0]['id']}", headers=evt.admin).json
    assert written[0]["date_created"].replace("T", " ") == stored["checked_in_at"]
    assert parse(written[2]["date_created_gmt"]) <= parse(written[1]["date_created_gmt"]) \
        <= parse(written[0]["date_created_gmt"])
    assert came["checked_in_at"] == written[2]["date_created"].replace("T", " ")
    assert waiting_scans(evt) == 0
    evt.site.run_task(NOTE_TASK)  # nothing twice
    assert len(door_notes(evt, order_id)) == 3


def test_a_refused_scan_leaves_nothing(door):
    evt, event, tickets = door
    other = evt.event("Other")
    evt.post("/checkin", {"ticket_code": tickets[0]["ticket_code"], "event_id": other["id"]}, status=400)
    evt.post("/checkin/checkout", {"ticket_code": tickets[1]["ticket_code"]}, status=400)
    evt.post("/checkin", {"ticket_code": "NOPE-NOPE"}, status=404)
    assert waiting_scans(evt) == 0


def test_the_desk_and_the_cli_sign_their_scans(door, tmp_path):
    evt, event, tickets = door
    site = evt.site
    evt.site.create_user("doorkeeper", "administrator", password="door-keeper-pass-1")
    keeper = site.headers_for("doorkeeper")
    site.app.post_json("/api/events/v1/checkin", {"ticket_code": tickets[1]["ticket_code"]}, headers=keeper,
                       status=200)
    # The command line acts for nobody: "system".
    ini = tmp_path / "cli.ini"
    keys = ("sqlalchemy.url", "huey.url", "huey.name", "storeplatform.plugins", "storeplatform.secret")
    ini.write_text("[app:main]\nuse = egg:storeplatform\n" + "".join(f"{k} = {site.settings[k]}\n" for k in keys))
    done = run_cli("-c", str(ini), "events", "checkin", tickets[2]["ticket_code"])
    assert done.returncode == 0, done.stderr
    site.run_task(NOTE_TASK)
    by_code = {n["note"].split()[1]: n["author"] for n in door_notes(evt, tickets[0]["order_id"])}
    assert by_code == {tickets[1]["ticket_code"]: "Doorkeeper", tickets[2]["ticket_code"]: "system"}


def test_a_long_queue_is_written_in_batches(door, monkeypatch):
    evt, event, tickets = door
    monkeypatch.setattr(checkin_history, "BATCH", 2)
    for ticket in tickets:
        evt.post("/checkin", {"ticket_code": ticket["ticket_code"]}, status=200)
        evt.post("/checkin/checkout", {"ticket_code": ticket["ticket_code"]}, status=200)
    assert waiting_scans(evt) == 6
    # A full batch sends the task again after its commit (the test queue runs it there).
    evt.site.run_task(NOTE_TASK)
    assert waiting_scans(evt) == 0
    assert len(door_notes(evt, tickets[0]["order_id"])) == 6


def test_a_scan_of_a_deleted_order_is_dropped(door):
    evt, event, tickets = door
    evt.post("/checkin", {"ticket_code": tickets[0]["ticket_code"]}, status=200)
    evt.app.delete(f"/api/store/v1/orders/{tickets[0]['order_id']}", params={"force": "true"}, headers=evt.admin,
                   status=200)
    evt.site.run_task(NOTE_TASK)
    assert waiting_scans(evt) == 0


def test_the_task_runs_every_minute(evt):
    assert NOTE_TASK in evt.site.periodic_task_names()
