"""Metrics for Prometheus, with ``prometheus_client``: the host owns the registry, declares its
own metrics (requests, database, queue) and gives plugins ``counter`` and ``histogram``
(``storeplatform.api``), named ``storeplatform_<name>`` and declared once per process, and the
config directive ``config.add_scrape_gauge`` for values read when the metrics are scraped.

``GET /metrics`` answers them in Prometheus's text format, to the addresses in
``storeplatform.metrics_allow`` (the direct peer of the connection) or to the bearer token
``storeplatform.metrics_token``, to nobody else (the host's error body, 401 or 403).

Across processes: with ``storeplatform.metrics_dir`` every process of the site on a machine (the
gunicorn workers, ``storeplatform worker``) writes its values to files there
(prometheus_client's multiprocess mode) and a scrape, answered by any one web process, sums
them. A process switches to it when it starts serving (``start_process``: the app factory
``main`` and the worker command), whatever it declared before: values made in memory are made
again in files. The gunicorn runner (``storeplatform.server``) clears the files of processes
that are gone when its master starts and those of each worker's gauges when it exits.

Batches: what a request or a task observes is added up in plain numbers of its process (a lock
and an addition: a fraction of a microsecond) and written to prometheus_client's values (in
multiprocess mode, a locked write to a mapped file for each counter, bucket and sum: ~1 us each,
5 per request) every ``FLUSH_SECONDS`` by a thread of the process, before each scrape that
process answers, and at its exit. A scrape answered by one process sees another's observations
up to ``FLUSH_SECONDS`` late; what a process killed outright observed in its last second is lost.
"""
import glob
import hmac
import ipaddress
import logging
import atexit
import os
import re
import threading
import time
from bisect import bisect_left

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client import disable_created_metrics
from prometheus_client import values as prometheus_values
from prometheus_client.context_managers import Timer
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from pyramid.response import Response

from storeplatform.core.settings import SettingsSection, strict_bool
from storeplatform.core.observe import REQUEST, TASK
from storeplatform.core.errors import AUTHENTICATION_FAILED, FORBIDDEN, NOT_LOGGED_IN

log = logging.getLogger(__name__)

PREFIX = "storeplatform_"
PATH = "/metrics"
# Prometheus's text format 0.0.4, what ``generate_latest`` writes and every Prometheus reads.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# The route label of a request no route matched (an unknown path): never the path itself, so
# that the number of series stays bounded whatever clients send.
NO_ROUTE = "(none)"
_NAME = re.compile(r"[a-z][a-z0-9_]*")
_METHODS = {m: m for m in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")}
_STATUS_CLASSES = {n: f"{n}xx" for n in range(10)}
# Seconds: from a cached answer (~1 ms) to a PDF regeneration under load.
LATENCY_BUCKETS = (0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
STATEMENT_BUCKETS = (0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89)
TASK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
FLUSH_SECONDS = 1.0

disable_created_metrics()  # the *_created series: one more series per child, read by nobody here

# The values of this process when it writes no directory (tests, a single waitress process).
REGISTRY = CollectorRegistry(auto_describe=True)
_declared = {}  # full name -> (class, labels, options, metric)
_lock = threading.Lock()
_directory = None  # where this process writes its values (multiprocess mode), once chosen
_kind = "web"  # the label of this process's pool gauges: web or worker


# --- declaring -----------------------------------------------------------------------------------

def counter(name, documentation, labels=()):
    """A counter named ``storeplatform_<name>`` (``_total`` is added on exposition), declared
    once per process: declaring it again with the same labels returns the same counter.
    ``labels(*values).inc(amount=1)``, or ``inc`` when it has no labels. Label values must come
    from a small fixed set (never an id, a path or user input): each combination is a series
    kept for ever."""
    return _declare(Counter, name, documentation, labels)


def histogram(name, documentation, labels=(), buckets=LATENCY_BUCKETS):
    """A histogram named ``storeplatform_<name>``, declared once per process
    (``labels(*values).observe(seconds)`` or ``.time()``); ``buckets``: upper bounds, in the
    unit observed."""
    return _declare(Histogram, name, documentation, labels, buckets=tuple(buckets))


def gauge(name, documentation, labels=()):
    """A gauge of this process (the host's pool): across processes, the sum over the live ones."""
    return _declare(Gauge, name, documentation, labels, multiprocess_mode="livesum")


def _declare(kind, name, documentation, labels, **options):
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name.startswith(PREFIX):
        raise ValueError(f"a metric name is lower-case letters, digits and _, without the {PREFIX} prefix "
                         f"(the host adds it), not {name!r}")
    full = PREFIX + name
    labels = tuple(labels)
    with _lock:
        found = _declared.get(full)
        if found is not None:
            if found[:3] == (kind, labels, options):
                return found[3]
            raise ValueError(f"metric {full} is declared twice, differently: {found[0].__name__}{found[1]} "
                             f"and {kind.__name__}{labels}")
        metric = Batched(kind(full, documentation, labels, registry=REGISTRY, **options), _CHILDREN[kind])
        _declared[full] = (kind, labels, options, metric)
    return metric


# --- batches -------------------------------------------------------------------------------------

class Batched:
    """A metric as this process observes it: ``labels(*values)`` gives a child that adds up its
    observations and writes them to the prometheus_client child in batches (``flush``). The
    children are kept per label values, so a hot path may call ``labels`` each time."""

    __slots__ = ("metric", "_child_class", "_children")

    def __init__(self, metric, child_class):
        self.metric, self._child_class, self._children = metric, child_class, {}

    def labels(self, *values, **named):
        if named:
            try:
                values = tuple(named[label] for label in self.metric._labelnames)
            except KeyError:
                raise ValueError(f"labels of {self.metric._name}: {self.metric._labelnames}, not {sorted(named)}")
        child = self._children.get(values)
        if child is None:
            with _lock:
                child = self._children.get(values)
                if child is None:
                    target = self.metric.labels(*values) if values or self.metric._labelnames else self.metric
                    child = self._children[values] = self._child_class(target)
                    _batched.append(child)
        return child

    # A metric without labels is its own only child.
    def inc(self, amount=1):
        self.labels().inc(amount)

    def set(self, value):
        self.labels().set(value)

    def observe(self, amount):
        self.labels().observe(amount)

    def time(self):
        return Timer(self, "observe")


class _CounterChild:
    __slots__ = ("target", "lock", "pending")

    def __init__(self, target):
        self.target, self.lock, self.pending = target, threading.Lock(), 0

    def inc(self, amount=1):
        if amount < 0:
            raise ValueError("a counter is only increased, by a number >= 0")
        with self.lock:
            self.pending += amount

    def write(self):
        with self.lock:
            pending, self.pending = self.pending, 0
        if pending:
            self.target.inc(pending)

    def forget(self):
        self.lock = threading.Lock()
        self.pending = 0


class _GaugeChild:
    """The last value set is written (a gauge says a state, not a sum of what happened)."""

    __slots__ = ("target", "value", "written")

    def __init__(self, target):
        self.target, self.value, self.written = target, None, None

    def set(self, value):
        self.value = value

    def write(self):
        value = self.value
        if value is not None and value != self.written:
            self.target.set(value)
            self.written = value

    def forget(self):
        self.written = None  # the value is the state still: written again to the new values


class _HistogramChild:
    """Adds up the observations per bucket and their sum, and writes them into the
    prometheus_client child's bucket and sum values (what its ``observe`` writes one at a
    time; tests/host/test_metrics.py checks that both expose the same)."""

    __slots__ = ("target", "bounds", "lock", "counts", "sum")

    def __init__(self, target):
        self.target, self.bounds, self.lock = target, tuple(target._upper_bounds), threading.Lock()
        if len(target._buckets) != len(self.bounds):
            raise RuntimeError("prometheus_client's Histogram no longer keeps one value per bucket")
        self.counts, self.sum = [0] * len(self.bounds), 0.0

    def observe(self, amount):
        index = bisect_left(self.bounds, amount)  # the first bucket with amount <= its bound
        with self.lock:
            self.sum += amount
            if index < len(self.counts):  # NaN is in no bucket, as prometheus_client has it
                self.counts[index] += 1

    def time(self):
        return Timer(self, "observe")

    def write(self):
        with self.lock:
            counts, total = self.counts, self.sum
            if not total and not any(counts):
                return
            self.counts, self.sum = [0] * len(counts), 0.0
        target = self.target
        target._sum.inc(total)
        for index, count in enumerate(counts):
            if count:
                target._buckets[index].inc(count)

    def forget(self):
        self.lock = threading.Lock()
        self.counts, self.sum = [0] * len(self.bounds), 0.0


_CHILDREN = {Counter: _CounterChild, Gauge: _GaugeChild, Histogram: _HistogramChild}
_batched = []  # every child of this process, to write
_flush_lock = threading.Lock()
_flusher = None  # the thread writing the batches of this process, once started


def flush():
    """Write what this process observed since the last flush into the values a scrape reads."""
    with _flush_lock:
        for child in list(_batched):
            try:
                child.write()
            except Exception:  # a full disk under the directory: the next flush tries again
                log.exception("metrics: writing %r failed", child.target)


def _flush_forever():
    while True:
        time.sleep(FLUSH_SECONDS)
        flush()


def _start_flushing():
    global _flusher
    with _lock:
        if _flusher is not None:
            return
        _flusher = threading.Thread(target=_flush_forever, name="storeplatform-metrics", daemon=True)
        _flusher.start()
        atexit.register(flush)


def _forget_batches():
    # A forked child: its parent's unwritten observations are the parent's to write, and a lock
    # the parent's flusher held at the fork would stay held here.
    global _flusher, _flush_lock
    _flusher, _flush_lock = None, threading.Lock()
    for child in _batched:
        child.forget()


os.register_at_fork(after_in_child=_forget_batches)


# --- the host's own metrics ----------------------------------------------------------------------

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
SCRAPE_ERRORS = counter("metrics_scrape_errors", "Values read at scrape time that could not be read (the "
                        "database or the queue did not answer), by gauge.", ("gauge",))


# --- settings ------------------------------------------------------------------------------------

class MetricsSettings:
    """The parsed ``storeplatform.metrics*`` keys."""

    __slots__ = ("enabled", "allow", "token", "directory")

    def __init__(self, enabled=False, allow=(), token="", directory=None):
        self.enabled, self.allow, self.token, self.directory = enabled, allow, token, directory


def _parse_settings(settings):
    return metrics_settings(settings, strict_bool(settings, "storeplatform.metrics"))


def metrics_settings(settings, enabled):
    """MetricsSettings from the settings (``enabled``: ``storeplatform.metrics`` parsed);
    ValueError naming the key of a bad value."""
    networks = []
    for item in str(settings.get("storeplatform.metrics_allow") or "").replace(",", " ").split():
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"storeplatform.metrics_allow: {item!r} is not an IP address or network")
    token = str(settings.get("storeplatform.metrics_token") or "").strip()
    if token and (len(token) < 16 or not all(33 <= ord(c) < 127 for c in token)):
        raise ValueError("storeplatform.metrics_token must be at least 16 printable ASCII characters without "
                         "spaces (e.g. python3 -c 'import secrets; print(secrets.token_urlsafe(32))')")
    directory = str(settings.get("storeplatform.metrics_dir") or "").strip() or None
    if directory is not None:
        directory = os.path.abspath(directory)
        if enabled:
            try:
                os.makedirs(directory, exist_ok=True)
            except OSError as exc:
                raise ValueError(f"storeplatform.metrics_dir: cannot make {directory}: {exc.strerror}")
            if not os.access(directory, os.W_OK | os.X_OK):
                raise ValueError(f"storeplatform.metrics_dir: {directory} is not writable")
    return MetricsSettings(enabled, tuple(networks), token, directory)


SETTINGS = SettingsSection(
    "metrics", _parse_settings,
    defaults={"storeplatform.metrics": "false", "storeplatform.metrics_allow": "", "storeplatform.metrics_token": "",
              "storeplatform.metrics_dir": ""},
    environ={"STOREPLATFORM_METRICS_TOKEN": "storeplatform.metrics_token",
             "STOREPLATFORM_METRICS_DIR": "storeplatform.metrics_dir"})


def settings_of(registry):
    return registry.settings["storeplatform.parsed"]["metrics"]


# --- across processes ----------------------------------------------------------------------------

_pid = os.getpid()


def _process_id():
    """This process's id, kept (prometheus_client asks for it on every value it writes; getpid
    is a system call) and renewed in a forked child."""
    return _pid


def _forked():
    global _pid
    _pid = os.getpid()


os.register_at_fork(after_in_child=_forked)


def directory():
    """The directory this process writes its values to, or None (its values are in memory)."""
    return _directory


def start_process(registry, kind="web"):
    """A process of the site starts serving (the app factory, ``storeplatform worker``): with
    ``storeplatform.metrics_dir`` its values go to files there from now on."""
    global _kind
    metrics = settings_of(registry)
    if not metrics.enabled:
        return
    _kind = kind
    if metrics.directory is not None:
        write_to_directory(metrics.directory)
    _start_flushing()


def write_to_directory(path):
    """From now on the values of this process are files in ``path`` (prometheus_client's
    multiprocess mode, ``PROMETHEUS_MULTIPROC_DIR``, inherited by the processes it forks); the
    metrics declared so far are made again there (what they counted before is dropped: a
    process switches before it serves). A process writes one directory."""
    global _directory
    path = os.path.abspath(path)
    with _lock:
        if _directory == path:
            return
        if _directory is not None:
            raise ValueError(f"this process writes its metrics to {_directory} already, not {path}")
        os.makedirs(path, exist_ok=True)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = path
        prometheus_values.ValueClass = prometheus_values.MultiProcessValue(process_identifier=_process_id)
        _directory = path
        for _, _, _, batched in _declared.values():
            _made_again(batched.metric)
        for child in _batched:
            child.forget()


def _made_again(metric):
    """The values of ``metric`` and of each of its children (kept by their callers) made again
    with the value class now in use: the objects stay, their values move."""
    if metric._labelnames:
        with metric._lock:
            children = list(metric._metrics.values())
        for child in children:
            child._metric_init()
    else:
        metric._metric_init()


def _pid_of(filename):
    """The process id in a value file's name (``counter_123.db``, ``gauge_livesum_123.db``)."""
    stem = os.path.basename(filename)[:-len(".db")]
    tail = stem.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else None


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def clean_directory(path, own_gauges=True):
    """At a gunicorn master's start: remove the files of processes that are gone (a previous
    run's, killed workers'), keep those of live ones (a ``storeplatform worker`` started first),
    and with ``own_gauges`` this process's gauges (it serves nothing: its pool is not a web
    process's). Returns the files removed."""
    removed = []
    for filename in glob.glob(os.path.join(path, "*.db")):
        pid = _pid_of(filename)
        if pid is None or (pid != os.getpid() and not _alive(pid)):
            try:
                os.remove(filename)
                removed.append(filename)
            except FileNotFoundError:
                pass
    if own_gauges:
        mark_process_dead(os.getpid(), path)
    return removed


def process_exited(pid, path=None):
    """A process of the site ended (a gunicorn worker, from the master's ``child_exit``; the
    worker command at exit): its gauges leave the sums; its counters stay counted until the next
    start of the master (they must not go backwards while it runs)."""
    path = path or _directory
    if path is not None:
        mark_process_dead(pid, path)


# --- observing -----------------------------------------------------------------------------------

class _Statements(threading.local):
    """Statements each thread ran since its last request ended."""
    count = 0


_statements = _Statements()


def _count_statement(conn, cursor, statement, parameters, context, executemany):
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


class PoolObserver:
    """What ``SitePool`` tells (``storeplatform.core.db.pool``): its state after each checkout and
    check-in, and the checkouts that waited or timed out."""

    def changed(self, pool):
        POOL_SIZE.labels(_kind).set(pool.size())
        POOL_CHECKED_OUT.labels(_kind).set(pool.checkedout())

    def waited(self):
        POOL_WAITS.labels(_kind).inc()

    def timed_out(self):
        POOL_TIMEOUTS.labels(_kind).inc()


def task_observer(registry, name):
    """``observe(outcome, seconds, enqueued_at)`` for the runs of task ``name``, or None when the
    site's metrics are off."""
    if not settings_of(registry).enabled:
        return None
    runs = {outcome: TASK_RUNS.labels(name, outcome).inc for outcome in ("ok", "error")}
    duration = TASK_SECONDS.labels(name)
    waited = TASK_WAIT_SECONDS.labels(name)

    def observe(outcome, seconds, started_at, enqueued_at):
        runs[outcome]()
        duration.observe(seconds)
        if enqueued_at is not None:
            waited.observe(max(0.0, started_at - enqueued_at))

    return observe


# --- scraping ------------------------------------------------------------------------------------

def add_scrape_gauge(config, name, documentation, read, labels=()):
    """Config directive: a gauge ``storeplatform_<name>`` whose value is read when the metrics
    are scraped, by the process that answers the scrape: ``read(registry)`` returns a number, or
    ``{label values (a tuple): number}``. For what is the site's, not a process's (rows waiting
    in a table, the queue's length): read once per scrape, nothing done per request. A read that
    fails is left out of that scrape (logged, counted in ``storeplatform_metrics_scrape_errors``)."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name.startswith(PREFIX):
        raise ValueError(f"a metric name is lower-case letters, digits and _, without the {PREFIX} prefix, "
                         f"not {name!r}")
    gauges = config.registry.setdefault("metrics.scrape_gauges", {})
    full = PREFIX + name
    if full in gauges or full in _declared:
        raise ValueError(f"metric {full} is declared twice")
    gauges[full] = (documentation, tuple(labels), read)


class _AtScrape:
    def __init__(self, registry):
        self.registry = registry

    def collect(self):
        for name, (documentation, labels, read) in sorted(self.registry.get("metrics.scrape_gauges", {}).items()):
            try:
                value = read(self.registry)
                family = GaugeMetricFamily(name, documentation, labels=labels)
                if isinstance(value, dict):
                    for label_values, number in sorted(value.items()):
                        family.add_metric([str(v) for v in label_values], float(number))
                else:
                    family.add_metric([], float(value))
            except Exception as exc:
                log.warning("metrics: %s could not be read: %s: %s", name, exc.__class__.__name__, exc)
                SCRAPE_ERRORS.labels(name).inc()
                continue
            yield family


class _InMemory:
    def collect(self):
        return REGISTRY.collect()


def exposition(registry):
    """The site's metrics in Prometheus's text format: every process's values (the directory's
    files, or this process's) and the values read now."""
    at_scrape = CollectorRegistry(auto_describe=False)
    at_scrape.register(_AtScrape(registry))
    text = generate_latest(at_scrape)  # first: a failed read counts in this scrape
    flush()
    values = CollectorRegistry(auto_describe=False)
    if _directory is not None:
        MultiProcessCollector(values, _directory)
    else:
        values.register(_InMemory())
    return generate_latest(values) + text


def allowed(request, metrics, trusted_proxies):
    """Raise the error to answer unless the caller may read the metrics: its address is one of
    ``storeplatform.metrics_allow`` or it sends the bearer token ``storeplatform.metrics_token``.

    The address is the connection's peer (``REMOTE_ADDR``), never ``X-Forwarded-For``, which
    anyone may write. A peer that is a trusted proxy and forwards a request for someone else
    (it sends ``X-Forwarded-For`` or ``Forwarded``) is not let in by its address: whoever is
    behind the proxy would be."""
    peer = request.remote_addr
    if metrics.allow and peer:
        try:
            ip = ipaddress.ip_address(peer)
        except ValueError:
            ip = None
        if ip is not None and any(ip in network for network in metrics.allow):
            forwarded = "X-Forwarded-For" in request.headers or "Forwarded" in request.headers
            if not (forwarded and any(ip in network for network in trusted_proxies)):
                return
    if metrics.token:
        challenge = {"WWW-Authenticate": 'Bearer realm="metrics"'}
        header = request.headers.get("Authorization", "")
        if not header:
            raise NOT_LOGGED_IN("A bearer token is required to read the metrics.", headers=challenge)
        scheme, _, given = header.partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), metrics.token.encode()):
            return
        raise AUTHENTICATION_FAILED("The bearer token is not the metrics token.", headers=challenge)
    raise FORBIDDEN("The metrics are served only to the addresses the site's configuration allows.")


def metrics_view(request):
    registry = request.registry
    parsed = registry.settings["storeplatform.parsed"]
    allowed(request, parsed["metrics"], parsed["trusted_proxies"])
    response = Response(body=exposition(registry))
    response.headers["Content-Type"] = CONTENT_TYPE
    response.headers["Cache-Control"] = "no-store"
    return response


def _pending_tasks(registry):
    return registry["queue.huey"].pending_count()


def includeme(config):
    config.add_directive("add_scrape_gauge", add_scrape_gauge)
    registry = config.registry
    if not settings_of(registry).enabled:
        return
    from sqlalchemy import event

    from storeplatform.core.db.pool import SitePool

    config.add_route("metrics", PATH, request_method="GET")
    config.add_view(metrics_view, route_name="metrics")
    event.listen(registry["db.engine"], "before_cursor_execute", _count_statement)
    SitePool.metrics = PoolObserver()
    registry[REQUEST] = request_observer()
    registry[TASK] = lambda name: task_observer(registry, name)
    config.add_scrape_gauge("tasks_pending", "Tasks waiting in the queue, not yet taken by a worker (Huey's "
                            "pending count).", _pending_tasks)
