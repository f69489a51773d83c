"""How many database connections a process needs, and a pool that holds exactly that many.

A process serves with threads, and each kind of thread holds connections at the same time:

- a web thread keeps one connection between its requests (``thread_connections.py``) and may open one
  transaction of its own beside it while a request runs (an OAuth nonce or a storefront
  rate window committed whatever the request does next, the readiness probe);
- a task thread (the embedded consumer's or a standalone worker's) runs its task's transaction
  and keeps a webhook worker's connection, or runs a short transaction beside that one;
- one thread per process writes webhook outcomes, and start-up's checks use one.

A pool smaller than that stalls once every thread has done its work once: the thread that
asks for one connection more waits for a connection that no thread will give back. So the
pool is sized from what the process runs (``sqlalchemy.pool_size = auto``, the default): the
web server's threads, told by our server runners (``storeplatform.server``), and the task
threads. A pool size written in the ini is a ceiling the site owner chose (the database
server's connection limit, shared by every process): a process that needs more stops at
start-up with one line instead of stalling under load.

Whatever the reason a connection does not come (a server run by hand with more threads than
we were told, a database at its limit), a request waits ``sqlalchemy.pool_timeout`` seconds
at most and answers 503 with ``Retry-After`` (``rest/errors.py``).
"""
import logging

from sqlalchemy.exc import TimeoutError as NoConnection
from sqlalchemy.pool import QueuePool

from ..values import is_digits

PER_WEB_THREAD = 2
PER_TASK_THREAD = 2
PER_PROCESS = 2
# What a site assumes until a server runner tells its thread count (a WSGI server started
# some other way, tests calling the app in-process): waitress's and gunicorn's gthread
# counts as the README's configurations use them.
ASSUMED_WEB_THREADS = 8
AUTO = "auto"
# Seconds a request waits for a connection before it answers 503.
POOL_TIMEOUT = 3.0


class PoolTooSmall(Exception):
    """The pool the site owner set cannot serve the threads of this process."""


def connections_needed(web_threads, task_threads):
    return PER_WEB_THREAD * web_threads + PER_TASK_THREAD * task_threads + PER_PROCESS


class SitePool(QueuePool):
    """SQLAlchemy's QueuePool, with every connection it may open kept open once made
    (``max_overflow`` 0: an overflow connection is closed each time it is given back, a
    reconnection per request for the transactions of their own), and resizable before the
    process serves."""

    # What the site's metrics are told when they are on (the observability component's
    # ``observers.PoolObserver``): which pool changed after each checkout and check-in (rare: a
    # web thread keeps its connection; its size and checkouts are read once a second), and the
    # checkouts that waited or timed out.
    metrics = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # SQLAlchemy names a pool's logger after its class's module: ours would log its INFO
        # lines ("Pool recreating" in each gunicorn worker) as the platform's own.
        self.logger = logging.getLogger("sqlalchemy.pool.impl.QueuePool")

    def _do_get(self):
        metrics = SitePool.metrics
        if metrics is None:
            return super()._do_get()
        if -1 < self._max_overflow <= self._overflow and self._pool.empty():
            metrics.waited()  # no idle connection, and no more may be opened: it waits
        try:
            record = super()._do_get()
        except NoConnection as exc:
            if not getattr(exc, "_storeplatform_counted", False):  # once, however deep it was raised
                exc._storeplatform_counted = True
                metrics.timed_out()
            raise
        metrics.changed(self)
        return record

    def _return_conn(self, record):
        super()._return_conn(record)
        metrics = SitePool.metrics
        if metrics is not None:
            metrics.changed(self)

    def resize(self, size):
        """Hold ``size`` connections at most. Called at start-up, before any thread waits for
        a connection; connections checked out now stay counted."""
        with self._overflow_lock:
            grown = size - self._pool.maxsize
            self._pool.maxsize = size
            # _overflow counts the connections made beyond the pool's size (negative while
            # below it): a bigger pool leaves room for ``grown`` more.
            self._overflow -= grown
        if SitePool.metrics is not None:
            SitePool.metrics.changed(self)


def pool_settings(settings):
    """(size or AUTO, timeout) from ``sqlalchemy.pool_size`` and ``sqlalchemy.pool_timeout``;
    ValueError naming the key."""
    text = str(settings.get("sqlalchemy.pool_size") or AUTO).strip().lower()
    if text == AUTO:
        size = AUTO
    elif is_digits(text) and 1 <= int(text) <= 10_000:
        size = int(text)
    else:
        raise ValueError(f"sqlalchemy.pool_size must be auto or a whole number of at least 1, not {text!r}")
    timeout_text = str(settings.get("sqlalchemy.pool_timeout") or POOL_TIMEOUT).strip()
    try:
        timeout = float(timeout_text)
    except ValueError:
        timeout = -1.0
    if not 0 < timeout <= 300:
        raise ValueError(f"sqlalchemy.pool_timeout must be a number of seconds (0 to 300), not {timeout_text!r}")
    return size, timeout


def embedded_task_threads(settings):
    """Threads of the embedded consumer that run tasks in this process (0 without one)."""
    parsed = settings["storeplatform.parsed"]
    if not parsed["embedded_consumer"] or settings["huey.url"].startswith("memory://"):
        return 0
    return parsed["huey_workers"]


def fit_pool(registry, web_threads, task_threads=None):
    """Size the site's pool for a process serving with ``web_threads`` threads and
    ``task_threads`` task threads (by default the embedded consumer's); return the size. An
    owner's size that is too small raises ``PoolTooSmall`` with the line to print."""
    settings = registry.settings
    tasks = embedded_task_threads(settings) if task_threads is None else task_threads
    needed = connections_needed(web_threads, tasks)
    configured = settings["storeplatform.parsed"]["pool_size"]
    pool = registry["db.engine"].pool
    if configured == AUTO:
        pool.resize(needed)
        return needed
    if configured < needed:
        raise PoolTooSmall(
            f"sqlalchemy.pool_size is {configured}, but this process needs {needed} connections "
            f"({web_threads} server threads and {tasks} task threads, {PER_WEB_THREAD} each, and {PER_PROCESS} more): "
            f"set sqlalchemy.pool_size to at least {needed} (or auto), or run fewer threads")
    return configured


def initial_size(settings):
    """The pool's size when the engine is made: the owner's, or what the process needs with
    the assumed thread count (a server runner fits it to the real one)."""
    size = settings["storeplatform.parsed"]["pool_size"]
    return connections_needed(ASSUMED_WEB_THREADS, embedded_task_threads(settings)) if size == AUTO else size
