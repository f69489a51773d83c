"""Metrics for Prometheus, with ``prometheus_client``: the component behind the kernel's metrics
interface (``storeplatform.core.metrics``: the declarations of the kernel, of this component and
of plugins, ``counter`` and ``histogram`` in ``storeplatform.api``), with the config directive
``config.add_scrape_gauge`` for values read when the metrics are scraped.

Its parts:

- ``instruments``: the Prometheus backend: prometheus_client's metrics for the declared ones,
  the batches and the thread of each process that writes them every second;
- ``multiprocess``: every process of a machine writing its values to files in one directory
  (``storeplatform.metrics_dir``, by default ``var/metrics`` when several processes serve);
- ``observers``: the host's own metrics (requests, the pool, tasks) and their observers;
- ``exposition``: ``GET /metrics``, who may read it, and the gauges read at scrape time.

This module reads the settings and starts a process (``start_process``: the app factory
``main`` and the worker command).
"""
import ipaddress
import os

from storeplatform.core.metrics import LATENCY_BUCKETS  # noqa: F401
from storeplatform.core.observe import REQUEST, TASK
from storeplatform.core.settings import SettingsSection, strict_bool

from . import instruments, multiprocess, observers
# What the app factory, the servers, the worker command and the tests use, by these names.
from .exposition import PATH, add_scrape_gauge, metrics_view
from .instruments import FLUSH_SECONDS, REGISTRY, flush, install, pause_flushing  # noqa: F401
from .multiprocess import clean_directory, directory, process_exited, write_to_directory  # noqa: F401


# --- settings ------------------------------------------------------------------------------------

class MetricsSettings:
    """The parsed ``storeplatform.metrics*`` keys; ``default_directory``: ``var/metrics`` beside
    the ini, for processes that share and were given no ``metrics_dir``."""

    __slots__ = ("enabled", "allow", "token", "directory", "default_directory")

    def __init__(self, enabled=False, allow=(), token="", directory=None, default_directory=None):
        self.enabled, self.allow, self.token, self.directory = enabled, allow, token, directory
        self.default_directory = default_directory


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
    default = os.path.join(os.path.abspath(settings.get("here") or os.getcwd()), "var", "metrics")
    return MetricsSettings(enabled, tuple(networks), token, directory, default)


SETTINGS = SettingsSection(
    "metrics", _parse_settings,
    defaults={"storeplatform.metrics": "false", "storeplatform.metrics_allow": "", "storeplatform.metrics_token": "",
              "storeplatform.metrics_dir": ""},
    environ={"STOREPLATFORM_METRICS_TOKEN": "storeplatform.metrics_token",
             "STOREPLATFORM_METRICS_DIR": "storeplatform.metrics_dir"})


def settings_of(registry):
    return registry.settings["storeplatform.parsed"]["metrics"]


# --- processes -----------------------------------------------------------------------------------

def start_process(registry, kind="web"):
    """A process of the site starts serving (the app factory, ``storeplatform worker``): it is
    of ``kind`` (web, worker) from now on, and with ``storeplatform.metrics_dir`` its values go
    to files there; a standalone worker, which shares its values with the web processes or
    with nobody, writes them to the default directory when none is set."""
    metrics = settings_of(registry)
    if not metrics.enabled:
        return
    observers.set_kind(kind)
    path = metrics.directory
    if path is None and kind == "worker":
        path = multiprocess.owner_only(metrics.default_directory)
    if path is not None:
        write_to_directory(path)
    instruments.start_flushing()


def shared_directory(registry):
    """The directory of a process that forks several serving processes (a gunicorn master with
    several workers), chosen before the fork: ``storeplatform.metrics_dir``, or the default
    (``var/metrics`` beside the ini, made owner-only). ValueError with the line to print when
    the default cannot be made."""
    path = directory()
    if path is None:
        metrics = settings_of(registry)
        path = metrics.directory or multiprocess.owner_only(metrics.default_directory)
        write_to_directory(path)
    return path


def includeme(config):
    config.add_directive("add_scrape_gauge", add_scrape_gauge)
    registry = config.registry
    if not settings_of(registry).enabled:
        return
    from sqlalchemy import event

    from storeplatform.core.db.pool import SitePool

    install()
    config.add_route("metrics", PATH, request_method="GET")
    config.add_view(metrics_view, route_name="metrics")
    event.listen(registry["db.engine"], "before_cursor_execute", observers.count_statement)
    SitePool.metrics = observers.POOL
    registry[REQUEST] = observers.request_observer()
    registry[TASK] = observers.task_observer
    config.add_scrape_gauge("tasks_pending", "Tasks waiting in the queue, not yet taken by a worker (Huey's "
                            "pending count).", _pending_tasks)


def _pending_tasks(registry):
    return registry["queue.huey"].pending_count()
