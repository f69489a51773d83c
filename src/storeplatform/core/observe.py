"""The kernel's observation points: what an observer (the observability component, or another)
sets in the registry while the site is configured, before the kernel's queue binds its tasks,
and the kernel's code reads where the thing happens. Each is absent until an observer sets it,
and the kernel then does nothing for it: metrics and traces switched off cost nothing.

- ``REQUEST``: ``observe(request, status, seconds)``, once per answer (the access log's tween);
- ``TASK``: ``observer(name)``, asked once per task when the tasks are bound, returning
  ``observe(outcome, seconds, started_at, enqueued_at)`` or None; when set, a task carries the
  time it was sent (``enqueued_at``);
- ``TASK_TRACE``: an object with ``carrier()`` (the W3C context of the span under way, or None,
  sent with a task) and ``span(name, carrier, request_id)`` (a context manager around a task's
  run).

The database pool has its own: ``storeplatform.core.db.pool.SitePool.metrics``. The metrics
the kernel and plugins count themselves are declared in ``storeplatform.core.metrics`` (no-ops
until the observability component sets their backend).
"""
REQUEST = "observe.request"
TASK = "observe.task"
TASK_TRACE = "observe.task_trace"
