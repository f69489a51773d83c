"""gunicorn's logger for the site (``[server:main] use = egg:storeplatform#gunicorn``)."""
from gunicorn.glogging import Logger


class SiteLogger(Logger):
    """gunicorn's own logger, except that it builds no access line that nothing receives.

    Served through PasteDeploy, gunicorn takes its logging from the ini and then counts its
    access log as on: for every request it formats the line's atoms (the date among them) and
    makes a record, though the ini gives ``gunicorn.access`` no handler and gunicorn keeps it
    from propagating, so the record is dropped (measured: docs/performance.md, item 39). The
    site writes its own access record (``storeplatform.access``); a ``gunicorn.access`` with a
    handler (``accesslog``, syslog, or one the ini gives it) still gets every line."""

    def setup(self, cfg):
        super().setup(cfg)
        self._access_heard = self.access_log.hasHandlers()

    def access(self, resp, req, environ, request_time):
        if self._access_heard:
            super().access(resp, req, environ, request_time)
