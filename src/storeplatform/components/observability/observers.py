"""The host's own metrics (requests, the database pool, tasks) and the observers that feed them,
set on the kernel's observation points (``storeplatform.core.observe``) and on its pool
(``SitePool.metrics``) by the component's ``includeme``."""
import os
import threading

from storeplatform.core.metrics import counter, gauge, histogram

from . import instruments

# The route label of a request no route matched (an unknown path): never the path itself, so
# that the number of series stays bounded whatever clients send.
NO_ROUTE = "(none)"
_METHODS = {m: m for m in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")}
_STATUS_CLASSES = {n: f"{n}xx" for n in range(10)}
STATEMENT_BUCKETS = (0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89)
TASK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
# The kinds of process, the label of the pool's series: each process is one, from its start
# (``set_kind``: the app factory, ``storeplatform worker``).
KINDS = ("web", "worker")
_kind = "web"

REQUESTS = counter("http_requests", "Requests answered, by route name (the matched route's; (none) for no "
                   "route), method and status class.", ("route", "method", "status"))
REQUEST_SECONDS = histogram("http_request_duration_seconds", "Time to answer a request, by route name and "
                            "method, from the outermost tween (the access record's duration).", ("route", "method"))
REQUEST_STATEMENTS = histogram("http_request_db_statements", "Database statements a request ran (driver "
                               "statements and the site-state check included), by route name.", ("route",),
                               buckets=STATEMENT_BUCKETS)
POOL_SIZE = gauge("db_pool_size", "Database connections the processes' pools may hold, by kind of process "
                  "(web, worker); summed over the live processes.", ("process",))
POOL_CHECKED_OUT = gauge("db_pool_checked_out", "Database connections taken from the pools (a web thread "
                         "keeps one between its requests), by kind of process; summed over the live processes.",
                         ("process",))
POOL_WAITS = counter("db_pool_waits", "Checkouts that found no idle connection and none left to open, and "
                     "waited (up to sqlalchemy.pool_timeout), by kind of process.", ("process",))
POOL_TIMEOUTS = counter("db_pool_timeouts", "Checkouts that waited sqlalchemy.pool_timeout in vain (a "
                        "request answers 503 rest_unavailable), by kind of process.", ("process",))
TASK_RUNS = counter("task_runs", "Task runs by task name and outcome (ok, error).", ("task", "outcome"))
TASK_SECONDS = histogram("task_duration_seconds", "Time a task ran, by task name.", ("task",), buckets=TASK_BUCKETS)
TASK_WAIT_SECONDS = histogram("task_wait_seconds", "Time from enqueueing a task (after its transaction "
                              "committed) to the start of its run, by task name (periodic tasks not counted).",
                              ("task",), buckets=TASK_BUCKETS)

# Every series of a known label value exists, at 0, from the start: a dashboard's panel of the
# waits shows 0, not "No data", on a site that never waited.
for _name in KINDS:
    for _metric in (POOL_SIZE, POOL_CHECKED_OUT, POOL_WAITS, POOL_TIMEOUTS):
        _metric.labels(_name)


def set_kind(kind):
    """This process is a ``web`` or a ``worker`` process (the label of its pool's series)."""
    global _kind
    if kind not in KINDS:
        raise ValueError(f"a process is one of {KINDS}, not {kind!r}")
    _kind = kind


# --- requests ------------------------------------------------------------------------------------

class _Statements(threading.local):
    """Statements each thread ran since its last request ended."""
    count = 0


_statements = _Statements()


def count_statement(conn, cursor, statement, parameters, context, executemany):
    _statements.count += 1


def _forget_statements():
    _statements.count = 0  # the parent's start-up statements are no request's


os.register_at_fork(after_in_child=_forget_statements)


def request_observer():
    """``observe(request, status_code, seconds)`` for the access-log tween: one counter, one
    latency and one statement count per request, the children of each (route, method, status
    class) made once and kept (their number is bounded: route names and a few methods)."""
    children = {}
    statements = _statements
    methods, classes = _METHODS, _STATUS_CLASSES

    def observe(request, status, seconds):
        route = request.matched_route
        name = NO_ROUTE if route is None else route.name
        method = methods.get(request.method, "other")
        key = (name, method, status // 100)
        found = children.get(key)
        if found is None:
            found = children[key] = (
                REQUESTS.labels(name, method, classes.get(status // 100, "other")).inc,
                REQUEST_SECONDS.labels(name, method).observe, REQUEST_STATEMENTS.labels(name).observe)
        count, statements.count = statements.count, 0
        found[0]()
        found[1](seconds)
        found[2](count)

    return observe


# --- the pool ------------------------------------------------------------------------------------

class PoolObserver:
    """What ``SitePool`` tells (``storeplatform.core.db.pool``): which pool changed (after each
    checkout and check-in), and the checkouts that waited or timed out. The pool's size and
    checkouts are read at each flush and written under the kind the process is then: a
    standalone worker sizes its pool before it says it is one, and its pool must not count
    as a web process's."""

    pool = None

    def changed(self, pool):
        self.pool = pool

    def waited(self):
        POOL_WAITS.labels(_kind).inc()

    def timed_out(self):
        POOL_TIMEOUTS.labels(_kind).inc()

    def write_gauges(self):
        pool = self.pool
        if pool is None:
            return
        size, checked_out = pool.size(), pool.checkedout()
        for kind in KINDS:
            mine = kind == _kind
            POOL_SIZE.labels(kind).set(size if mine else 0)
            POOL_CHECKED_OUT.labels(kind).set(checked_out if mine else 0)


POOL = PoolObserver()
instruments.before_flush(POOL.write_gauges)


# --- tasks ---------------------------------------------------------------------------------------

def task_observer(name):
    """``observe(outcome, seconds, started_at, enqueued_at)`` for the runs of task ``name``
    (asked once per task when the tasks are bound: its series exist at 0 from then on)."""
    runs = {outcome: TASK_RUNS.labels(name, outcome).inc for outcome in ("ok", "error")}
    duration = TASK_SECONDS.labels(name)
    waited = TASK_WAIT_SECONDS.labels(name)

    def observe(outcome, seconds, started_at, enqueued_at):
        runs[outcome]()
        duration.observe(seconds)
        if enqueued_at is not None:
            waited.observe(max(0.0, started_at - enqueued_at))

    return observe
