"""The HTTP connections deliveries are written on (urllib3 connection classes under requests).

Two things a plain connection does not do:

- it calls back, once per delivery, when the connection to the first hop is open and the
  request is about to be written: the worker takes the delivery then (pending -> sending), so
  a worker that dies before that moment leaves nothing half-done, and one that dies after it
  has attempted the delivery;
- it is not reused after it has been idle for ``IDLE_LIMIT``: a receiver closes idle keep-alive
  connections after a few seconds, and a request written into a connection the receiver is
  closing fails although the receiver is fine (a POST is never written twice).
"""
import contextlib
import threading
import time

from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

IDLE_LIMIT = 1.0

# The callback of the delivery this thread is sending (a thread sends one delivery at a time).
_current = threading.local()


class AttemptRefused(Exception):
    """The callback refused the attempt (another worker has the delivery, or its webhook is no
    longer active): nothing was written. Not a network error, so neither urllib3 nor requests
    catches it."""


@contextlib.contextmanager
def when_about_to_write(callback):
    """Call ``callback()`` once, in this thread, when the first request sent inside the block
    is about to be written on an open connection; None calls nothing."""
    _current.callback = callback
    try:
        yield
    finally:
        _current.callback = None


class _CallbackMixin:
    _idle_since = None

    def request(self, method, url, body=None, headers=None, **kwargs):
        if self.sock is not None and self._idle_since is not None \
                and time.monotonic() - self._idle_since > IDLE_LIMIT:
            self.close()
        if self.sock is None:
            # Open it now (http.client would open it while writing), so that the callback runs
            # between "connected" and "first byte written". Errors are the usual ones.
            self.connect()
        self._idle_since = None
        callback = getattr(_current, "callback", None)
        if callback is not None:
            _current.callback = None  # redirect hops are the same attempt
            callback()
        return super().request(method, url, body=body, headers=headers, **kwargs)

    def getresponse(self):
        response = super().getresponse()
        self._idle_since = time.monotonic()
        return response


class CallbackHTTPConnection(_CallbackMixin, HTTPConnection):
    pass


class CallbackHTTPSConnection(_CallbackMixin, HTTPSConnection):
    pass


class CallbackHTTPConnectionPool(HTTPConnectionPool):
    ConnectionCls = CallbackHTTPConnection


class CallbackHTTPSConnectionPool(HTTPSConnectionPool):
    ConnectionCls = CallbackHTTPSConnection


POOL_CLASSES = {"http": CallbackHTTPConnectionPool, "https": CallbackHTTPSConnectionPool}
