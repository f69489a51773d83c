"""Observability: the site's metrics for Prometheus (``metrics``) and its traces for
OpenTelemetry (``tracing``)."""
