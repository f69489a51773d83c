"""Paste server runners that take their port from ``pserve INI http_port=N`` (default in the ini).

PasteDeploy never lets a command-line variable override a value written in the ini file, so
``%(http_port)s`` cannot have a default there; these runners read the variable instead.

Both hand the request's ``X-Forwarded-*`` (and ``Forwarded``) headers to the site untouched and
never change its scheme or client address from them: ``storeplatform.trusted_proxies`` (the app's
setting, ``storeplatform.client``) alone decides which proxy is believed, under either server. A
server section naming the server's own proxy settings stops start-up with one line.
"""
import gc
import os
import sys

# waitress: with none of these set and clear_untrusted_proxy_headers false it adds no proxy
# middleware at all (waitress.server), so the headers reach the site as the client sent them.
_WAITRESS_PROXY_SETTINGS = ("trusted_proxy", "trusted_proxy_count", "trusted_proxy_headers",
                            "clear_untrusted_proxy_headers", "log_untrusted_proxy_headers")
# gunicorn: who may set the scheme (secure_scheme_headers) and the header-named environ keys
# (forwarder_headers); header_map = dangerous would read a client's X_Forwarded_For as X-Forwarded-For.
_GUNICORN_PROXY_SETTINGS = ("forwarded_allow_ips", "secure_scheme_headers", "forwarder_headers")
# gunicorn trusts nobody: no peer sets the scheme or a forwarder header (gunicorn trusts a Unix
# socket's peer whatever forwarded_allow_ips says, hence the empty lists as well). This also
# overrides gunicorn's FORWARDED_ALLOW_IPS environment variable and a gunicorn config file.
_GUNICORN_TRUSTS_NOBODY = {"forwarded_allow_ips": "", "secure_scheme_headers": {}, "forwarder_headers": ""}


class _Refused(BaseException):
    """Start-up refused (the line is written). pserve catches SystemExit from a server runner and
    exits 0 after printing "Exiting 1", so this leaves the process as an uncaught exception does
    (status 1, atexit handlers run) without a traceback."""


def _refuse(message):
    print(f"storeplatform: error: {message}", file=sys.stderr, flush=True)
    shown = sys.excepthook
    sys.excepthook = lambda kind, value, tb: None if kind is _Refused else shown(kind, value, tb)
    raise _Refused(message)


def _check_proxy_settings(kw, names, server):
    for key, value in kw.items():
        name = key.lower()
        if name in names or (name == "header_map" and str(value).strip().lower() == "dangerous"):
            _refuse(f"the server section sets {server}'s {name} ({value}): which proxies' X-Forwarded-* headers "
                    "are believed is storeplatform.trusted_proxies in [app:main], under both servers; use it instead")


def _port(global_conf, port):
    return int(global_conf.get("http_port") or port)


def _fit_pool(app, web_threads):
    """The site's database pool holds what this server's threads need (storeplatform.core.db.pool);
    a pool the owner set too small stops start-up. An app that is not our site as such (wrapped
    by a filter) keeps the pool it was made with."""
    from .core.db.pool import PoolTooSmall, fit_pool

    registry = getattr(app, "registry", None)
    if registry is None or "db.engine" not in registry:
        return
    try:
        fit_pool(registry, web_threads)
    except PoolTooSmall as exc:
        _refuse(str(exc))


def _owners_hook(kw, name, arity):
    """The gunicorn server hook ``name`` the owner's server section names (a callable, or a
    dotted name that gunicorn resolves as it would), or None: ours run after it."""
    theirs = kw.get(name)
    if theirs is not None and not callable(theirs):
        from gunicorn.config import validate_callable

        theirs = validate_callable(arity)(theirs)
    return theirs


def _metrics_across_workers(app, kw):
    """gunicorn's workers each count their own requests: with the site's metrics on and several
    workers, they write them to ``storeplatform.metrics_dir`` (the app factory chose it before
    the fork), or by default to ``var/metrics`` beside the ini (made owner-only, chosen here),
    which this master cleans of the processes that are gone before it forks, and of each
    worker's gauges when the worker exits (``child_exit``, after the owner's own hook if the
    section names one)."""
    from .components.observability import metrics

    registry = getattr(app, "registry", None)
    if registry is None or "storeplatform.parsed" not in registry.settings:
        return
    if not metrics.settings_of(registry).enabled:
        return
    # The master serves nothing: its thread writing the batches stops, each worker starts its own.
    metrics.pause_flushing()
    path = metrics.directory()
    if path is None:
        # One worker counts alone (as waitress's one process does); several share a directory.
        workers = int(kw.get("workers") or os.environ.get("WEB_CONCURRENCY") or 1)
        if workers <= 1:
            return
        try:
            path = metrics.shared_directory(registry)
        except ValueError as exc:
            _refuse(str(exc))
    metrics.clean_directory(path)
    theirs = _owners_hook(kw, "child_exit", 2)

    def child_exit(server, worker):
        if theirs is not None:
            theirs(server, worker)
        metrics.process_exited(worker.pid, path)

    kw["child_exit"] = child_exit


def _site_registry(app):
    """The registry of our site, or None for an app that is not it as such (wrapped by a filter)."""
    registry = getattr(app, "registry", None)
    return registry if registry is not None and "db.engine" in registry else None


def _follow_served_address(app, host, port):
    """``site.url`` follows the address served unless the site's owner set it
    (storeplatform.startup): links made outside a request name the port that answers."""
    registry = _site_registry(app)
    if registry is None:
        return None, None
    from .core.startup import served

    url, effective, _ = served(registry, host, port)
    return url, effective


def _exit_workers_at_once(kw):
    """A worker that leaves (a stop, a restart, ``max_requests``) runs the process's exit
    handlers (the metrics' last batch, logging's flush) and ends there, without the interpreter's
    teardown: that collects and frees every object the app made, in each worker, touching each
    page it shares with the master (copy-on-write). Measured on a busy 2-core machine (load 11),
    4 sync workers took 12-17 s to end after SIGTERM, all of it in that teardown; a rolling
    restart waits for it (docs/operations.md, "Several machines"). After the owner's own
    ``worker_exit`` if the section names one; the exit status is the one the worker was leaving
    with (gunicorn reads it: a worker that failed to boot stops the server)."""
    theirs = _owners_hook(kw, "worker_exit", 2)

    def worker_exit(server, worker):
        if theirs is not None:
            theirs(server, worker)
        leaving = sys.exc_info()[1]  # gunicorn calls this while the worker's SystemExit propagates
        code = leaving.code if isinstance(leaving, SystemExit) else 1
        if code is None:
            code = 0
        elif not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
        import atexit

        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - a closed stream: nothing left to write
                pass
        os._exit(code & 0xFF)

    kw["worker_exit"] = worker_exit


def _freeze_before_fork(kw):
    """What the master made before it forks a worker (the app, its modules, its compiled
    statements: most of a worker's objects) is moved out of the garbage collector's sight
    (``gc.freeze``): a worker's full collection otherwise walks all of it again, every few seconds
    under load. Measured with the HTTP bench: docs/performance.md. After the owner's own
    ``pre_fork`` if the section names one."""
    theirs = _owners_hook(kw, "pre_fork", 2)

    def pre_fork(server, worker):
        if theirs is not None:
            theirs(server, worker)
        gc.freeze()

    kw["pre_fork"] = pre_fork


def _follow_bound_port(app, host, kw):
    """``http_port=0``: the system chooses the port when gunicorn binds, so ``site.url`` follows
    it once bound (gunicorn's ``when_ready``, in the master before it forks its workers; after
    the owner's own hook if the section names one)."""
    theirs = _owners_hook(kw, "when_ready", 1)

    def when_ready(server):
        if theirs is not None:
            theirs(server)
        bound = server.LISTENERS[0].sock.getsockname() if server.LISTENERS else None
        if bound is not None and isinstance(bound, tuple):
            _follow_served_address(app, host, bound[1])

    kw["when_ready"] = when_ready


def _print_ready(app, url, effective, global_conf):
    """The end of a development server's start-up output: the ready line, the admin, the REST
    API, the demo logins and commands that work when pasted (after waitress's own lines)."""
    registry = _site_registry(app)
    if registry is None or url is None:
        return
    from .core.startup import ready_summary

    try:
        lines = ready_summary(registry, url, global_conf.get("__file__"), effective)
    except Exception as exc:  # noqa: BLE001 - the server serves anyway; say it is ready and why less is shown
        lines = [f"storeplatform is ready at {url}/ (Ctrl+C stops it)", f"  admin:     {url}/admin/",
                 f"  (the rest of the summary failed: {exc.__class__.__name__}: {exc})"]
    print("\n".join(lines), flush=True)


def _warn_of_counts(app, global_conf):
    """gunicorn prints no summary: kept list counts that differ from their rows (a restore with
    the triggers off) are one line on stderr at start-up, naming the command that repairs them."""
    registry = _site_registry(app)
    if registry is None:
        return
    from .core.startup import cli_command, counts_warning

    ini = global_conf.get("__file__")
    warning = counts_warning(registry, cli_command(ini) if ini else "storeplatform -c INI")
    if warning:
        print(f"storeplatform: warning: {warning}", file=sys.stderr, flush=True)


def waitress_server(app, global_conf, host="127.0.0.1", port="6543", **kw):
    """The waitress server the ``waitress`` runner serves with, made and bound but not running
    (tests serve their sites with it)."""
    from waitress.server import create_server

    _check_proxy_settings(kw, _WAITRESS_PROXY_SETTINGS, "waitress")
    return create_server(app, host=host, port=_port(global_conf, port), clear_untrusted_proxy_headers=False, **kw)


def waitress(app, global_conf, host="127.0.0.1", port="6543", **kw):
    import logging

    server = waitress_server(app, global_conf, host, port, **kw)
    _fit_pool(app, server.adj.threads)
    logging.basicConfig()  # as waitress.serve: a handler for waitress's own lines when nothing configured one
    # The socket is bound: the address is the one served (port 0 included).
    url, effective = _follow_served_address(app, getattr(server, "effective_host", host),
                                            getattr(server, "effective_port", None) or _port(global_conf, port))
    server.print_listen("Serving on http://{}:{}")
    # waitress's line goes to stderr through logging; let it out before the summary on stdout.
    for handler in logging.getLogger().handlers:
        handler.flush()
    _print_ready(app, url, effective, global_conf)
    server.run()


def gunicorn(app, global_conf, host="127.0.0.1", port="6543", **kw):
    from gunicorn.app.pasterapp import serve
    from gunicorn.config import get_default_config_file

    _check_proxy_settings(kw, _GUNICORN_PROXY_SETTINGS, "gunicorn")
    # Each worker process serves with ``threads`` threads (gthread; sync workers have one).
    _fit_pool(app, int(kw.get("threads") or 1))
    _metrics_across_workers(app, kw)
    _exit_workers_at_once(kw)
    _freeze_before_fork(kw)
    if _port(global_conf, port):
        _follow_served_address(app, host, _port(global_conf, port))
    else:
        _follow_bound_port(app, host, kw)
    _warn_of_counts(app, global_conf)
    # A logger class named in the section or in a gunicorn config file (named there, or
    # ./gunicorn.conf.py) is the site owner's: theirs is kept.
    if "logger_class" not in kw and "config" not in kw and get_default_config_file() is None:
        kw["logger_class"] = "storeplatform.core.gunicorn_logging.SiteLogger"
    serve(app, global_conf, host=host, port=str(_port(global_conf, port)), **kw, **_GUNICORN_TRUSTS_NOBODY)
