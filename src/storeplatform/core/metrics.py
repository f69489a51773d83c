"""The metrics the kernel and plugins declare (``storeplatform.api``'s ``counter`` and
``histogram``), and what a backend (the observability component's Prometheus exposition) is
given of them.

A declaration names a metric ``storeplatform_<name>`` once per process; ``labels(*values)``
gives its child for those label values, kept, so a hot path may take it once or call
``labels`` each time (a dictionary lookup). Until a backend is set (``set_backend``: the site's
``storeplatform.metrics`` is on) an observation does nothing but a test. Once one is, a child
appends what it observes to a queue of its own (``collections.deque``: an append is atomic, so
no lock is taken where something is observed) and the backend takes the queue's contents when
it writes them (``take``), every second or so: the cost of its values (a locked write to a
mapped file each) is paid once per batch, off the request path.

Every child made, before the backend was set or after, is given to it: a series exists, at 0,
from the moment its child is made (make the children of known label values at declaration to
have them from the start).
"""
import functools
import os
import re
import threading
from collections import deque
from time import perf_counter

PREFIX = "storeplatform_"
_NAME = re.compile(r"[a-z][a-z0-9_]*")
# Seconds: from a cached answer (~1 ms) to a PDF regeneration under load.
LATENCY_BUCKETS = (0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

COUNTER, HISTOGRAM, GAUGE = "counter", "histogram", "gauge"

_lock = threading.Lock()
_declared = {}  # full name -> Metric
_backend = None


def counter(name, documentation, labels=()):
    """A counter named ``storeplatform_<name>`` (``_total`` is added on exposition), declared
    once per process: declaring it again with the same labels returns the same counter.
    ``labels(*values).inc(amount=1)``, or ``inc`` when it has no labels. Label values must come
    from a small fixed set (never an id, a path or user input): each combination is a series
    kept for ever."""
    return _declare(COUNTER, name, documentation, labels, ())


def histogram(name, documentation, labels=(), buckets=LATENCY_BUCKETS):
    """A histogram named ``storeplatform_<name>``, declared once per process
    (``labels(*values).observe(seconds)`` or ``.time()``); ``buckets``: upper bounds, in the
    unit observed."""
    return _declare(HISTOGRAM, name, documentation, labels, tuple(float(b) for b in buckets))


def gauge(name, documentation, labels=()):
    """A gauge of this process (``labels(*values).set(value)``: the last value set is the
    state); across processes, the backend sums those of the live ones."""
    return _declare(GAUGE, name, documentation, labels, ())


def full_name(name):
    """``storeplatform_<name>``; ValueError for a name that is not lower-case letters, digits and _."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name.startswith(PREFIX):
        raise ValueError(f"a metric name is lower-case letters, digits and _, without the {PREFIX} prefix "
                         f"(the host adds it), not {name!r}")
    return PREFIX + name


def declared(full):
    """The metric declared under the full name ``full``, or None."""
    return _declared.get(full)


def _declare(kind, name, documentation, labels, buckets):
    full = full_name(name)
    labels = tuple(labels)
    with _lock:
        found = _declared.get(full)
        if found is not None:
            if (found.kind, found.labelnames, found.buckets) == (kind, labels, buckets):
                return found
            raise ValueError(f"metric {full} is declared twice, differently: {found.kind}{found.labelnames} "
                             f"and {kind}{labels}")
        metric = _declared[full] = Metric(kind, full, documentation, labels, buckets)
        if _backend is not None:
            _backend.bind(metric)
    return metric


def set_backend(backend):
    """From now on the metrics of this process are observed, and written by ``backend``: its
    ``bind(metric)`` is called for every metric declared and ``bind_child(metric, child)`` for
    every child made, now and later (under this module's lock: they must not declare). A
    process has one backend; setting the same one again does nothing."""
    global _backend
    with _lock:
        if _backend is backend:
            return
        if _backend is not None:
            raise ValueError("this process's metrics have a backend already")
        _backend = backend
        for metric in _declared.values():
            backend.bind(metric)
            for child in metric.children.values():
                _arm(metric, child)


def _arm(metric, child):
    if metric.kind != GAUGE:
        child.pending = deque()
    _backend.bind_child(metric, child)


class Metric:
    """A declared metric. Without labels it is its own only child (``inc``, ``observe``,
    ``set``, ``time`` act on ``labels()``)."""

    __slots__ = ("kind", "name", "documentation", "labelnames", "buckets", "children")

    def __init__(self, kind, name, documentation, labelnames, buckets):
        self.kind, self.name, self.documentation = kind, name, documentation
        self.labelnames, self.buckets, self.children = labelnames, buckets, {}

    def labels(self, *values, **named):
        if named:
            try:
                values = tuple(named[label] for label in self.labelnames)
            except KeyError:
                raise ValueError(f"labels of {self.name}: {self.labelnames}, not {sorted(named)}")
        child = self.children.get(values)
        if child is None:
            if len(values) != len(self.labelnames):
                raise ValueError(f"labels of {self.name}: {self.labelnames}, not {values}")
            with _lock:
                child = self.children.get(values)
                if child is None:
                    child = _CHILDREN[self.kind](tuple(str(v) for v in values))
                    if _backend is not None:
                        _arm(self, child)
                    self.children[values] = child
        return child

    def inc(self, amount=1):
        self.labels().inc(amount)

    def observe(self, amount):
        self.labels().observe(amount)

    def set(self, value):
        self.labels().set(value)

    def time(self):
        return self.labels().time()


class _Queued:
    __slots__ = ("label_values", "pending", "bound")

    def __init__(self, label_values):
        self.label_values, self.pending, self.bound = label_values, None, None

    def take(self):
        """The amounts observed since the last take, removed from the queue: one ``popleft``
        at a time (atomic), so that what other threads append meanwhile waits for the next."""
        pending = self.pending
        if not pending:
            return ()
        popleft = pending.popleft
        return [popleft() for _ in range(len(pending))]


class CounterChild(_Queued):
    __slots__ = ()

    def inc(self, amount=1):
        if amount < 0:
            raise ValueError("a counter is only increased, by a number >= 0")
        pending = self.pending
        if pending is not None:
            pending.append(amount)


class HistogramChild(_Queued):
    __slots__ = ()

    def observe(self, amount):
        pending = self.pending
        if pending is not None:
            pending.append(amount)

    def time(self):
        return Timer(self.observe)


class GaugeChild:
    """The last value set is the state (the backend writes it when it changed)."""

    __slots__ = ("label_values", "value", "bound")

    def __init__(self, label_values):
        self.label_values, self.value, self.bound = label_values, None, None

    def set(self, value):
        self.value = value


_CHILDREN = {COUNTER: CounterChild, HISTOGRAM: HistogramChild, GAUGE: GaugeChild}


class Timer:
    """``with histogram.labels(...).time():`` (or as a decorator): observes the seconds the block took."""

    __slots__ = ("observe", "started")

    def __init__(self, observe):
        self.observe, self.started = observe, None

    def __enter__(self):
        self.started = perf_counter()
        return self

    def __exit__(self, *exc):
        self.observe(max(perf_counter() - self.started, 0.0))

    def __call__(self, function):
        @functools.wraps(function)
        def timed(*args, **kwargs):
            with Timer(self.observe):
                return function(*args, **kwargs)

        return timed


def _forked():
    # A forked child: what its parent observed and has not written yet is the parent's to write,
    # and a lock a thread of the parent held at the fork would stay held here.
    global _lock
    _lock = threading.Lock()
    for metric in list(_declared.values()):
        for child in list(metric.children.values()):
            pending = getattr(child, "pending", None)
            if pending:
                pending.clear()


os.register_at_fork(after_in_child=_forked)
