"""The Prometheus backend of the kernel's metrics (``storeplatform.core.metrics``): for each
metric declared, a prometheus_client Counter, Histogram or Gauge in ``REGISTRY``, and for each
child, what writes its batches into the prometheus_client child's values.

Batches: a child queues what it observes (an append: a fraction of a microsecond, no lock)
and ``flush`` writes the queues into prometheus_client's values (in multiprocess mode, a
locked write to a mapped file for each counter, bucket and sum: ~1 us each, 5 per request):
every ``FLUSH_SECONDS`` by a thread of the process, before each scrape that process answers,
and at its exit. A process that forks (a gunicorn master) hands the flushing to its children:
each starts a thread of its own after the fork. A scrape answered by one process sees
another's observations up to ``FLUSH_SECONDS`` late; what a process killed outright observed
in its last second is lost.
"""
import atexit
import logging
import os
import threading
from bisect import bisect_left

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics

from storeplatform.core import metrics as declared

log = logging.getLogger(__name__.rpartition(".")[0] + ".metrics")

FLUSH_SECONDS = 1.0

disable_created_metrics()  # the *_created series: one more series per child, read by nobody here

# The values of this process when it writes no directory (tests, a single waitress process).
REGISTRY = CollectorRegistry(auto_describe=True)


class _CounterWriter:
    __slots__ = ("target",)

    def __init__(self, target):
        self.target = target

    def write(self, child):
        total = sum(child.take())
        if total:
            self.target.inc(total)

    def forget(self, child):
        child.take()


class _HistogramWriter:
    """Counts a batch per bucket and adds the counts and the sum to the prometheus_client
    child's bucket and sum values (what its ``observe`` writes one at a time;
    tests/host/test_metrics.py checks that both expose the same)."""

    __slots__ = ("target", "bounds")

    def __init__(self, target):
        self.target, self.bounds = target, tuple(target._upper_bounds)
        if len(target._buckets) != len(self.bounds):
            raise RuntimeError("prometheus_client's Histogram no longer keeps one value per bucket")

    def write(self, child):
        amounts = child.take()
        if not amounts:
            return
        bounds, counts, total = self.bounds, [0] * len(self.bounds), 0.0
        for amount in amounts:
            total += amount
            if amount == amount:  # NaN is in no bucket (and makes the sum NaN), as prometheus_client has it
                counts[bisect_left(bounds, amount)] += 1  # the first bucket with amount <= its bound (+Inf last)
        target = self.target
        target._sum.inc(total)
        for index, count in enumerate(counts):
            if count:
                target._buckets[index].inc(count)

    def forget(self, child):
        child.take()


class _GaugeWriter:
    """Writes the last value set when it changed (a gauge says a state, not a sum of what happened)."""

    __slots__ = ("target", "written")

    def __init__(self, target):
        self.target, self.written = target, None

    def write(self, child):
        value = child.value
        if value is not None and value != self.written:
            self.target.set(value)
            self.written = value

    def forget(self, child):
        self.written = None  # the value is the state still: written again to the new values


_KINDS = {declared.COUNTER: (Counter, _CounterWriter, {}),
          declared.HISTOGRAM: (Histogram, _HistogramWriter, {}),
          declared.GAUGE: (Gauge, _GaugeWriter, {"multiprocess_mode": "livesum"})}


class PrometheusBackend:
    """What ``storeplatform.core.metrics.set_backend`` is given: prometheus_client's metrics for
    the declared ones, and the children to flush."""

    def __init__(self):
        self.metrics = {}  # full name -> prometheus_client metric
        self.children = []  # every child of this process, to write

    def bind(self, metric):
        kind, _, options = _KINDS[metric.kind]
        if metric.kind == declared.HISTOGRAM:
            options = {"buckets": metric.buckets}
        self.metrics[metric.name] = kind(metric.name, metric.documentation, metric.labelnames, registry=REGISTRY,
                                         **options)

    def bind_child(self, metric, child):
        parent = self.metrics[metric.name]
        target = parent.labels(*child.label_values) if metric.labelnames else parent
        child.bound = _KINDS[metric.kind][1](target)
        self.children.append(child)


BACKEND = PrometheusBackend()
_before_flush = []  # functions that set gauges from a state read at flush time (the pool's)
_flush_lock = threading.Lock()
_state_lock = threading.Lock()
_flushing = False  # this process (and those it forks) write their batches every FLUSH_SECONDS
_flusher = None  # (thread, stop event) of this process, while it runs
_exit_registered = False


def install():
    """The kernel's metrics of this process are observed from now on, written here every
    ``FLUSH_SECONDS`` (the site's metrics are on)."""
    declared.set_backend(BACKEND)
    start_flushing()


def before_flush(function):
    """``function()`` runs at each flush, before the batches are written (it sets gauges)."""
    if function not in _before_flush:
        _before_flush.append(function)


def flush():
    """Write what this process observed since the last flush into the values a scrape reads."""
    with _flush_lock:
        _write()


def _write():
    for function in _before_flush:
        try:
            function()
        except Exception:
            log.exception("metrics: %r failed", function)
    for child in list(BACKEND.children):
        try:
            child.bound.write(child)
        except Exception:  # a full disk under the directory: the next flush tries again
            log.exception("metrics: writing %r failed", child.bound.target)


def make_values_again(reinit):
    """Between two flushes: ``reinit(metric)`` for each prometheus_client metric (its values
    move to the value class now in use), what the children queued dropped and the gauges
    written again at the next flush."""
    with _flush_lock:
        for metric in BACKEND.metrics.values():
            reinit(metric)
        for child in BACKEND.children:
            child.bound.forget(child)


def _flush_every(stop):
    while not stop.wait(FLUSH_SECONDS):
        flush()


def _start_thread():
    global _flusher
    stop = threading.Event()
    thread = threading.Thread(target=_flush_every, args=(stop,), name="storeplatform-metrics", daemon=True)
    thread.start()
    _flusher = (thread, stop)


def start_flushing():
    """This process writes its batches every ``FLUSH_SECONDS`` and at its exit, and so does
    every process it forks."""
    global _flushing, _exit_registered
    with _state_lock:
        _flushing = True
        if _flusher is None:
            _start_thread()
        if not _exit_registered:
            atexit.register(flush)
            _exit_registered = True


def pause_flushing():
    """This process's thread stops (after one last flush), the processes it forks still start
    theirs: a gunicorn master, which serves nothing, before it forks its workers, so that no
    thread of it holds a lock of prometheus_client's values at a fork."""
    global _flusher
    with _state_lock:
        found, _flusher = _flusher, None
    if found is not None:
        thread, stop = found
        stop.set()
        thread.join()
    flush()


def _forked():
    # A forked child: the parent's flushing thread is not here, nor are its locks' holders. The
    # gauges are written again, to this process's values; its own thread starts (a gunicorn
    # worker forked after the master chose the directory writes its counts every second).
    global _flush_lock, _state_lock, _flusher
    _flush_lock, _state_lock, _flusher = threading.Lock(), threading.Lock(), None
    for child in BACKEND.children:
        if isinstance(child.bound, _GaugeWriter):
            child.bound.forget(child)
    if _flushing:
        _start_thread()


os.register_at_fork(after_in_child=_forked)
