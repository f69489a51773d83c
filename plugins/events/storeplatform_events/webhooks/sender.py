"""A worker's side of one delivery, one way through:

1. read the delivery and its webhook (one query on the thread's kept database connection;
   nothing is locked or changed);
2. open the connection to the receiver (each worker thread keeps its connections between
   deliveries: one HTTP session per thread);
3. take the delivery (pending -> sending, ``attempted_at``) with a conditional UPDATE, once the
   connection is open and right before the request is written: another worker, or a repeated
   hand-off of the same id, finds it taken and writes nothing;
4. send it, all hops within the time-out, with no transaction open;
5. hand the outcome to the process's recorder, which writes it with others in one transaction
   (inline tasks, such as ``memory://`` queues run, record it at once).

A worker that dies before step 3 leaves the delivery pending: the sweep re-queues it. One that
dies after it has attempted the delivery: the sweep closes it as failed. Nothing is sent twice.
"""
import threading

from sqlalchemy import event

from storeplatform.api import site_transaction, utcnow

from .connections import AttemptRefused
from .delivery import DeliveryClient, signed_attempt
from .models import PENDING
from .outbox import Finished, close_skipped, read_for_sending, record_outcomes, take
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
    def __init__(self, registry):
        self.registry = registry
        self.policy = webhook_policy(registry)
        self._threads = threading.local()
        with site_transaction(registry) as session:
            self.engine = session.get_bind()
        self.databases = HeldConnections(self.engine)
        self.recorder = OutcomeRecorder(self.engine)

    def http(self):
        """This thread's HTTP client."""
        client = getattr(self._threads, "http", None)
        if client is None:
            client = self._threads.http = DeliveryClient(self.policy)
        return client

    def deliver(self, delivery_id, inline=False):
        """Send delivery ``delivery_id`` if it is still pending (see the module's steps);
        ``inline``: record the outcome before returning."""
        for _ in range(READS):
            try:
                finished = self._attempt(delivery_id)
            except self.databases.errors:
                self.databases.drop()  # it may be broken; the next delivery gets a new one
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
        except self.databases.errors:
            # A kept connection the server dropped while it rested: once more on a new one
            # (reading changes nothing).
            self.databases.drop()
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
            outcome = self.http().send(attempt, when_connected=take_it)
        except AttemptRefused:
            return None
        # Not taken: the attempt failed before its request could be written (no connection).
        return Finished(delivery_id, attempt, outcome, bool(taken_at), taken_at[0] if taken_at else utcnow())

    def _record(self, finished, inline):
        if inline:
            with self.engine.begin() as transaction:
                record_outcomes(transaction, [finished])
        else:
            self.recorder.add(finished)


class HeldConnections:
    """One database connection per thread, kept from one delivery to the next: no pool
    check-out and check-in around each of a delivery's two statements. On PostgreSQL it runs
    without a transaction (autocommit: one round trip per statement); SQLite's driver connection
    commits each statement already. A connection is given back once its thread has ended,
    dropped after a database error, and closed when the engine is disposed."""

    def __init__(self, engine):
        self.engine = engine
        self.errors = engine.dialect.loaded_dbapi.Error
        self._lock = threading.Lock()
        self._by_thread = {}
        event.listen(engine, "engine_disposed", self.close_all)

    def get(self):
        thread = threading.current_thread()
        connection = self._by_thread.get(thread)
        if connection is None:
            connection = self.engine.connect()
            if self.engine.dialect.name == "postgresql":
                connection.execution_options(isolation_level="AUTOCOMMIT")
            with self._lock:
                for other in [t for t in self._by_thread if not t.is_alive()]:
                    self._by_thread.pop(other).close()
                self._by_thread[thread] = connection
        return connection

    def drop(self):
        with self._lock:
            connection = self._by_thread.pop(threading.current_thread(), None)
        if connection is not None:
            connection.invalidate()
            connection.close()

    def close_all(self, engine=None):
        with self._lock:
            held, self._by_thread = list(self._by_thread.values()), {}
        for connection in held:
            connection.close()
