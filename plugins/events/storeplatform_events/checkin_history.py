"""Check-ins in the order's history. The door records each scan of a ticket of an order as a row
of ``evt_checkin_scans``, in the statement that moves the ticket (``checkin.py``); this periodic
task turns the rows into the order's notes, dated when the scan happened and signed by whoever
scanned, then deletes them. So every check-in and check-out reaches the history within a minute,
and a check-in costs no note, no order read and no wait on the notes of its order (a note per
scan made at the door would do all three on the busiest path the site has)."""
from collections import namedtuple

from sqlalchemy import delete, select

from storeplatform.api import Order, Post, add_order_note, enqueue_after_commit

from .models import Attendee, CheckinScan

NOTE_TASK = "events.note_checkin_scans"
# Scans written into notes per run (one transaction); a full batch sends the task again at once.
BATCH = 1000
_DONE = {"checked_in": "checked in", "checked_out": "checked out"}


class _Scanner(namedtuple("_Scanner", "id display_name login")):
    """Who scanned, as the scan recorded them (``add_order_note``'s ``user``)."""


def scan_note(action, ticket_code, event_name):
    """The note of one scan: "Ticket K7Q2-9XPL (Summer concert) checked in."."""
    ticket = f"Ticket {ticket_code}" if ticket_code else "A ticket"
    return f"{ticket} ({event_name}) {_DONE[action]}." if event_name else f"{ticket} {_DONE[action]}."


def note_checkin_scans(ctx):
    """Periodic task: the oldest scans (up to ``BATCH``) become notes of their orders. Scans are
    taken ``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so two workers running it at once write each
    note once; a scan whose order no longer exists is dropped."""
    session = ctx.session
    rows = session.execute(
        select(CheckinScan, Attendee.ticket_code, Post.title, Order.id)
        .outerjoin(Attendee, Attendee.id == CheckinScan.attendee_id)
        .outerjoin(Post, Post.id == Attendee.event_id)
        .outerjoin(Order, Order.id == CheckinScan.order_id)
        .order_by(CheckinScan.id).limit(BATCH)
        .with_for_update(of=CheckinScan, skip_locked=True)).all()
    if not rows:
        return
    for scan, ticket_code, event_name, order_id in rows:
        if order_id is None:
            continue
        scanner = _Scanner(scan.user_id, scan.user_name, scan.user_name) if scan.user_name else None
        add_order_note(session, order_id, scan_note(scan.action, ticket_code, event_name), user=scanner, at=scan.at)
    session.execute(delete(CheckinScan).where(CheckinScan.id.in_([row[0].id for row in rows])))
    if len(rows) == BATCH:
        enqueue_after_commit(session, NOTE_TASK)
