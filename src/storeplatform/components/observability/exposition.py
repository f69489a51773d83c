"""``GET /metrics``: the site's metrics in Prometheus's text format (every process's values and
the gauges read at scrape time, ``config.add_scrape_gauge``), answered to the addresses in
``storeplatform.metrics_allow`` (the direct peer of the connection) or to the bearer token
``storeplatform.metrics_token``, to nobody else (the host's error body, 401 or 403)."""
import hmac
import ipaddress
import logging

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from pyramid.response import Response

from storeplatform.core.errors import AUTHENTICATION_FAILED, FORBIDDEN, NOT_LOGGED_IN
from storeplatform.core.metrics import counter, declared, full_name

from . import instruments, multiprocess

log = logging.getLogger(__name__.rpartition(".")[0] + ".metrics")

PATH = "/metrics"
# Prometheus's text format 0.0.4, what ``generate_latest`` writes and every Prometheus reads.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

SCRAPE_ERRORS = counter("metrics_scrape_errors", "Values read at scrape time that could not be read (the "
                        "database or the queue did not answer), by gauge.", ("gauge",))


def add_scrape_gauge(config, name, documentation, read, labels=()):
    """Config directive: a gauge ``storeplatform_<name>`` whose value is read when the metrics
    are scraped, by the process that answers the scrape: ``read(registry)`` returns a number, or
    ``{label values (a tuple): number}``. For what is the site's, not a process's (rows waiting
    in a table, the queue's length): read once per scrape, nothing done per request. A read that
    fails is left out of that scrape (logged, counted in ``storeplatform_metrics_scrape_errors``,
    whose series for this gauge exists at 0 from now on)."""
    full = full_name(name)
    gauges = config.registry.setdefault("metrics.scrape_gauges", {})
    if full in gauges or declared(full) is not None:
        raise ValueError(f"metric {full} is declared twice")
    gauges[full] = (documentation, tuple(labels), read)
    SCRAPE_ERRORS.labels(full)


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
        return instruments.REGISTRY.collect()


def exposition(registry):
    """The site's metrics in Prometheus's text format: every process's values (the directory's
    files, or this process's) and the values read now."""
    at_scrape = CollectorRegistry(auto_describe=False)
    at_scrape.register(_AtScrape(registry))
    text = generate_latest(at_scrape)  # first: a failed read counts in this scrape
    instruments.flush()
    values = CollectorRegistry(auto_describe=False)
    directory = multiprocess.directory()
    if directory is not None:
        MultiProcessCollector(values, directory)
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
