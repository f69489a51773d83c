"""gunicorn's logger for the site (``[server:main] use = egg:storeplatform#gunicorn``)."""
import sys

from gunicorn.glogging import Logger


class SiteLogger(Logger):
    """gunicorn's own logger, except that its lines go through the ini's logging and that it
    builds no access line that nothing receives.

    Served through PasteDeploy, gunicorn takes its logging from the ini, but first gives
    ``gunicorn.error`` a handler of its own on stderr with its own format and keeps it from
    propagating: its lines ("Starting gunicorn", "Listening at", "Booting worker", worker exits)
    ignored the ini's handlers and formatter (production.ini's one JSON object per line). When the
    ini configures logging and the error log is stderr (``errorlog`` not named) and the ini says
    nothing of ``gunicorn.error``, that handler is dropped and the records go to the ini's
    handlers as every other record does. An ``errorlog`` file, syslog, or a ``gunicorn.error``
    logger the ini configures itself is kept as gunicorn sets it.

    It also counts its access log as on: for every request it formats the line's atoms (the date
    among them) and makes a record, though the ini gives ``gunicorn.access`` no handler and gunicorn
    keeps it from propagating, so the record is dropped (measured: docs/performance.md, item 39).
    The site writes its own access record (``storeplatform.access``); a ``gunicorn.access`` with a
    handler (``accesslog``, syslog, or one the ini gives it) still gets every line."""

    def setup(self, cfg):
        super().setup(cfg)
        if cfg.errorlog == "-" and (cfg.logconfig or cfg.logconfig_dict or cfg.logconfig_json):
            own = [h for h in self.error_log.handlers
                   if getattr(h, "_gunicorn", False) and getattr(h, "stream", None) is sys.stderr]
            if own:  # still there: the ini did not configure gunicorn.error itself
                for handler in own:
                    self.error_log.removeHandler(handler)
                self.error_log.propagate = True
        self._access_heard = self.access_log.hasHandlers()

    def access(self, resp, req, environ, request_time):
        if self._access_heard:
            super().access(resp, req, environ, request_time)
