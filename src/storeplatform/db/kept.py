"""A database connection kept by each web thread between its requests.

Taking a connection from the pool and giving it back is a tenth of a millisecond of Python per
request (SQLAlchemy's connection set-up and reset, the pool's bookkeeping, and for reads the
switch into and out of autocommit): more than the request's one statement. Each thread keeps
one connection for reads (autocommit on a database server) and one for writes, and binds each
request's session to it. A kept connection holds no transaction between requests (the session
commits or rolls back the one it began), so it holds no lock either.

A kept connection that rested longer than ``sqlalchemy.ping_after_idle`` is pinged, as the
pool pings one it hands out after rest; one that does not answer, was invalidated or was left in
a transaction goes back to the pool and the thread checks out another.
"""
import os
import threading
import time
import weakref

READ, WRITE = "read", "write"

# Forks of this process so far: a connection made before a fork is the parent's socket. Counted
# rather than compared by pid (getpid is a system call, on every request).
_forks = 0


def _forked():
    global _forks
    _forks += 1


os.register_at_fork(after_in_child=_forked)


class _Kept:
    """A thread's kept connection: given back to the pool when its thread ends (the thread's
    locals are dropped then) or when the site closes."""
    __slots__ = ("connection", "since", "fork", "__weakref__")

    def __init__(self, connection, since):
        self.connection, self.since, self.fork = connection, since, _forks

    def release(self):
        connection, self.connection = self.connection, None
        if connection is None or self.fork != _forks:
            return  # released already, or made before a fork: the parent's socket, never touched
        try:
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


class KeptConnections:
    def __init__(self, engine, rest, autocommit_reads):
        self.engine = engine
        self.rest = rest
        self.autocommit_reads = autocommit_reads
        self._local = threading.local()
        self._all = weakref.WeakSet()  # to give them back when the site closes

    def get(self, kind):
        """The calling thread's connection for ``kind`` (READ or WRITE)."""
        now = time.monotonic()
        kept = getattr(self._local, kind, None)
        if kept is not None:
            connection = kept.connection
            if kept.fork != _forks or connection is None or connection.invalidated or connection.closed or \
                    connection.in_transaction() or (now - kept.since > self.rest and not _answers(connection)):
                kept.release()
                kept = None
        if kept is None:
            connection = self.engine.connect()
            if kind == READ and self.autocommit_reads:
                connection.execution_options(isolation_level="AUTOCOMMIT")
            kept = _Kept(connection, now)
            setattr(self._local, kind, kept)
            self._all.add(kept)
        kept.since = now
        return kept.connection

    def close(self):
        """Give every kept connection back to the pool (a site shutting down, a test's end)."""
        for kept in list(self._all):
            kept.release()
        self._local = threading.local()
