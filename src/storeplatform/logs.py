"""Logs: a request id for every request (``X-Request-ID`` from a trusted proxy, else a new one;
returned in the response header and on every log record made while the request runs, as
``%(request_id)s``), one access record per request on ``storeplatform.access``, and a JSON
formatter (one object per line) for log collectors, named in config/production.ini."""
import contextvars
import datetime
import itertools
import logging
import os
import re
import time

from .client import is_trusted
from .jsonutil import dumps

access_log = logging.getLogger("storeplatform.access")
request_id_var = contextvars.ContextVar("storeplatform_request_id", default=None)
# Ids other systems send: letters, digits and a few separators, at most 128 characters.
_VALID_ID = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")
_ACCESS_FIELDS = ("method", "path", "status", "duration_ms", "bytes")
_base_factory = logging.getLogRecordFactory()


def _record_factory(*args, **kwargs):
    record = _base_factory(*args, **kwargs)
    record.request_id = request_id_var.get() or "-"
    return record


def install_record_factory():
    """Every log record of the process carries ``request_id`` (``-`` outside a request)."""
    if logging.getLogRecordFactory() is not _record_factory:
        logging.setLogRecordFactory(_record_factory)


def _draw_id_prefix():
    global _id_prefix, _id_counter
    _id_prefix, _id_counter = os.urandom(8).hex(), itertools.count()


_draw_id_prefix()
os.register_at_fork(after_in_child=_draw_id_prefix)  # gunicorn's workers: each its own


def new_request_id():
    """32 hex digits: 16 drawn at random by the process and a counter (unique without a system
    call for randomness on every request, as uuid4 makes)."""
    return f"{_id_prefix}{next(_id_counter):016x}"


def request_id_for(request):
    offered = request.headers.get("X-Request-ID", "")
    if offered and _VALID_ID.fullmatch(offered) and is_trusted(request, request.remote_addr):
        return offered
    return new_request_id()


def request_log_tween_factory(handler, registry):
    def request_log_tween(request):
        request_id = request_id_for(request)
        token = request_id_var.set(request_id)
        started = time.perf_counter()
        try:
            response = handler(request)
            response.headers["X-Request-ID"] = request_id
            if access_log.isEnabledFor(logging.INFO):
                duration = round((time.perf_counter() - started) * 1000, 1)
                method, path, status, size = (request.method, request.path_info, response.status_code,
                                              response.content_length)
                if len(path) > 2000:
                    path = path[:2000] + "..."
                # The record made and handled as Logger.info would, without looking for the
                # caller's frame (always this line) on every request.
                access_log.handle(access_log.makeRecord(
                    access_log.name, logging.INFO, __file__, 0, "%s %s %s %.1fms %s",
                    (method, path, status, duration, size if size is not None else "-"), None,
                    extra={"method": method, "path": path, "status": status, "duration_ms": duration,
                           "bytes": size}))
            return response
        finally:
            request_id_var.reset(token)

    return request_log_tween


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC), level, logger, message, request_id when in a
    request, the access fields on access records, the traceback as text when there is one."""

    def format(self, record):
        data = {"time": datetime.datetime.fromtimestamp(record.created, datetime.timezone.utc)
                .isoformat(timespec="milliseconds"),
                "level": record.levelname, "logger": record.name, "message": record.getMessage()}
        request_id = getattr(record, "request_id", "-")
        if request_id != "-":
            data["request_id"] = request_id
        for field in _ACCESS_FIELDS:
            if hasattr(record, field):
                data[field] = getattr(record, field)
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        return dumps(data)
