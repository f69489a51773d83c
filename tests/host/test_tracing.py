"""Traces through OpenTelemetry (issue #29, the extra ``otel``; ``dev.py test`` installs it): with
``storeplatform.traces = otlp`` and a tracer provider set for the process (here one with
OpenTelemetry's in-memory exporter, as the ``opentelemetry-instrument`` launcher would set its
own), a request gives a server span (Pyramid's instrumentation) carrying the request id, with the
SQLAlchemy spans of its statements under it; the task it enqueued runs in a worker thread under
a span of its own, in a trace of its own, linked to the request's span, with its statements'
spans under it."""
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import ProxyTracerProvider, SpanKind

from storeplatform.testing import queue_url, wait_for

JOBS = "/api/store/v1/thirdparty/jobs"
TASK = "thirdparty_tasks.record"


@pytest.fixture(scope="module")
def exporter():
    """The process's tracer provider (set once per process, as OpenTelemetry allows), its spans
    kept in memory."""
    provider = trace.get_tracer_provider()
    if isinstance(provider, ProxyTracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    kept = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(kept))
    return kept


def test_a_request_and_its_task_are_traced_and_linked(make_site, tmp_path, exporter):
    site = make_site(**{"storeplatform.plugins": "thirdparty_tasks", "storeplatform.traces": "otlp",
                        "huey.url": queue_url(tmp_path)})
    admin = site.headers_for("administrator")  # (its rows are written outside any request)
    exporter.clear()
    res = site.app.post_json(JOBS, {"value": "traced"}, headers=admin, status=202)
    request_id = res.headers["X-Request-ID"]

    def task_span():
        return next((s for s in exporter.get_finished_spans() if s.name == f"task {TASK}"), None)

    with site.worker(workers=1):
        wait_for(task_span, timeout=20)
    spans = exporter.get_finished_spans()
    (server,) = [s for s in spans if s.kind == SpanKind.SERVER and s.attributes.get("storeplatform.request_id")
                 == request_id]
    assert server.name == f"POST {JOBS}" or server.name == JOBS or JOBS in server.name, server.name
    assert server.attributes["http.route"] == JOBS
    # The request's statements: SQLAlchemy's spans, under the request's span.
    in_request = [s for s in spans if s.context.trace_id == server.context.trace_id and s.kind == SpanKind.CLIENT]
    assert in_request and all(s.parent is not None for s in in_request)
    # Authentication's statements too: the span starts before the caller is identified.
    assert not [s.name for s in spans if s.kind == SpanKind.CLIENT and s.parent is None]
    assert any("app_passwords" in (s.attributes.get("db.statement") or s.attributes.get("db.query.text") or "")
               for s in in_request)
    assert any(s.parent.span_id == server.context.span_id for s in in_request)
    assert {s.attributes.get("db.system") or s.attributes.get("db.system.name") for s in in_request} \
        == {site.engine.dialect.name}
    assert any("INSERT" in (s.attributes.get("db.statement") or s.attributes.get("db.query.text") or "")
               for s in in_request)  # the option it set
    # Statements on the driver (the site-state check) are events of the span under way.
    assert any(e.name == "db.driver_statement" for s in spans if s.context.trace_id == server.context.trace_id
               for e in s.events)

    task = task_span()
    assert task.kind == SpanKind.CONSUMER and task.parent is None
    assert task.context.trace_id != server.context.trace_id  # a trace of its own ...
    assert [(link.context.trace_id, link.context.span_id) for link in task.links] == [
        (server.context.trace_id, server.context.span_id)]  # ... linked to the request's span
    assert task.attributes["storeplatform.task"] == TASK and task.attributes["storeplatform.request_id"] == request_id
    in_task = [s for s in spans if s.context.trace_id == task.context.trace_id and s.kind == SpanKind.CLIENT]
    assert any("INSERT" in (s.attributes.get("db.statement") or s.attributes.get("db.query.text") or "")
               for s in in_task)  # the task's row
    assert all(s.parent is not None and s.parent.span_id == task.context.span_id for s in in_task)


def test_traces_are_off_by_default(make_site, exporter):
    site = make_site(**{"storeplatform.plugins": "thirdparty_tasks"})
    exporter.clear()
    site.app.post_json(JOBS, {"value": "untraced"}, headers=site.headers_for("administrator"), status=202)
    assert exporter.get_finished_spans() == ()
