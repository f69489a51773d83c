"""Traces through OpenTelemetry: the optional extra ``otel`` (``pip install 'storeplatform[otel]'``),
off unless ``storeplatform.traces = otlp``.

When on, a site traces:

- each request, with OpenTelemetry's Pyramid instrumentation (a server span per request, named by
  its route's pattern, carrying the request id as ``storeplatform.request_id``);
- each statement SQLAlchemy executes on the site's engine, with OpenTelemetry's SQLAlchemy
  instrumentation (its engine tracer, on this engine only: no global patching of
  ``create_engine``). Statements run on the driver (``DriverStatement``, the site-state check)
  bypass SQLAlchemy's execution; they are events (``db.driver_statement``) on the span under
  way rather than spans of their own;
- each task run, in the worker that runs it: a span ``task <name>``, the root of a trace of its
  own, linked to the span of the request that enqueued it (its W3C trace context travels with
  the task, as the request id does).

Spans go to the tracer provider set for the process when there is one (the
``opentelemetry-instrument`` launcher, a test's), else to one the site sets up: a batch of spans
sent over OTLP/HTTP, configured by OpenTelemetry's own variables (``OTEL_EXPORTER_OTLP_ENDPOINT``,
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, ``OTEL_EXPORTER_OTLP_HEADERS``, ``OTEL_SERVICE_NAME``
(default ``storeplatform``), ``OTEL_TRACES_SAMPLER``...).
"""
import contextlib
import os

from storeplatform.core.observe import TASK_TRACE
from storeplatform.core.settings import SettingsSection

OTLP = "otlp"
_VALUES = {"": None, "off": None, "false": None, "no": None, "0": None, OTLP: OTLP}
_SETTING = "storeplatform.traces"


def traces_setting(settings):
    """``"otlp"`` or None from ``storeplatform.traces``; ValueError naming the key."""
    text = str(settings.get(_SETTING) or "off").strip().lower()
    if text not in _VALUES:
        raise ValueError(f"{_SETTING} must be off or otlp, not {settings.get(_SETTING)!r}")
    if _VALUES[text] and not available():
        raise ValueError(f"{_SETTING} = otlp needs OpenTelemetry: pip install 'storeplatform[otel]'")
    return _VALUES[text]


SETTINGS = SettingsSection("traces", traces_setting, defaults={_SETTING: "off"})


def available():
    try:
        import opentelemetry.exporter.otlp.proto.http.trace_exporter  # noqa: F401
        import opentelemetry.instrumentation.pyramid  # noqa: F401
        import opentelemetry.instrumentation.sqlalchemy.engine  # noqa: F401
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError:
        return False
    return True


def enabled(registry):
    return registry.settings["storeplatform.parsed"]["traces"] is not None


class TaskTrace:
    """The kernel's ``TASK_TRACE`` observation point (``storeplatform.core.observe``)."""

    carrier = staticmethod(lambda: task_carrier())
    span = staticmethod(lambda name, carrier, request_id: task_span(name, carrier, request_id))


def includeme(config):
    registry = config.registry
    if not enabled(registry):
        return
    registry[TASK_TRACE] = TaskTrace()
    from opentelemetry.instrumentation.pyramid import PyramidInstrumentor
    from pyramid.events import BeforeTraversal

    _ensure_provider()
    PyramidInstrumentor.instrument_config(config)
    # After the instrumentation's own subscriber, which starts the request's span.
    config.add_subscriber(_tag_request_span, BeforeTraversal)
    registry["tracing.engine"] = _trace_engine(registry["db.engine"])


def _ensure_provider():
    """The process's tracer provider: the one set already, else a batch exporter over OTLP/HTTP
    (its thread is started again in each forked gunicorn worker by the SDK)."""
    from opentelemetry import trace
    from opentelemetry.trace import ProxyTracerProvider

    if not isinstance(trace.get_tracer_provider(), ProxyTracerProvider):
        return
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create(
        {"service.name": os.environ.get("OTEL_SERVICE_NAME") or "storeplatform"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)


def _tag_request_span(event):
    from opentelemetry import trace

    from storeplatform.core.logs import request_id_var

    span = trace.get_current_span()
    request_id = request_id_var.get()
    if request_id and span.is_recording():
        span.set_attribute("storeplatform.request_id", request_id)


def _trace_engine(engine):
    """OpenTelemetry's engine tracer on the site's engine, as ``SQLAlchemyInstrumentor`` makes
    it for ``instrument(engine=...)`` but without patching ``create_engine`` and
    ``Engine.connect`` for the whole process."""
    from opentelemetry import trace
    from opentelemetry.instrumentation.sqlalchemy import engine as otel_engine
    from opentelemetry.instrumentation.sqlalchemy.version import __version__
    from opentelemetry.metrics import get_meter
    from opentelemetry.semconv.metrics import MetricInstruments

    class SiteEngineTracer(otel_engine.EngineTracer):
        def _before_cur_exec(self, conn, cursor, statement, params, context, executemany):
            if context is None:
                # A statement on the driver: shown to the engine's listeners without an
                # execution context, so no after-execute would end a span of its own.
                span = trace.get_current_span()
                if span.is_recording():
                    span.add_event("db.driver_statement", {"db.statement": statement})
                return statement, params
            return super()._before_cur_exec(conn, cursor, statement, params, context, executemany)

    name = "opentelemetry.instrumentation.sqlalchemy"
    tracer = trace.get_tracer(name, __version__)
    usage = get_meter(name, __version__).create_up_down_counter(
        name=MetricInstruments.DB_CLIENT_CONNECTIONS_USAGE, unit="connections",
        description="The number of connections that are currently in state described by the state attribute.")
    return SiteEngineTracer(tracer, engine, usage)


def task_carrier():
    """The W3C trace context of the span under way, for a task enqueued now (``traceparent``),
    or None outside any span."""
    from opentelemetry import propagate, trace

    if not trace.get_current_span().get_span_context().is_valid:
        return None
    carrier = {}
    propagate.inject(carrier)
    return carrier or None


@contextlib.contextmanager
def task_span(name, carrier, request_id):
    """The span of one run of task ``name``: a trace of its own (a task outlives its request),
    linked to the span that enqueued it; an exception is recorded on it."""
    from opentelemetry import propagate, trace
    from opentelemetry.context import Context
    from opentelemetry.trace import Link, SpanKind

    links = []
    if carrier:
        linked = trace.get_current_span(propagate.extract(carrier)).get_span_context()
        if linked.is_valid:
            links.append(Link(linked))
    attributes = {"storeplatform.task": name}
    if request_id:
        attributes["storeplatform.request_id"] = request_id
    tracer = trace.get_tracer("storeplatform.queue")
    with tracer.start_as_current_span(f"task {name}", context=Context(), kind=SpanKind.CONSUMER, links=links,
                                      attributes=attributes) as span:
        yield span
