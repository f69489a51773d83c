"""Health checks for load balancers and orchestrators, outside ``{rest_root}``, public:
``GET /healthz`` (the process answers; nothing else is touched) and ``GET /readyz`` (the
database answers, its schema is at the migration heads of the host and every enabled plugin,
the task queue answers; 503 naming the failing part otherwise). ``GET /readyz?counts=1`` also
compares the kept list counts with their rows (``counts``: a warning, never a 503; compared at
most once a minute per process, whoever asks)."""
import logging
import re
import threading
import time

from alembic.script import ScriptDirectory
from alembic.script.revision import RevisionError
from alembic.util import CommandError
from pyramid.response import Response
from sqlalchemy import text

from .db.count_repair import count_differences, differ_line
from .db.counts import counts_to_change
from .db.generation_triggers import triggers_to_change

from .jsonutil import dumpb
from .migrate import alembic_config

log = logging.getLogger(__name__)


def _json(status, body):
    response = Response(body=dumpb(body), status=status, content_type="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response


def healthz(request):
    return _json(200, {"status": "ok"})


def readiness(registry, errors=None):
    """{part: "ok" or what is wrong} for the database, its migrations and the queue. The
    exceptions behind a problem go to the log, or into ``errors`` (a dict) when one is given."""
    checks = {"database": "ok", "migrations": "ok", "queue": "ok"}

    def failed(part, exc):
        if errors is None:
            log.warning("readiness: %s: %r", part, exc)
        else:
            errors[part] = exc
        checks[part] = f"unreachable: {exc.__class__.__name__}"

    try:
        connection = registry["db.engine"].connect()
    except Exception as exc:  # the probe's answer is the report
        failed("database", exc)
        checks["migrations"] = "unknown"
    else:
        with connection:
            checks["migrations"] = migrations_check(registry, connection)
    try:
        registry["queue.huey"].pending_count()
    except Exception as exc:
        failed("queue", exc)
    return checks


def migrations_check(registry, connection, ini="INI"):
    """``"ok"`` when the schema is at the migration heads of the host and every enabled plugin,
    else what is missing and the command that brings it there (the readiness check's and the
    command line's one test of the schema)."""
    try:
        applied = set(connection.execute(text("SELECT version_num FROM alembic_version")).scalars())
    except Exception:  # no version table: never migrated
        applied = set()
    missing = sorted(head for head in heads(registry) - applied_with_ancestors(registry, applied)
                     if not passed_by_a_newer_release(registry, head, applied))
    if missing:
        return f"not at head (missing {', '.join(missing)}): run storeplatform -c {ini} migrate"
    # A table whose changes no trigger counts would keep cached answers stale for ever.
    changed = triggers_to_change(connection)[0]
    if changed:
        return (f"not counting what the models declare (generation triggers of {', '.join(changed)}): "
                f"run storeplatform -c {ini} migrate")
    # A table whose count triggers differ would answer wrong list totals.
    changed = counts_to_change(connection)[0]
    if changed:
        return (f"not counting what the models declare (count triggers of {', '.join(changed)}): "
                f"run storeplatform -c {ini} migrate")
    return "ok"


_REVISION = re.compile(r"^([a-z_]+)(\d+)$")


def passed_by_a_newer_release(registry, head, applied):
    """Whether the schema went past ``head`` with a newer release's migration: a revision this
    code does not know is applied, of the same branch (the revision ids of a branch share its
    prefix: ``sp``, ``evt``, ``inv`` ...) and numbered after it. During a rolling deploy the
    new release's migration (one that only adds) is applied while the old release still serves
    (docs/operations.md, "Rolling restarts"): the old one stays ready, and one of its processes
    that restarts meanwhile starts. A branch behind its head (a known older revision applied)
    is still refused."""
    mine = _REVISION.match(head)
    if mine is None:
        return False
    script = _script(registry)
    for revision in applied:
        theirs = _REVISION.match(revision)
        if theirs is None or theirs.group(1) != mine.group(1) or int(theirs.group(2)) <= int(mine.group(2)):
            continue
        try:
            script.get_revision(revision)
        except (RevisionError, CommandError):  # unknown here: a newer release's
            return True
    return False


def readyz(request):
    checks = readiness(request.registry)
    ready = all(value == "ok" for value in checks.values())
    body = {"status": "ok" if ready else "unavailable", "checks": checks}
    if request.GET.get("counts") in ("1", "true"):
        # A warning: wrong totals of lists are no reason to take the site out of service.
        checks["counts"] = kept_counts_check(request.registry) if checks["migrations"] == "ok" else "unknown"
        if checks["counts"] != "ok":
            body["warnings"] = ["counts"]
    return _json(200 if ready else 503, body)


COUNTS_EVERY = 60.0  # seconds: how long /readyz?counts=1 answers with the last comparison
_COUNTS_LOCK = threading.Lock()


def counts_check(connection, ini="INI"):
    """``"ok"`` when every kept list count is the number of its rows, else how many differ, of
    which tables, and the command that repairs them (a count of every counted table: on
    start-up or on demand, never per request)."""
    differences = count_differences(connection)
    if not differences:
        return "ok"
    return f"{differ_line(differences)}: run storeplatform -c {ini} counts repair"


def kept_counts_check(registry):
    """``counts_check`` for /readyz?counts=1: done again at most every ``COUNTS_EVERY`` seconds
    per process (the probe is public: nobody makes the site count its tables at will), one
    comparison at a time."""
    with _COUNTS_LOCK:
        done = registry.get("health.counts")
        if done is not None and time.monotonic() - done[0] < COUNTS_EVERY:
            return done[1]
        try:
            with registry["db.engine"].connect() as connection:
                value = counts_check(connection)
        except Exception as exc:  # the probe's answer is the report
            log.warning("readiness: counts: %r", exc)
            value = f"unreachable: {exc.__class__.__name__}"
        registry["health.counts"] = (time.monotonic(), value)
        return value


def startup_problem(registry):
    """The first reason this site cannot serve, as one line naming the setting or the command
    to run, or None."""
    errors = {}
    checks = readiness(registry, errors)

    def detail(part):
        exc = errors[part]
        text = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        return f"{checks[part]}: {text[0] if text else ''}".rstrip(": ")

    if checks["database"] != "ok":
        return f"sqlalchemy.url: the database is {detail('database')}"
    if checks["migrations"] != "ok":
        return f"the database schema is {checks['migrations']}"
    if checks["queue"] != "ok":
        return f"huey.url: the task queue is {detail('queue')}"
    return None


def heads(registry):
    """The migration heads of the host and the enabled plugins: fixed for a running process,
    found at the first probe, not at every one."""
    found = registry.get("health.heads")
    if found is None:
        found = registry["health.heads"] = set(_script(registry).get_heads())
    return found


def _script(registry):
    """The migration scripts of the host and the enabled plugins, read once per process."""
    script = registry.get("health.script")
    if script is None:
        script = registry["health.script"] = ScriptDirectory.from_config(alembic_config(registry))
    return script


def applied_with_ancestors(registry, applied):
    """The revisions ``applied`` (alembic_version's rows) stand for: themselves and everything
    below them, dependencies included (a head that another branch's revision depends on is not
    kept in alembic_version)."""
    script = _script(registry)
    seen, todo = set(), list(applied)
    while todo:
        try:
            found = script.get_revisions(todo.pop())
        except (RevisionError, CommandError):  # a plugin not enabled here, or a newer release's
            continue
        for revision in found:
            if revision is None or revision.revision in seen:
                continue
            seen.add(revision.revision)
            for below in (revision.down_revision, revision.dependencies):
                todo.extend([below] if isinstance(below, str) else below or ())
    return seen


def includeme(config):
    config.add_route("healthz", "/healthz", request_method="GET")
    config.add_route("readyz", "/readyz", request_method="GET")
    config.add_view(healthz, route_name="healthz")
    config.add_view(readyz, route_name="readyz")
