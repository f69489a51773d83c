"""The deliveries table through its life: written with the change (the outbox) and handed to
Huey after commit; read by a worker and taken (pending -> sending) at the moment its request
is about to be written; its outcome recorded (counters, log of 100); and the sweep, which
re-queues lost hand-offs and closes the attempts of workers that died. Sending is
``delivery.DeliveryClient``; ``sender`` runs the steps in order."""
import contextvars
import logging
import uuid
from collections import defaultdict, namedtuple
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Boolean, Integer, and_, bindparam, case, delete, func, or_, select, update

from storeplatform.api import UTCDateTime, cached, enqueue_after_commit, utcnow
from storeplatform.api.advanced import DriverStatement

from .. import metrics
from .delivery import Attempt, Outcome
from .models import (
    DELIVERED,
    FAILED,
    FINISHED,
    PENDING,
    SENDING,
    SKIPPED,
    Webhook,
    WebhookDelivery,
)
from .payloads import envelope_body, local_timestamp, topic_data
from .settings import FAILURE_LIMIT, LOG_SIZE
from .topics import FIRED_TOPICS

# Failed deliveries (WARNING) and disabled webhooks (ERROR), once each, after they are recorded.
log = logging.getLogger("storeplatform_events.webhooks")

DELIVER_TASK = "events.deliver_webhook"
ABANDONED = "abandoned: the worker stopped while sending"


@cached
def active_webhook_ids(session, topic):
    # On the table (Core): the ORM's compilation costs more than this one-column read.
    hooks = Webhook.__table__
    return tuple(session.execute(
        select(hooks.c.id).where(hooks.c.topic == topic, hooks.c.status == "active").order_by(hooks.c.id)
    ).scalars().all())


def on_topic(session, topic, object_id, info):
    """The outbox's ``evt_topic_announced``: one pending delivery per active webhook of the
    topic, in the transaction of the change; each is sent to Huey only if that transaction
    commits."""
    if topic not in FIRED_TOPICS:
        return
    webhook_ids = active_webhook_ids(session, topic)
    if not webhook_ids:
        return
    data = topic_data(session, topic, object_id, info)
    if data is None:
        return
    timestamp = local_timestamp(session)
    rows = [WebhookDelivery(uuid=str(uuid.uuid4()), webhook_id=webhook_id, topic=topic, status=PENDING,
                            body=envelope_body(topic, webhook_id, timestamp, data).decode("utf-8"),
                            timestamp=timestamp)
            for webhook_id in webhook_ids]
    session.add_all(rows)
    session.flush()
    for row in rows:
        enqueue_after_commit(session, DELIVER_TASK, row.id)


# -- a worker's steps (one round trip each, on the worker thread's own connection) -------------

DELIVERIES, WEBHOOKS = WebhookDelivery.__table__, Webhook.__table__

SendingRow = namedtuple("SendingRow", "status webhook_id topic body uuid timestamp url secret webhook_status")

_READ = DriverStatement(
    select(DELIVERIES.c.status, DELIVERIES.c.webhook_id, DELIVERIES.c.topic, DELIVERIES.c.body, DELIVERIES.c.uuid,
           DELIVERIES.c.timestamp, WEBHOOKS.c.url, WEBHOOKS.c.secret, WEBHOOKS.c.status)
    .select_from(DELIVERIES.outerjoin(WEBHOOKS, WEBHOOKS.c.id == DELIVERIES.c.webhook_id))
    .where(DELIVERIES.c.id == bindparam("delivery_id")))

_TAKE = DriverStatement(
    update(DELIVERIES)
    .where(DELIVERIES.c.id == bindparam("delivery_id"), DELIVERIES.c.status == PENDING,
           select(WEBHOOKS.c.id).where(WEBHOOKS.c.id == bindparam("webhook_id"),
                                       WEBHOOKS.c.status == "active").exists())
    .values(status=SENDING, claimed_at=bindparam("now", type_=UTCDateTime),
            attempted_at=bindparam("now", type_=UTCDateTime)))


def read_for_sending(connection, delivery_id):
    """The delivery and its webhook as they are now (``webhook_status`` None: deleted), or None."""
    row = _READ.first(connection, delivery_id=delivery_id)
    return None if row is None else SendingRow(*row)


def take(connection, delivery_id, webhook_id, now):
    """pending -> sending, by one worker only, and only while the webhook is active: made with
    the connection to the receiver open, right before the request is written, so a taken
    delivery has been attempted. False: another worker has it, or the webhook was paused,
    disabled or deleted since it was read."""
    return _TAKE.rowcount(connection, delivery_id=delivery_id, webhook_id=webhook_id, now=now) == 1


def close_skipped(connection, delivery_id, webhook_status):
    """A pending delivery whose webhook is no longer active is closed, never kept for later."""
    reason = "webhook deleted" if webhook_status is None else f"webhook {webhook_status}"
    if _SKIP.rowcount(connection, delivery_id=delivery_id, reason=reason, now=utcnow()):
        prune_log(connection)
        metrics.DELIVERIES.labels("skipped").inc()


_SKIP = DriverStatement(
    update(DELIVERIES).where(DELIVERIES.c.id == bindparam("delivery_id"), DELIVERIES.c.status == PENDING)
    .values(status=SKIPPED, finished_at=bindparam("now", type_=UTCDateTime), error=bindparam("reason")))


# -- outcomes (in a session's transaction, or on a worker's own connection in a transaction) --

@dataclass(frozen=True)
class Finished:
    """What a worker did with one delivery. ``taken``: the delivery was taken (it is ``sending``
    for this worker); otherwise the attempt failed before its request could be written (no
    connection, refused address) and the row is still ``pending``. ``topic``: the delivery's,
    for the log. ``context``: the worker's context variables while it sent the delivery (the id
    of the request whose change made it, set by the task runner), under which its records are
    logged, whichever thread writes them."""

    delivery_id: int
    attempt: Attempt
    outcome: Outcome
    taken: bool
    attempted_at: datetime
    topic: str = ""
    context: contextvars.Context | None = None

    def in_context(self, function, *args):
        return function(*args) if self.context is None else self.context.run(function, *args)


@dataclass(frozen=True)
class Recorded:
    """What ``record_outcomes`` wrote: the outcomes recorded (``kept``) and the webhooks their
    failures disabled (``disabled``: rows of id, topic, url). ``log()`` once it is committed."""

    kept: list
    disabled: list

    def log(self):
        """Each record in the context of the delivery it is about (a webhook disabled: its last
        failure of the batch, the one that reached the limit), so that it carries the request id
        of the change that made the delivery. Counted in the site's metrics here too."""
        for f in self.kept:
            metrics.delivery_recorded(f.outcome)
        if self.disabled:
            metrics.DISABLED.inc(len(self.disabled))
        last_failure = {}
        for f in self.kept:
            if not f.outcome.success:
                f.in_context(log_failed, f.attempt.webhook_id, f.topic, f.delivery_id, f.outcome.response_code,
                             f.outcome.error, f.outcome.duration_ms)
                last_failure[f.attempt.webhook_id] = f
        for webhook_id, topic, url in self.disabled:
            failure = last_failure.get(webhook_id)  # there is one: only failures disable
            if failure is None:
                _log_disabled(webhook_id, topic, url)
            else:
                failure.in_context(_log_disabled, webhook_id, topic, url)


def _log_disabled(webhook_id, topic, url):
    log.error("webhook %s disabled: %d consecutive failed deliveries (topic %s, url %s); PUT status active resumes it",
              webhook_id, FAILURE_LIMIT, topic, url, extra={"webhook_id": webhook_id, "topic": topic, "url": url})


def log_failed(webhook_id, topic, delivery_id, response_code, error, duration_ms):
    """One WARNING line per failed delivery: status code (0: no answer) or error, and duration."""
    what = f"status {response_code}" if response_code else "no answer"
    if error and error != f"HTTP {response_code}":  # "HTTP 500" says the status again
        what += f", error: {' '.join(str(error).split())}"
    duration = "-" if duration_ms is None else f"{duration_ms} ms"
    log.warning("webhook %s delivery %s (topic %s) failed: %s, %s", webhook_id, delivery_id, topic, what, duration,
                extra={"webhook_id": webhook_id, "delivery_id": delivery_id, "topic": topic,
                       "response_code": response_code or 0, "error": error, "duration_ms": duration_ms})


def record(session, delivery_id, attempt, outcome, topic):
    """The test route's own row (written ``sending`` in this transaction): its outcome, counted
    and logged."""
    record_outcomes(session, [Finished(delivery_id, attempt, outcome, True, utcnow(), topic)]).log()


def record_outcomes(connection, finished):
    """Outcomes, in the order they came, in the caller's transaction. A delivery is recorded only
    if it is still as its worker left it (the sweep may have closed it meanwhile, another worker
    may have taken it), so each is recorded and counted once. Returns a ``Recorded``, to be
    logged once the transaction commits (a batch written again after an error logs once)."""
    if not finished:
        return Recorded([], [])
    now = utcnow()
    recorded = _RECORD.returned_each(connection, [
        {"delivery_id": f.delivery_id, "expected": SENDING if f.taken else PENDING,
         "new_status": DELIVERED if f.outcome.success else FAILED, "code": f.outcome.response_code,
         "ms": f.outcome.duration_ms, "message": f.outcome.error, "attempted": f.attempted_at, "finished": now,
         "sent_to": f.attempt.url, "headers": f.attempt.headers, "answer": f.outcome.response_body,
         "cut": f.outcome.response_truncated if f.outcome.response_body is not None else None} for f in finished])
    kept = [f for f, done in zip(finished, recorded) if done]
    disabled = []
    if kept:
        by_webhook = defaultdict(list)
        for f in kept:
            by_webhook[f.attempt.webhook_id].append(f.outcome.success)
        disabled = count_outcomes(connection, by_webhook)
        prune_log(connection)
    return Recorded(kept, disabled)


_RECORD = DriverStatement(
    update(DELIVERIES).where(DELIVERIES.c.id == bindparam("delivery_id"), DELIVERIES.c.status == bindparam("expected"))
    .values(status=bindparam("new_status"), response_code=bindparam("code"), duration_ms=bindparam("ms"),
            error=bindparam("message"), attempted_at=bindparam("attempted", type_=UTCDateTime),
            finished_at=bindparam("finished", type_=UTCDateTime), url=bindparam("sent_to"),
            request_headers=bindparam("headers", type_=DELIVERIES.c.request_headers.type),
            response_body=bindparam("answer"), response_truncated=bindparam("cut", type_=Boolean))
    .returning(DELIVERIES.c.id))


def count_outcomes(connection, successes_by_webhook):
    """Count each webhook's outcomes (``{webhook_id: [success, ...]}`` in the order they
    happened) with one atomic UPDATE per webhook, sent together: no read-modify-write. Webhooks
    with a failure among them are first disabled by an atomic UPDATE if the counter reaches
    the limit (sent together too, only when there are failures: a batch of successes pays
    nothing more). Returns the (id, topic, url) of the webhooks disabled now."""
    params = []
    for webhook_id in sorted(successes_by_webhook):  # a fixed order: no deadlock between two writers
        runs = [0]  # consecutive failures before the first success, then after each success
        for success in successes_by_webhook[webhook_id]:
            if success:
                runs.append(0)
            else:
                runs[-1] += 1
        later = runs[1:]
        params.append({"webhook_id": webhook_id, "first": runs[0], "reset": 1 if later else 0,
                       "last": later[-1] if later else 0, "later_max": max(later, default=0)})
    disabled = []
    failing = [{"webhook_id": p["webhook_id"], "first": p["first"], "later_max": p["later_max"]}
               for p in params if p["first"] or p["later_max"]]
    if failing:
        disabled = [tuple(row) for row in _DISABLE.returned_rows(connection, failing) if row is not None]
    if params:
        _COUNT.many(connection, params)
    return disabled


# failures: a success resets the counter (to the failures after the last success), failures
# add to it; an active webhook is disabled when its counter reaches the limit at any point of
# the sequence (the disable runs before the count, on the counter as it was; the row stays
# locked by it until the count). Every SET expression reads the row as it was.
_FIRST = bindparam("first", type_=Integer)
_COUNT = DriverStatement(
    update(WEBHOOKS).where(WEBHOOKS.c.id == bindparam("webhook_id"))
    .values(failures=case((bindparam("reset", type_=Integer) == 1, bindparam("last", type_=Integer)),
                          else_=WEBHOOKS.c.failures + _FIRST)))
_DISABLE = DriverStatement(
    update(WEBHOOKS)
    .where(WEBHOOKS.c.id == bindparam("webhook_id"), WEBHOOKS.c.status == "active",
           or_(and_(_FIRST > 0, WEBHOOKS.c.failures + _FIRST >= FAILURE_LIMIT),
               bindparam("later_max", type_=Integer) >= FAILURE_LIMIT))
    .values(status="disabled")
    .returning(WEBHOOKS.c.id, WEBHOOKS.c.topic, WEBHOOKS.c.url))


def prune_log(connection):
    """Keep the last 100 finished deliveries (all webhooks together); pending ones are work."""
    _PRUNE.rowcount(connection)


_FINISHED_ROW = or_(*(DELIVERIES.c.status == status for status in FINISHED))
_PRUNE = DriverStatement(
    delete(DELIVERIES).where(_FINISHED_ROW, DELIVERIES.c.id < (
        select(DELIVERIES.c.id).where(_FINISHED_ROW).order_by(DELIVERIES.c.id.desc())
        .limit(1).offset(LOG_SIZE - 1).scalar_subquery())))


# -- the sweep --------------------------------------------------------------------------------

def requeue_lost(session, older_than_seconds, limit=1000):
    """Hand pending deliveries whose last hand-off is older than the grace period to Huey again
    (after commit): hand-offs lost after a commit, and the deliveries a worker had taken from
    the queue but not attempted when it died. A row still in the queue may be sent twice to
    Huey; the take sends it once."""
    now = utcnow()
    cutoff = now - timedelta(seconds=older_than_seconds)
    ids = session.execute(select(WebhookDelivery.id)
                          .where(WebhookDelivery.status == PENDING, WebhookDelivery.queued_at <= cutoff)
                          .order_by(WebhookDelivery.id).limit(limit)).scalars().all()
    if ids:
        session.execute(update(WebhookDelivery).where(WebhookDelivery.id.in_(ids), WebhookDelivery.status == PENDING)
                        .values(queued_at=now).execution_options(synchronize_session=False))
    for delivery_id in ids:
        enqueue_after_commit(session, DELIVER_TASK, delivery_id)
    return ids


def abandon_stuck(session, older_than_seconds):
    """A delivery still ``sending`` that long after its attempt began belongs to a worker that
    died while sending (an attempt ends within its time-out): it was attempted and its outcome
    is unknown, so it is closed as failed and never sent again. It is not counted toward the
    failure limit: a dead worker says nothing about the receiver, and a few killed workers
    must not disable healthy webhooks. Rows taken before attempts were recorded count from
    their claim."""
    cutoff = utcnow() - timedelta(seconds=older_than_seconds)
    closed = session.execute(
        update(WebhookDelivery)
        .where(WebhookDelivery.status == SENDING,
               func.coalesce(WebhookDelivery.attempted_at, WebhookDelivery.claimed_at) <= cutoff)
        .values(status=FAILED, finished_at=utcnow(), error=ABANDONED)
        .returning(WebhookDelivery.id, WebhookDelivery.webhook_id, WebhookDelivery.topic)
        .execution_options(synchronize_session=False)).all()
    if closed:
        prune_log(session)
        metrics.DELIVERIES.labels("abandoned").inc(len(closed))
        for delivery_id, webhook_id, topic in closed:
            log_failed(webhook_id, topic, delivery_id, None, ABANDONED, None)
    return len(closed)
