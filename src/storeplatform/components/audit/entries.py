"""The audit log's entries: written by the kernel's hook (``record``), read by the admin's page,
REST and the command line through one statement (``entries_select`` with ``entry_conditions``),
pruned by a periodic task (``prune``)."""
from datetime import date, datetime, time, timedelta, timezone

from sqlalchemy import delete, insert, select

from storeplatform.core.db.types import utcnow

from .models import AuditEntry

# The days a filter may name: the UTC instants of their midnights exist in every time zone.
FIRST_DAY, LAST_DAY = date(1970, 1, 1), date(9998, 12, 31)
# What an export or the CLI writes of an entry, in this order.
COLUMNS = (AuditEntry.id, AuditEntry.created_at, AuditEntry.actor_id, AuditEntry.actor_login, AuditEntry.address,
           AuditEntry.kind, AuditEntry.action, AuditEntry.subject, AuditEntry.details)


def record(session, event):
    """Write ``event`` (a ``storeplatform.core.audit.AuditEvent``) in ``session``'s transaction,
    at once: an entry left to a later flush would be written by whatever statement comes next,
    a value the host's cache is computing among them (it would count as that value's read)."""
    session.execute(insert(AuditEntry).values(
        created_at=event.at, actor_id=event.actor_id, actor_login=event.actor_login, address=event.address,
        kind=event.kind, action=event.action, subject=event.subject, details=event.details))


def day_problem(day):
    """What is wrong with ``day`` as a filter's day, or None."""
    if not FIRST_DAY <= day <= LAST_DAY:
        return f"must be a day from {FIRST_DAY.isoformat()} to {LAST_DAY.isoformat()}"
    return None


def utc_bounds(tz, since=None, until=None):
    """``(start, end)`` in UTC of the local days ``since`` to ``until`` (both included) in ``tz``:
    from the first day's midnight to the midnight after the last (None for an open end)."""
    start = datetime.combine(since, time(), tz).astimezone(timezone.utc) if since else None
    end = datetime.combine(until + timedelta(days=1), time(), tz).astimezone(timezone.utc) if until else None
    return start, end


def entry_conditions(*, user=None, user_id=None, kind=None, action=None, start=None, end=None):
    """The where clauses of a list: ``user`` the login of who acted as it was recorded (or
    ``cli``, ``system``, ``anonymous``), ``user_id`` their id, ``kind`` and ``action`` exact,
    ``start`` <= time < ``end`` (UTC)."""
    conditions = []
    if user:
        conditions.append(AuditEntry.actor_login == user)
    if user_id is not None:
        conditions.append(AuditEntry.actor_id == user_id)
    if kind:
        conditions.append(AuditEntry.kind == kind)
    if action:
        conditions.append(AuditEntry.action == action)
    if start is not None:
        conditions.append(AuditEntry.created_at >= start)
    if end is not None:
        conditions.append(AuditEntry.created_at < end)
    return conditions


def entries_select(conditions=(), *columns):
    """The entries the conditions keep, newest first (by id: the order they were written in);
    whole entries, or ``columns`` of them."""
    return select(*(columns or (AuditEntry,))).where(*conditions).order_by(AuditEntry.id.desc())


def prune(session, keep_days, max_entries, now=None):
    """Delete the entries older than ``keep_days`` days, then the oldest beyond the newest
    ``max_entries``; returns ``(by_age, by_count)``, the numbers deleted."""
    now = now or utcnow()
    by_age = session.execute(delete(AuditEntry).where(AuditEntry.created_at < now - timedelta(days=keep_days))
                             .execution_options(synchronize_session=False)).rowcount
    # The oldest entry kept: the max_entries-th newest (an index walk of the primary key).
    oldest_kept = session.execute(select(AuditEntry.id).order_by(AuditEntry.id.desc())
                                  .offset(max_entries - 1).limit(1)).scalar()
    by_count = 0
    if oldest_kept is not None:
        by_count = session.execute(delete(AuditEntry).where(AuditEntry.id < oldest_kept)
                                   .execution_options(synchronize_session=False)).rowcount
    return by_age, by_count
