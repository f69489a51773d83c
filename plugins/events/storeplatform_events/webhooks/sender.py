"""A worker's side of one delivery, one way through:

1. read the delivery and its webhook (one query on the thread's kept database connection;
   nothing is locked or changed);
2. open the connection to the receiver with the thread's HTTP client (its connections stay open
   from one delivery to the next);
3. take the delivery (pending -> sending, ``attempted_at``) with a conditional UPDATE, once the
   connection is open and right before the request is written: another worker, or a repeated
   hand-off of the same id, finds it taken and writes nothing;
4. send it, all hops within the time-out, with no transaction open;
5. hand the outcome to the process's recorder, which writes it with others in one transaction
   (inline tasks, such as ``memory://`` queues run, record it at once).

A worker that dies before step 3 leaves the delivery pending: the sweep re-queues it. One that
dies after it has attempted the delivery: the sweep closes it as failed. Nothing is sent twice.
"""
import contextvars
import threading

from sqlalchemy import event

from storeplatform.api import utcnow
from storeplatform.api.advanced import site_transaction

from .connections import AttemptRefused
from .delivery import DeliveryClient, signed_attempt
from .models import PENDING
from .outbox import Finished, close_skipped, read_for_sending, record_outcomes, take
from .per_thread import PerThread
from .recorder import OutcomeRecorder
from .settings import webhook_policy

SENDER_KEY = "events.webhooks.sender"
_creating = threading.Lock()
# A webhook changed between the read and the take (paused and resumed, say): read again, a few
# times at most.
READS = 3


def delivery_sender(registry):
    """The site's sender in this process (made on first use)."""
    sender = registry.get(SENDER_KEY)
    if sender is None:
        with _creating:
            sender = registry.get(SENDER_KEY)
            if sender is None:
                sender = registry[SENDER_KEY] = DeliverySender(registry)
    return sender


class DeliverySender:
    """Each worker thread keeps a database connection (no pool check-out and check-in around a
    delivery's two statements; on PostgreSQL without a transaction, one round trip each) and an
    HTTP client (its connections kept alive); one recorder per process writes the outcomes."""

    def __init__(self, registry):
        self.registry = registry
        self.policy = webhook_policy(registry)
        with site_transaction(registry) as session:
            self.engine = session.get_bind()
        self.database_errors = self.engine.dialect.loaded_dbapi.Error
        self.databases = PerThread(self._connect, lambda connection: connection.close())
        self.clients = PerThread(lambda: DeliveryClient(self.policy), DeliveryClient.close)
        self.recorder = OutcomeRecorder(self.engine)
        event.listen(self.engine, "engine_disposed", self._close_kept)

    def _connect(self):
        connection = self.engine.connect()
        if self.engine.dialect.name == "postgresql":
            connection.execution_options(isolation_level="AUTOCOMMIT")
        return connection  # SQLite's driver connection commits each statement already

    def _drop_database(self):
        """After a database error: this thread's connection may be broken; the next one is new."""
        connection = self.databases.forget()
        if connection is not None:
            connection.invalidate()
            connection.close()

    def _close_kept(self, engine):
        self.databases.close_all()
        self.clients.close_all()

    def deliver(self, delivery_id, inline=False):
        """Send delivery ``delivery_id`` if it is still pending (see the module's steps);
        ``inline``: record the outcome before returning."""
        for _ in range(READS):
            try:
                finished = self._attempt(delivery_id)
            except self.database_errors:
                self._drop_database()
                raise
            if finished is None:
                continue
            if finished is not False:
                self._record(finished, inline)
            return

    def _attempt(self, delivery_id):
        """Finished, False (nothing to do: not pending, or skipped), or None (read again)."""
        database = self.databases.get()
        try:
            row = read_for_sending(database, delivery_id)
        except self.database_errors:
            # A kept connection the server dropped while it rested: once more on a new one
            # (reading changes nothing).
            self._drop_database()
            database = self.databases.get()
            row = read_for_sending(database, delivery_id)
        if row is None or row.status != PENDING:
            return False
        if row.webhook_status != "active":
            with self.engine.begin() as transaction:
                close_skipped(transaction, delivery_id, row.webhook_status)
            return False
        attempt = signed_attempt(row.webhook_id, row.url, row.secret, row.topic, row.body.encode("utf-8"),
                                 row.uuid, row.timestamp)
        taken_at = []

        def take_it():
            now = utcnow()
            if not take(database, delivery_id, row.webhook_id, now):
                raise AttemptRefused()
            taken_at.append(now)

        try:
            outcome = self.clients.get().send(attempt, when_connected=take_it)
        except AttemptRefused:
            return None
        # Not taken: the attempt failed before its request could be written (no connection).
        # Its records are logged in this thread's context (the request id of the change that made
        # the delivery), also by the recorder's thread.
        return Finished(delivery_id, attempt, outcome, bool(taken_at), taken_at[0] if taken_at else utcnow(),
                        row.topic, contextvars.copy_context())

    def _record(self, finished, inline):
        if inline:
            with self.engine.begin() as transaction:
                recorded = record_outcomes(transaction, [finished])
            recorded.log()
        else:
            self.recorder.add(finished)
