"""Logs: a request id for every request (``X-Request-ID`` from a trusted proxy, else a new one;
returned in the response header and on every log record made while the request runs, as
``%(request_id)s``), the request's user on those records once its identity is known (its login,
``%(user)s``, ``-`` before or without one), one access record per request on
``storeplatform.access``, and a JSON formatter (one object per line) for log collectors, named in
config/production.ini."""
import contextvars
import datetime
import itertools
import logging
import os
import re
import threading
import time

from .client import is_trusted
from .jsonutil import dumps
from .observe import REQUEST

access_log = logging.getLogger("storeplatform.access")
request_id_var = contextvars.ContextVar("storeplatform_request_id", default=None)
# The login of the request's user, set by the security policy when it resolves the identity (a
# context variable set once per authenticated request: no work added to the request itself).
user_var = contextvars.ContextVar("storeplatform_user", default=None)
# Ids other systems send: letters, digits and a few separators, at most 128 characters.
_VALID_ID = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")
_ACCESS_FIELDS = ("method", "path", "status", "duration_ms", "bytes")
_base_factory = logging.getLogRecordFactory()


def _record_factory(*args, **kwargs):
    record = _base_factory(*args, **kwargs)
    record.request_id = request_id_var.get() or "-"
    record.user = user_var.get() or "-"
    return record


def install_record_factory():
    """Every log record of the process carries ``request_id`` (``-`` outside a request) and
    ``user`` (``-`` outside a request or before its user is known, and for an anonymous one)."""
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
    offered = request.environ.get("HTTP_X_REQUEST_ID", "")
    if offered and _VALID_ID.fullmatch(offered) and is_trusted(request, request.remote_addr):
        return offered
    return new_request_id()


_ACCESS_MESSAGE = "%s %s %s %.1fms %s"
# Per thread: the class of its first access record and the fields no request changes, as the
# logging module set them on it (so they are whatever this Python's LogRecord holds).
_access_templates = {}
os.register_at_fork(after_in_child=_access_templates.clear)  # process id and name change
_MAKE_RECORD = logging.Logger.makeRecord


def access_record(args, fields, request_id, user="-"):
    """The access record of a request: the record ``Logger.info`` would make, made from the
    thread's first record by changing what differs (its time, arguments and fields). Building
    a LogRecord looks up the thread, the process and the file name anew each time: that was
    half of what the access record cost. A plugin's own record factory or logger class is
    honoured: its records are made as the logging module makes them."""
    if logging.getLogRecordFactory() is not _record_factory or type(access_log).makeRecord is not _MAKE_RECORD:
        return access_log.makeRecord(access_log.name, logging.INFO, __file__, 0, _ACCESS_MESSAGE, args, None,
                                     extra=fields)
    thread = threading.get_ident()
    kept = _access_templates.get(thread)
    if kept is None:
        if len(_access_templates) > 256:  # threads that ended
            _access_templates.clear()
        first = access_log.makeRecord(access_log.name, logging.INFO, __file__, 0, _ACCESS_MESSAGE, (), None)
        kept = _access_templates[thread] = (type(first), first.__dict__)
    record_class, template = kept
    created = time.time()
    record = record_class.__new__(record_class)  # of the class the record factories make
    record.__dict__ = {**template, **fields, "args": args, "created": created,
                       "msecs": int((created - int(created)) * 1000) + 0.0,
                       "relativeCreated": template["relativeCreated"] + (created - template["created"]) * 1000,
                       "request_id": request_id, "user": user}
    return record


def logged_path(request):
    """The request's path as the access record shows it: decoded as UTF-8, and a path that is not
    UTF-8 (refused with a 400) with each undecodable byte written as ``\\xNN``, so that the
    record is still written and shows what was sent."""
    try:
        return request.path_info
    except UnicodeDecodeError:
        return request.environ.get("PATH_INFO", "").encode("latin-1").decode("utf-8", "backslashreplace")


def log_server_error(logger, request, status, what, cause=None, exc_info=None):
    """The one line a 5xx answer leaves (its record carries the request id, as every record made
    during a request does; both shipped formats show it): method, raw path, status, what was
    answered and the cause (an exception's repr; with ``exc_info`` its traceback follows)."""
    logger.error("%s %r answered %s %s: %s", request.method, request.environ.get("PATH_INFO"), status, what,
                 "no cause recorded" if cause is None else repr(cause), exc_info=exc_info)


def set_request_id(headerlist, request_id):
    """``X-Request-ID`` in an answer's header list, replacing one a view set (on the list:
    ``security_headers_tween_factory`` says why)."""
    for index, (name, _) in enumerate(headerlist):
        if name.lower() == "x-request-id":
            del headerlist[index]
            break
    headerlist.append(("X-Request-ID", request_id))


def request_log_tween_factory(handler, registry):
    # The site's request metrics, when an observer is on: one observation of the duration the
    # access record shows.
    observe = registry.get(REQUEST)

    def request_log_tween(request):
        request_id = request_id_for(request)
        token = request_id_var.set(request_id)
        user_token = user_var.set(None)  # a thread's next request must not inherit its last user
        started = time.perf_counter()
        try:
            response = handler(request)
            elapsed = time.perf_counter() - started
            set_request_id(response.headerlist, request_id)
            if observe is not None:
                observe(request, response.status_code, elapsed)
            if access_log.isEnabledFor(logging.INFO):
                duration = round(elapsed * 1000, 1)
                method, path, status, size = (request.method, logged_path(request), response.status_code,
                                              response.content_length)
                if len(path) > 2000:
                    path = path[:2000] + "..."
                access_log.handle(access_record(
                    (method, path, status, duration, size if size is not None else "-"),
                    {"method": method, "path": path, "status": status, "duration_ms": duration, "bytes": size},
                    request_id, user_var.get() or "-"))
            return response
        finally:
            user_var.reset(user_token)
            request_id_var.reset(token)

    return request_log_tween


class TextFormatter(logging.Formatter):
    """logging's own formatter, with ``%(request_id)s`` and ``%(user)s`` written ``-`` on a record
    made before the site installed its record factory (pserve's and the CLI's first lines):
    development.ini's."""

    def __init__(self, fmt=None, datefmt=None, style="%", validate=True):
        super().__init__(fmt, datefmt, style, validate, defaults={"request_id": "-", "user": "-"})


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC), level, logger, message, request_id when in a
    request, user when the request has one (its login), the access fields on access records,
    the traceback as text when there is one."""

    _second = (None, "")  # (a second, its text): one tuple, read and replaced whole by any thread

    def format(self, record):
        data = {"time": self._time_text(record.created), "level": record.levelname, "logger": record.name,
                "message": record.getMessage()}
        fields = record.__dict__
        request_id = fields.get("request_id", "-")
        if request_id != "-":
            data["request_id"] = request_id
        user = fields.get("user", "-")
        if user != "-":
            data["user"] = user
        for field in _ACCESS_FIELDS:
            if field in fields:
                data[field] = fields[field]
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        return dumps(data)

    def _time_text(self, created):
        """ISO 8601 in UTC to the millisecond, as ``datetime.isoformat`` writes it; the date and
        the second are written once per second."""
        second, fraction = divmod(created, 1)
        micros = round(fraction * 1_000_000)  # as datetime.fromtimestamp rounds
        if micros >= 1_000_000:
            second, micros = second + 1, micros - 1_000_000
        kept_second, text = self._second
        if second != kept_second:
            text = datetime.datetime.fromtimestamp(second, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
            self._second = (second, text)
        return f"{text}.{micros // 1000:03d}+00:00"
