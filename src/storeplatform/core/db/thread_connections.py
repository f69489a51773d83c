"""The database connection each web thread keeps between its requests.

Taking a connection from the pool and giving it back is a tenth of a millisecond of Python per
request (SQLAlchemy's connection set-up and reset, the pool's bookkeeping): more than the
request's one statement. Each thread keeps one connection and binds each request's session to
it, for reads and writes alike. On a database server, reads run without a transaction (each
statement commits itself): the thread switches the driver's autocommit flag when a read follows
a write or the other way round, which sends nothing to the server. A thread's connection holds no
transaction between requests (the session commits or rolls back the one it began), so it
holds no lock either, and one per thread is what the pool is sized for (``pool.py``).

A thread's connection that rested longer than ``sqlalchemy.ping_after_idle`` is pinged, as the
pool pings one it hands out after rest; one that does not answer, was invalidated or was left in
a transaction goes back to the pool and the thread checks out another.
"""
import os
import threading
import time
import weakref

# Forks of this process so far: a connection made before a fork is the parent's socket. Counted
# rather than compared by pid (getpid is a system call, on every request).
_forks = 0


def _forked():
    global _forks
    _forks += 1


os.register_at_fork(after_in_child=_forked)


class _Kept:
    """A thread's connection: given back to the pool when its thread ends (the thread's
    locals are dropped then) or when the site closes."""
    __slots__ = ("connection", "since", "fork", "autocommit", "__weakref__")

    def __init__(self, connection, since):
        self.connection, self.since, self.fork = connection, since, _forks
        self.autocommit = False  # as the pool hands connections out

    def set_autocommit(self, on):
        """The driver's autocommit flag (psycopg keeps it on the client: no round trip)."""
        self.connection.connection.dbapi_connection.autocommit = on
        self.autocommit = on

    def release(self):
        connection, self.connection = self.connection, None
        if connection is None or self.fork != _forks:
            return  # released already, or made before a fork: the parent's socket, never touched
        try:
            if self.autocommit and not connection.invalidated:
                # The pool's next borrower expects transactions.
                connection.connection.dbapi_connection.autocommit = False
            connection.close()  # back to the pool (rolled back there if need be)
        except Exception:
            pass

    __del__ = release


def _answers(connection):
    """The ping the pool gives a connection that rested (the server may have gone away)."""
    try:
        connection.dialect.do_ping(connection.connection.dbapi_connection)
        return True
    except Exception:
        connection.invalidate()
        return False


class ThreadConnections:
    def __init__(self, engine, rest, autocommit_reads):
        self.engine = engine
        self.rest = rest
        self.autocommit_reads = autocommit_reads
        self._local = threading.local()
        self._all = weakref.WeakSet()  # to give them back when the site closes

    def get(self, read):
        """The calling thread's connection, ready for a request that reads only (``read``:
        autocommit on a database server) or writes (transactions)."""
        now = time.monotonic()
        kept = getattr(self._local, "kept", None)
        if kept is not None:
            connection = kept.connection
            if kept.fork != _forks or connection is None or connection.invalidated or connection.closed or \
                    connection.in_transaction() or (now - kept.since > self.rest and not _answers(connection)):
                kept.release()
                kept = None
        if kept is None:
            kept = self._local.kept = _Kept(self.engine.connect(), now)
            self._all.add(kept)
        kept.since = now
        if self.autocommit_reads and kept.autocommit != read:
            try:
                kept.set_autocommit(read)
            except Exception:  # the driver found a transaction open after all: a fresh one
                kept.release()
                kept = self._local.kept = _Kept(self.engine.connect(), now)
                self._all.add(kept)
                kept.set_autocommit(read)
        return kept.connection

    def close(self):
        """Give every thread's connection back to the pool (a site shutting down, a test's end)."""
        for kept in list(self._all):
            kept.release()
        self._local = threading.local()
