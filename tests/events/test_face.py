"""The events plugin's face for other plugins (``storeplatform_events.api``, #45): its shape is
pinned here, so that a refactor of the plugin that would change what another plugin reads fails
this test first; its records are the ones REST answers from; events are kept like REST's answers,
attendees are read afresh and counted as the database keeps them."""
import inspect
import re
from pathlib import Path

import pytest

from storeplatform.testing import count_queries
from storeplatform_events import api as events

DOC = Path(__file__).resolve().parents[2] / "docs" / "events.md"

# The face's promise. Changing a line here is changing what third parties build on: add, never
# rename or remove, and say so in docs/events.md ("For other plugins").
NAMES = ["EventRecord", "AttendeeRecord", "EVENT_STATUSES", "ATTENDEE_STATUSES", "PUBLISHED", "LISTED", "NOT_IN",
         "CAME_IN", "SOLD", "event", "events", "event_or_404", "attendee", "attendee_by_code", "attendees",
         "attendee_page", "attendee_counts", "checkin_stats", "is_in"]
EVENT_FIELDS = ("id", "title", "slug", "status", "content", "excerpt", "author_id", "created_at", "modified_at",
                "start_date", "start_time", "end_date", "end_time", "timezone", "all_day", "venue_id",
                "organizer_id", "capacity", "event_status", "event_type", "virtual_url", "featured",
                "featured_image", "categories")
ATTENDEE_FIELDS = ("id", "event_id", "order_id", "order_item_id", "ticket_index", "user_id", "first_name",
                   "last_name", "email", "phone", "ticket_code", "status", "cancelled_by_order", "checked_in_at",
                   "checked_out_at", "custom_fields", "created_at", "modified_at")
SIGNATURES = {
    "event": "(session, event_id, statuses=('publish',))",
    "events": "(session, *, ids=(), statuses=('publish',), upcoming=False, venue_id=None, organizer_id=None, "
              "search='', limit=100)",
    "event_or_404": "(request, event_id, statuses=('publish',))",
    "attendee": "(session, attendee_id)",
    "attendee_by_code": "(session, ticket_code)",
    "attendees": "(session, *, event_id=None, status='', order_id=None, limit=1000)",
    "attendee_page": "(request, *, event_id=None, status='', search='', order='DESC')",
    "attendee_counts": "(session, event_id=None)",
    "checkin_stats": "(session, event_id)",
    "is_in": "(record)",
}
STATS = ["total", "pending", "checked_in", "checked_out", "cancelled", "percentage"]


def test_the_face_has_the_shape_third_parties_build_on():
    assert events.__all__ == NAMES
    assert events.EventRecord._fields == EVENT_FIELDS
    assert events.AttendeeRecord._fields == ATTENDEE_FIELDS
    assert {name: str(inspect.signature(getattr(events, name))) for name in SIGNATURES} == SIGNATURES
    assert (events.PUBLISHED, events.NOT_IN, events.CAME_IN, events.SOLD) == (
        ("publish",), "active", ("checked_in", "checked_out"), ("active", "checked_in", "checked_out"))
    assert events.ATTENDEE_STATUSES == ("active", "cancelled", "checked_in", "checked_out")
    assert events.EVENT_STATUSES == ("scheduled", "cancelled", "postponed", "sold-out")
    assert "trash" not in events.LISTED and "publish" in events.LISTED


def test_every_name_of_the_face_is_documented():
    text = DOC.read_text()
    part = text[text.index("## For other plugins"):]
    part = part[:part.find("\n## ", 1)] if "\n## " in part[1:] else part
    spans = set(re.findall(r"`([A-Za-z_]\w*)", part))
    assert [name for name in NAMES if name not in spans] == []
    for field in EVENT_FIELDS + ATTENDEE_FIELDS:
        assert f"`{field}`" in part or f"{field}," in part or f", {field}" in part, field


def _sold(evt, event_id, quantity):
    return evt.tickets(event_id, quantity=quantity)


def test_records_are_what_rest_answers_from(evt):
    venue = evt.venue()
    cat = evt.category("Jazz")
    made = evt.event("Night", venue_id=venue["id"], start_date="2030-05-01", start_time="19:00",
                     end_date="2030-05-01", end_time="22:00", categories=[cat], capacity=50)
    draft = evt.event("Draft", status="draft")
    sold = _sold(evt, made["id"], 3)
    evt.post("/checkin", {"ticket_code": sold[0]["ticket_code"]})
    with evt.site.session() as s:
        record = events.event(s, made["id"])
        assert events.event(s, draft["id"]) is None and events.event(s, draft["id"], events.LISTED).status == "draft"
        assert events.event(s, venue["id"]) is None and events.event(s, 10**12) is None
        assert events.event(s, "1") is None
        listed = events.events(s, statuses=events.LISTED)
        mine = events.events(s, venue_id=venue["id"], upcoming=True)
        not_in = events.attendees(s, event_id=made["id"], status=events.NOT_IN)
        everyone = events.attendees(s, event_id=made["id"])
        by_code = events.attendee_by_code(s, "  " + sold[1]["ticket_code"].lower() + " ")
        one = events.attendee(s, sold[0]["id"])
        stats = events.checkin_stats(s, made["id"])
        counts = events.attendee_counts(s, made["id"])
        every_event = events.attendee_counts(s)
        with pytest.raises(ValueError):
            events.attendees(s, status="gone")
        with pytest.raises(ValueError):
            events.events(s, statuses=("deleted",))
    rest = evt.get(f"/events/{made['id']}").json
    assert (record.id, record.title, record.slug, record.status, record.start_date.isoformat(), record.start_time,
            record.venue_id, list(record.categories), record.capacity, record.event_status) == (
        rest["id"], rest["title"], rest["slug"], rest["status"], rest["start_date"], rest["start_time"],
        rest["venue_id"], rest["categories"], rest["capacity"], rest["event_status"])
    assert {e.id for e in listed} == {made["id"], draft["id"]}
    assert [(e.start_date, e.start_time) for e in listed] == sorted((e.start_date, e.start_time) for e in listed)
    assert [e.id for e in mine] == [made["id"]]
    rest_active = evt.attendees(event=made["id"], status="active", order="ASC")
    assert [a.id for a in not_in] == [a["id"] for a in rest_active] == [sold[1]["id"], sold[2]["id"]]
    assert [a.id for a in everyone] == [a["id"] for a in sold]
    assert by_code.id == sold[1]["id"] and one.status == "checked_in" and events.is_in(one)
    assert not events.is_in(by_code)
    assert list(stats) == STATS and (stats["total"], stats["pending"], stats["checked_in"]) == (3, 2, 1)
    assert stats == {k: v for k, v in evt.get(f"/checkin/stats/{made['id']}", headers=evt.admin).json.items()
                     if k in STATS}
    assert counts == {"active": 2, "cancelled": 0, "checked_in": 1, "checked_out": 0} == every_event
    rest_one = evt.get(f"/attendees/{sold[0]['id']}", headers=evt.admin).json
    assert (one.ticket_code, one.first_name, one.email, one.event_id) == (
        rest_one["ticket_code"], rest_one["first_name"], rest_one["email"], rest_one["event_id"])


def test_events_are_kept_until_an_event_changes_and_attendees_are_read_afresh(evt):
    made = evt.event("Kept")
    _sold(evt, made["id"], 1)

    def read(*calls):
        with evt.site.session() as s, count_queries(evt.site.engine) as n:
            found = [call(s) for call in calls]
            return n(), found

    fresh, (first,) = read(lambda s: events.event(s, made["id"]))
    kept, (again,) = read(lambda s: events.event(s, made["id"]))
    assert first == again and kept < fresh
    once, _ = read(lambda s: events.attendees(s, event_id=made["id"]))
    twice, _ = read(lambda s: events.attendees(s, event_id=made["id"]),
                    lambda s: events.attendees(s, event_id=made["id"]))
    assert twice == once + 1  # never kept: each read is a statement
    evt.put(f"/events/{made['id']}", {"title": "Changed"})
    changed, (record,) = read(lambda s: events.event(s, made["id"]))
    assert record.title == "Changed" and changed > kept
