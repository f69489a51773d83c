"""The outcomes of a worker process's deliveries, written by one thread, many per transaction.

A batch is what arrives within ``LINGER`` of its first outcome (and while the previous batch
is being written), so a busy worker pays one transaction for several deliveries and a quiet
one records each within a few milliseconds of its answer. The worker threads hand an outcome
over and go on with the next delivery. An outcome is in memory until its batch commits: if the
process dies first, its delivery is still ``sending`` and the sweep closes it as failed (it
was attempted; it is never sent twice).
"""
import atexit
import logging
import threading
import time

from .outbox import record_outcomes

log = logging.getLogger(__name__)

MAX_BATCH = 200
LINGER = 0.01
# A failed batch (database unreachable, a deadlock) is written again after this, doubling.
RETRY_DELAY = 0.05
MAX_RETRY_DELAY = 5.0


class OutcomeRecorder:
    def __init__(self, engine):
        self.engine = engine
        self._changed = threading.Condition()
        self._waiting = []
        self._writing = False
        self._closing = False
        self._thread = None

    def add(self, finished):
        with self._changed:
            self._waiting.append(finished)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="webhook-outcomes", daemon=True)
                self._thread.start()
                # A worker stopping normally writes what it holds before the process ends.
                atexit.register(self.close)
            # Woken for the first outcome of a batch and for a full one, not for each (a wake-up
            # per delivery is a thread switch per delivery).
            if len(self._waiting) in (1, MAX_BATCH):
                self._changed.notify_all()

    def flush(self, timeout=None):
        """Wait until every outcome handed over so far is written; False on time-out."""
        with self._changed:
            return self._changed.wait_for(lambda: not self._waiting and not self._writing, timeout)

    def close(self, timeout=30.0):
        self.flush(timeout)
        with self._changed:
            self._closing = True
            self._changed.notify_all()

    def _run(self):
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._waiting or self._closing)
                if not self._waiting:
                    return
                self._changed.wait_for(lambda: len(self._waiting) >= MAX_BATCH or self._closing, LINGER)
                batch, self._waiting = self._waiting[:MAX_BATCH], self._waiting[MAX_BATCH:]
                self._writing = True
            try:
                self._write(batch)
            finally:
                with self._changed:
                    self._writing = False
                    self._changed.notify_all()

    def _write(self, batch):
        delay = RETRY_DELAY
        while True:
            try:
                with self.engine.begin() as transaction:
                    recorded = record_outcomes(transaction, batch)
                break
            except Exception:
                log.exception("could not record %d webhook outcomes; trying again in %.2f s", len(batch), delay)
                if self._closing:
                    return  # the process is ending: the sweep closes these deliveries
                time.sleep(delay)
                delay = min(delay * 2, MAX_RETRY_DELAY)
        try:
            recorded.log()  # once committed: a batch written again is logged once
        except Exception:
            log.exception("could not log %d webhook outcomes", len(batch))
