"""One attendee shape: every hook that receives an attendee gets the same dict (keys, their order
and their types) whichever route read it, and a check-in reads nothing of the attendee besides
the row its one conditional UPDATE returns."""
from datetime import datetime

import pytest
from sqlalchemy import event

from storeplatform.api import hookimpl

from .conftest import ALTERNATE, Evt


class Seen:
    def __init__(self):
        self.attendees = []

    @hookimpl
    def evt_rest_prepare_attendee(self, data, attendee, request):
        self.attendees.append(("filter", attendee))

    @hookimpl
    def evt_attendee_checked_in(self, attendee_id, attendee):
        self.attendees.append(("checked_in", attendee))

    @hookimpl
    def evt_attendee_checked_out(self, attendee_id, attendee):
        self.attendees.append(("checked_out", attendee))


def every_route(make_site, settings):
    seen = Seen()
    evt = Evt(make_site(plugins=[seen], **settings))
    ticket = evt.tickets(evt.event()["id"])[0]
    evt.get(f"/attendees/{ticket['id']}", headers=evt.admin)
    evt.get(f"/attendees/code/{ticket['ticket_code']}", headers=evt.admin)
    evt.put(f"/attendees/{ticket['id']}", {"first_name": "Bea"}, status=200)
    evt.post("/checkin", {"ticket_code": ticket["ticket_code"]}, status=200)
    evt.post("/checkin/checkout", {"ticket_code": ticket["ticket_code"]}, status=200)
    evt.post("/checkin", {"ticket_code": ticket["ticket_code"]}, status=200)
    evt.attendees()
    return seen.attendees


@pytest.mark.parametrize("settings", [{"storeplatform.plugins": "events"}, ALTERNATE], ids=["standard", "alternate"])
def test_every_hook_gets_the_same_attendee_shape(make_site, settings):
    seen = every_route(make_site, settings)
    # list (after tickets), one by id, by code, after PUT, check-in, check-out, check-in, list
    assert [name for name, _ in seen] == ["filter"] * 4 + ["checked_in", "checked_out", "checked_in", "filter"]
    last = seen[-1][1]
    assert last["first_name"] == "Bea" and last["status"] == "checked_in" and "cancelled_by_order" not in last
    assert all(list(attendee) == list(last) for _, attendee in seen)
    # Each key holds one type on every route (the times None until they happen).
    for key in last:
        kinds = {type(attendee[key]) for _, attendee in seen if attendee[key] is not None}
        assert len(kinds) <= 1, (key, kinds)
        if kinds == {datetime}:
            assert all(a[key].tzinfo is not None for _, a in seen if a[key] is not None), key
    assert seen[5][1]["checked_out_at"] is not None and seen[4][1]["checked_in_at"] is not None


def test_a_checkin_is_one_conditional_update_and_reads_no_attendee(evt):
    ticket = evt.tickets(evt.event()["id"])[0]
    statements = []

    def keep(conn, cursor, statement, parameters, context, executemany):
        if "evt_attendees" in statement:
            statements.append(" ".join(statement.split()).upper())

    event.listen(evt.site.engine, "before_cursor_execute", keep)
    try:
        evt.post("/checkin", {"ticket_code": ticket["ticket_code"]}, status=200)
    finally:
        event.remove(evt.site.engine, "before_cursor_execute", keep)
    assert len(statements) == 1, statements
    # On PostgreSQL the UPDATE sits in a WITH whose INSERT records the scan for the order's
    # history; SQLite records it with a statement of its own, after (checkin.py).
    update_at = statements[0].find("UPDATE EVT_ATTENDEES SET")
    assert update_at == (len("WITH MOVED AS (") if evt.site.engine.dialect.name == "postgresql" else 0), statements
    assert "RETURNING" in statements[0] and "STATUS IN ('ACTIVE', 'CHECKED_OUT')" in statements[0]
