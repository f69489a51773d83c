"""The Huey tasks: send one message, and the sweep (every minute, and once when a worker
starts).

One way through a message, with no transaction open while the server is talked to (a slow
server must not hold database locks; on SQLite that would stop every writer):

1. read the row (a short transaction): nothing to do unless it is pending and due; a message
   still to compose (``queue_mail``) is built first, in a transaction of its own;
2. connect, greet, log in, give the sender and recipients;
3. take it (pending -> sending, committed) right before the data is written;
4. write the data and read the answer;
5. record the outcome (a short transaction).

A worker that dies before step 3 leaves it pending: the sweep hands it over again, and it is
sent once. One that dies after it: the sweep closes it as failed (``ABANDONED``), never sent
again. Nothing is sent twice."""
from storeplatform.core.db.types import utcnow

from .models import COMPOSING, PENDING
from .outbox import abandon_stuck, compose, prune_log, read_for_sending, record_failure, record_sent, requeue_due, take
from .settings import policy_of
from .transports import NotReady, SendError, transport_of

SWEEP_TASK = "storeplatform.mail_sweep"


def send_message(registry, message_id, transport=None):
    """Steps 1 to 5 for message ``message_id``; returns its status afterwards (None: nothing done)."""
    policy = policy_of(registry)
    engine = registry["db.engine"]
    with engine.begin() as connection:
        row = read_for_sending(connection, message_id)
    if row is not None and row.status == COMPOSING:
        compose(registry, message_id)
        with engine.begin() as connection:
            row = read_for_sending(connection, message_id)
    if row is None or row.status != PENDING or row.next_attempt_at > utcnow():
        return None
    transport = transport or transport_of(policy)

    def when_ready():
        if not take_now(engine, message_id):
            raise NotReady()

    options = {"name": f"{message_id}-{row.message_id.strip('<>').split('@')[0]}"} \
        if policy.transport == "files" else {}
    try:
        answer = transport.send(row.sender, list(row.recipients), row.body, when_ready, **options)
    except NotReady:
        return None
    except SendError as error:
        with engine.begin() as connection:
            return record_failure(connection, message_id, error, row.attempts, policy.retry_delays)
    with engine.begin() as connection:
        record_sent(connection, message_id, answer)
    return "sent"


def take_now(engine, message_id):
    """Step 3 in a transaction of its own, committed before the data is written."""
    with engine.begin() as connection:
        return take(connection, message_id, utcnow())


def send_mail_task(ctx, message_id):
    send_message(ctx.registry, message_id)


def mail_sweep(ctx):
    policy = policy_of(ctx.registry)
    requeue_due(ctx.session, policy.requeue_after)
    # Once taken, an attempt writes the data and reads two answers, each within the time-out.
    abandon_stuck(ctx.session, policy.requeue_after + 4 * policy.timeout)
    prune_log(ctx.session, policy.log_size)
