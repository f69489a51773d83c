"""An order's notes: its history (what the store wrote as things happened: status changes,
refunds, plugins' documents) and what people wrote (the admin's form, REST), each with who and
when. REST, the admin and plugins (``storeplatform.api.add_order_note``) write through
``add_order_note``."""
from sqlalchemy import select

from storeplatform.core.db import request_of
from storeplatform.core.db.types import utcnow
from storeplatform.core.errors import InvalidParams
from storeplatform.core.values import id_in_range
from .models import OrderNote

NOTE_MAX = 5000
SYSTEM = "system"
NOTE_TYPES = ("any", "customer", "internal")
# ``user`` of add_order_note when the caller names nobody: whoever the session's request is for.
ACTING = object()


def note_problem(text):
    """What is wrong with ``text`` as a note, or None (REST's schema, the admin's form and a
    plugin's call give the same message)."""
    if not isinstance(text, str):
        return "must be text"
    if not text.strip():
        return "must not be empty"
    if len(text) > NOTE_MAX:
        return f"must be at most {NOTE_MAX} characters long"
    return None


def acting_user(session):
    """Who the session's web request acts for (an identity's user record), or None (a task, the
    CLI, an anonymous request)."""
    request = request_of(session)
    identity = request.identity if request is not None else None
    return identity.user if identity is not None else None


def add_order_note(session, order, note, *, customer_note=False, added_by_user=False, user=ACTING, at=None):
    """Add ``note`` to ``order`` (an ``Order`` or an order's id) in the session's transaction
    and return the ``OrderNote``. ``customer_note``: meant for the customer (else private to
    the staff). ``added_by_user``: typed by a person (else written by code as something
    happened). ``user``: who it is from (a ``User`` or a user record; None: "system"); by
    default whoever the session's web request acts for, "system" outside a request. ``at``: when
    it happened (an aware UTC time), if not now. ``InvalidParams`` (``note``) for an empty note or one longer than ``NOTE_MAX``."""
    problem = note_problem(note)
    if problem:
        raise InvalidParams({"note": problem})
    if user is ACTING:
        user = acting_user(session)
    row = OrderNote(order_id=order if isinstance(order, int) else order.id, note=note.strip(),
                    customer_note=bool(customer_note), added_by_user=bool(added_by_user),
                    author_id=user.id if user is not None else None, author=author_name(user), created_at=at or utcnow())
    session.add(row)
    session.flush()
    return row


def author_name(user):
    if user is None:
        return SYSTEM
    return (user.display_name or user.login)[:250]


def notes_select(order_id, note_type="any"):
    """The notes of an order, newest first (``note_type``: any, customer or internal)."""
    stmt = select(OrderNote).where(OrderNote.order_id == order_id)
    if note_type == "customer":
        stmt = stmt.where(OrderNote.customer_note.is_(True))
    elif note_type == "internal":
        stmt = stmt.where(OrderNote.customer_note.is_(False))
    return stmt.order_by(OrderNote.created_at.desc(), OrderNote.id.desc())


def note_of(session, order_id, note_id):
    """The note ``note_id`` of the order ``order_id``, or None (a note of another order is none
    of it)."""
    row = session.get(OrderNote, note_id) if id_in_range(note_id) else None
    return row if row is not None and row.order_id == order_id else None


def delete_order_note(session, note):
    session.delete(note)
    session.flush()

