"""Bulk regeneration jobs, without HTTP or a terminal: which orders a job takes, the job and its
items (the record of the work, shared by every web and worker process through the database),
the task that regenerates one order of a job, and a job's progress.

The command line (``bulk.py``) and the admin's invoices page start the same jobs and run the
same task; only the hand-off differs (the command sends the tasks itself after its commit, a
web request hands them over when its transaction commits)."""
import logging

from datetime import timedelta

from sqlalchemy import func, insert, or_, select, update

from storeplatform.api import Order, enqueue_after_commit, id_in_range, utcnow

from .documents import UNBILLABLE_STATUSES, UnbillableOrder, regenerate
from .models import Job, JobItem

log = logging.getLogger(__name__)
TASK = "invoicing.regenerate_order"
INSERT_CHUNK = 1000
ERRORS_SHOWN = 20
# An item not done this long after its hand-off is handed over again by the sweep: its task was
# lost (the process died between the commit and the hand-off, or a worker died running it). A
# task that was only waiting in a long queue runs twice, and the second finds its item done.
REQUEUE_AFTER = timedelta(minutes=30)
SWEEP_BATCH = 1000


def select_orders(session, order_ids=(), statuses=(), force_type=None):
    """(order ids to regenerate, ids asked for that name no order, how many cancelled or failed
    orders were left out). No ids and no statuses: every order. As POST regenerate, cancelled
    and failed orders are taken only with a forced type."""
    stmt = select(Order.id, Order.status).order_by(Order.id)
    if order_ids:
        stmt = stmt.where(Order.id.in_([i for i in order_ids if id_in_range(i)]))
    if statuses:
        stmt = stmt.where(Order.status.in_(statuses))
    rows = session.execute(stmt).all()
    missing = sorted(set(order_ids) - {row.id for row in rows}) if order_ids and not statuses else []
    taken = [row.id for row in rows if force_type or row.status not in UNBILLABLE_STATUSES]
    return taken, missing, len(rows) - len(taken)


def create_job(session, order_ids, force_type=None):
    """A job and one item per order, in the session's transaction; returns the job's id."""
    job = Job(force_type=force_type, total=len(order_ids))
    session.add(job)
    session.flush()
    now = utcnow()
    for start in range(0, len(order_ids), INSERT_CHUNK):
        session.execute(insert(JobItem), [{"job_id": job.id, "order_id": oid, "done": False, "queued_at": now}
                                          for oid in order_ids[start:start + INSERT_CHUNK]])
    return job.id


def start_job_after_commit(session, order_ids, force_type=None):
    """A job whose tasks leave when the session's transaction commits (a web request): a worker
    never meets an item that is not committed, and nothing is sent for a job rolled back."""
    job_id = create_job(session, order_ids, force_type)
    for oid in order_ids:
        enqueue_after_commit(session, TASK, job_id, oid)
    return job_id


def job_progress(session, job_id):
    """{job_id, total, done, failed, percent, finished, errors} of a job, or None when there is
    no such job. ``errors``: the first ERRORS_SHOWN failed items (order_id, error)."""
    if not id_in_range(job_id):
        return None
    total = session.execute(select(Job.total).where(Job.id == job_id)).scalar_one_or_none()
    if total is None:
        return None
    done, failed = session.execute(
        select(func.count(), func.count(JobItem.error)).where(JobItem.job_id == job_id, JobItem.done.is_(True))
    ).one()
    errors = [] if not failed else [
        {"order_id": row.order_id, "error": row.error} for row in session.execute(
            select(JobItem.order_id, JobItem.error).where(JobItem.job_id == job_id, JobItem.error.is_not(None))
            .order_by(JobItem.order_id).limit(ERRORS_SHOWN))]
    return {"job_id": job_id, "total": total, "done": done, "failed": failed,
            "percent": 100 if not total else 100 * done // total, "finished": done >= total, "errors": errors}


def regenerate_order_task(ctx, job_id, order_id):
    """Regenerate one order of a job and mark its item done, in the same transaction; a
    failure is recorded on the item in a transaction of its own."""
    session = ctx.session
    row = session.execute(select(Job.force_type, JobItem.done).join(JobItem, JobItem.job_id == Job.id)
                          .where(Job.id == job_id, JobItem.order_id == order_id)).first()
    if row is None or row.done:
        return  # a task handed over twice (the sweep), or of a job that is gone
    error = None
    try:
        with session.begin_nested():
            if regenerate(session, order_id, row.force_type) is None:
                error = "the order no longer exists"
    except UnbillableOrder as exc:
        error = f"the order is {exc}"
    except Exception as exc:  # recorded on the item, so the job still finishes
        log.exception("invoicing: regenerating order %s of job %s failed", order_id, job_id)
        error = f"{exc.__class__.__name__}: {exc}"[:500]
    session.execute(update(JobItem).where(JobItem.job_id == job_id, JobItem.order_id == order_id)
                    .values(done=True, error=error))


def sweep_jobs_task(ctx):
    """Hand over again the items not done long after their hand-off (see REQUEUE_AFTER); each is
    stamped in the same statement, so two sweeps never send one item twice."""
    now = utcnow()
    session = ctx.session
    stale = (select(JobItem.job_id, JobItem.order_id)
             .where(JobItem.done.is_(False),
                    or_(JobItem.queued_at.is_(None), JobItem.queued_at < now - REQUEUE_AFTER))
             .order_by(JobItem.job_id, JobItem.order_id).limit(SWEEP_BATCH))
    for job_id, order_id in session.execute(stale).all():
        moved = session.execute(
            update(JobItem).where(JobItem.job_id == job_id, JobItem.order_id == order_id, JobItem.done.is_(False),
                                  or_(JobItem.queued_at.is_(None), JobItem.queued_at < now - REQUEUE_AFTER))
            .values(queued_at=now).execution_options(synchronize_session=False))
        if moved.rowcount:
            enqueue_after_commit(session, TASK, job_id, order_id)
