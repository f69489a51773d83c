"""The background task queue: Huey chosen by ``huey.url``; tasks declared by plugins through
hooks, bound to the configured Huey at start-up; enqueued only after the transaction commits.

The database row is the record of work to do; Huey is only the transport. Tasks take ids
and return nothing.
"""
import atexit
import contextlib
import logging
import os
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass

from huey import MemoryHuey, RedisHuey, SqliteHuey
from huey.consumer import Consumer

from .db.session import site_transaction
from .logs import request_id_var
from .observe import TASK, TASK_TRACE
from .private_files import keep_private

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Periodic:
    name: str
    schedule: Callable  # huey.crontab(...)
    function: Callable
    # Also run once when a consumer starts, before it takes tasks (a sweep of what a stopped
    # worker left behind need not wait for its schedule).
    at_start: bool = False


class TaskContext:
    """What a task body gets: the registry, settings, a session in its own transaction, and
    ``inline``: True when the task runs in the process that queued it, right after the commit
    (``memory://`` queues), so work it would leave to a background thread is done before it
    returns.

    The session (and ``tm``) is opened when the task first uses it: a task that makes
    transactions of its own, or finds nothing to do, pays nothing for it."""

    def __init__(self, registry, transactions):
        self.registry = registry
        self.settings = registry.settings
        self.inline = registry["queue.huey"].immediate
        self._transactions = transactions
        self._session = None

    @property
    def session(self):
        if self._session is None:
            self._session = self._transactions.enter_context(site_transaction(self.registry))
        return self._session

    @property
    def tm(self):
        return self.session.info["tm"]


class _NeverRevoked:
    """Huey checks each task against revocation keys before running it and clears its key
    after: two round trips to the queue's store per task. The platform never revokes a task
    (the database row is the record of work; a task that finds nothing to do returns), so
    both are skipped."""

    def is_revoked(self, task, timestamp=None, peek=True):
        return False

    def delete(self, key):
        if key.startswith("r:"):  # a task's revocation key (huey's Task.revoke_id)
            return False
        return super().delete(key)


class PlatformSqliteHuey(_NeverRevoked, SqliteHuey):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The storage keeps one SQLite connection, opened by start-up's readiness check in the
        # process gunicorn forks its workers from; a child opens its own (SQLite connections must
        # not cross a fork). Redis connections check the process id themselves.
        ref = weakref.ref(self.storage)

        def in_child():
            storage = ref()
            if storage is not None:
                storage._conn = None
        os.register_at_fork(after_in_child=in_child)


class PlatformRedisHuey(_NeverRevoked, RedisHuey):
    pass


def make_huey(settings):
    url = settings["huey.url"]
    name = settings["huey.name"]
    common = {"results": False, "utc": True}
    if url.startswith("memory://"):
        return MemoryHuey(name, immediate=True, **common)
    if url.startswith("sqlite:///"):
        filename = url[len("sqlite:///"):]
        keep_private(filename)
        return PlatformSqliteHuey(name, filename=filename, **common)
    if url.startswith(("redis://", "rediss://", "unix://")):
        return PlatformRedisHuey(name, url=url, **common)
    raise ValueError(f"huey.url must start with memory://, sqlite:/// or redis://, not {url!r}")


def run_in_transaction(registry, function, *args):
    """Run ``function(ctx, *args)`` in a transaction of its own; commit, or abort on error."""
    with contextlib.ExitStack() as transactions:
        return function(TaskContext(registry, transactions), *args)


def bind_tasks(registry, huey):
    """Register every declared task and periodic task with ``huey``; return {name: huey task}.
    The periodic tasks to run when a consumer starts are kept for ``run_start_tasks``."""
    pm = registry["plugins"]
    tasks = {}
    registry["queue.start_tasks"] = start_tasks = []
    for declared in pm.hook.storeplatform_tasks():
        for name, function in (declared or {}).items():
            if name in tasks:
                raise ValueError(f"task {name} is declared twice")
            tasks[name] = huey.task(name=name)(_task_runner(registry, name, function))
    for declared in pm.hook.storeplatform_periodic_tasks():
        for periodic in declared or ():
            if periodic.name in tasks:
                raise ValueError(f"task {periodic.name} is declared twice")
            tasks[periodic.name] = huey.periodic_task(periodic.schedule, name=periodic.name)(
                _task_runner(registry, periodic.name, periodic.function))
            if periodic.at_start:
                start_tasks.append(periodic)
    return tasks


def run_start_tasks(registry):
    """Run the periodic tasks declared ``at_start`` once, here and now (a consumer starting);
    a failure is logged and does not stop the consumer."""
    for periodic in registry.get("queue.start_tasks", ()):
        try:
            run_in_transaction(registry, periodic.function)
        except Exception:
            log.exception("start-up run of task %s failed", periodic.name)


def _task_runner(registry, name, function):
    observer, tracer = registry.get(TASK), registry.get(TASK_TRACE)
    observe = observer(name) if observer is not None else None

    def run(*args, request_id=None, enqueued=None, trace=None):
        # The id of the request that enqueued the task: its log records carry it too.
        # ``enqueued``: when it was sent (time.time(), for the metrics' wait); ``trace``: the
        # enqueuing span's W3C context (traces).
        token = request_id_var.set(request_id) if request_id else None
        started, began, outcome = time.time(), time.perf_counter(), "error"
        try:
            if tracer is not None:
                with tracer.span(name, trace, request_id):
                    run_in_transaction(registry, function, *args)
            else:
                run_in_transaction(registry, function, *args)
            outcome = "ok"
        except Exception:
            log.exception("task %s%r failed", name, args)
            raise
        finally:
            if observe is not None:
                observe(outcome, time.perf_counter() - began, started, enqueued)
            if token is not None:
                request_id_var.reset(token)

    run.__name__ = name.replace(".", "_")
    return run


def enqueue_after_commit(session, name, *args):
    """Send task ``name`` with ``args`` once the session's transaction has committed; nothing
    is sent if it aborts. A worker therefore never sees an id whose row is not committed. A
    session without a transaction manager (a read-only request's on PostgreSQL) writes nothing
    to wait for: the task is sent at once."""
    registry = session.info["registry"]
    task = registry["queue.tasks"][name]  # KeyError early: an unknown task is a bug
    manager = session.info.get("tm")
    if manager is None:  # a read-only request's session (no transaction of its own): nothing to wait for
        return enqueue_now(registry, name, *args)
    txn = manager.get()
    kwargs = _task_kwargs(registry)

    def send(committed):
        if committed:
            if "enqueued" in kwargs:
                kwargs["enqueued"] = time.time()
            try:
                task(*args, **kwargs)
            except Exception:
                log.exception("could not enqueue task %s%r after commit", name, args)

    txn.addAfterCommitHook(send)


def enqueue_now(registry, name, *args):
    """Send a task at once (for callers outside a transaction, such as the CLI)."""
    return registry["queue.tasks"][name](*args, **_task_kwargs(registry, time.time()))


def _task_kwargs(registry, enqueued=0.0):
    """What travels with a task besides its arguments: the request id, and when the site's
    tasks are observed or traced, the time it is sent and the enqueuing span's context."""
    kwargs = {}
    request_id = request_id_var.get()
    if request_id:
        kwargs["request_id"] = request_id
    if registry.get(TASK) is not None:
        kwargs["enqueued"] = enqueued
    tracer = registry.get(TASK_TRACE)
    if tracer is not None:
        carrier = tracer.carrier()
        if carrier:
            kwargs["trace"] = carrier
    return kwargs


class EmbeddedConsumer(Consumer):
    """A consumer that lives in the web process: it must not install signal handlers (they
    would swallow the server's SIGTERM, and only work on the main thread)."""

    def _set_signal_handlers(self):
        pass


def start_embedded_consumer(registry):
    huey = registry["queue.huey"]
    if huey.immediate:
        return None
    workers = registry.settings["storeplatform.parsed"]["huey_workers"]
    consumer = EmbeddedConsumer(huey, workers=workers, worker_type="thread",
                                periodic=True, check_worker_health=False)
    run_start_tasks(registry)
    consumer.start()
    registry["queue.consumer"] = consumer
    atexit.register(stop_consumer, consumer)
    return consumer


def stop_consumer(consumer):
    if not consumer.stop_flag.is_set():
        consumer.stop(graceful=True)


def includeme(config):
    registry = config.registry
    huey = make_huey(registry.settings)
    registry["queue.huey"] = huey
    registry["queue.tasks"] = bind_tasks(registry, huey)
