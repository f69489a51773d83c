"""Configured sites kept between the tests of one test process.

Building a site's Pyramid configuration (some 800 views and 170 routes with every plugin on)
is a quarter of the suite's CPU, and most tests build one with the settings the test before
built. A ``Site`` closed by its test gives its configured app back here; the next ``Site``
with the same settings and plugin objects takes it instead of building one.

What a test must not see of the test before it is the site's state, not its configuration,
and the app is given back only as it was configured:

- what the site made while it served is dropped: every registry entry added after the
  configuration (the process cache of answers and values, the options kept per process, the
  throttle's kept failures, the ETag key, the webhook sender, readiness's memo...), the
  queue's tasks and results, the database connections;
- settings a test changed are put back;
- an app whose configuration a test changed (a registry entry replaced, a plugin registered,
  a utility, adapter, route or engine listener added) or that runs its own consumer thread is
  not kept at all.

Each kept app serves one ``Site`` at a time: two sites of one test with the same settings (two
processes of one site, as tests of cross-process behaviour make them) get two apps.
``SP_TEST_FRESH_SITES=1`` turns the keeping off (is a failure a kept app's?).
"""
import os
import threading

# Enough for the settings a test module's tests use in turn (a configured site is ~5 MB).
MAX_KEPT = 32
# Settings that name the site's own queue and nothing the app's configuration depends on.
_PER_SITE = frozenset({"huey.name"})

_lock = threading.Lock()
_idle = {}  # key -> [KeptApp]
_order = []  # keys of _idle's apps, least recently given back first


def key_of(settings, plugins, environ):
    """The key a site with these arguments is kept under, or None when it cannot be shared
    (``SP_TEST_FRESH_SITES=1``: never, every site built anew, to tell whether a failure
    comes from a kept app). A test's own plugin objects are part of the key (the objects, not
    their ids: an id is reused once its object is gone)."""
    if environ or os.environ.get("SP_TEST_FRESH_SITES") == "1":
        return None
    try:
        key = frozenset((k, v) for k, v in settings.items() if k not in _PER_SITE), tuple(plugins)
        hash(key)
        return key
    except TypeError:  # a value or plugin that is not hashable
        return None


class KeptApp:
    """A configured site (its configurator and WSGI app) and what it looked like when built."""

    def __init__(self, key, config, wsgi):
        self.key, self.config, self.wsgi = key, config, wsgi
        registry = config.registry
        self._entries = dict(registry)
        self._settings = dict(registry.settings)
        self._plugins = frozenset(map(id, registry["plugins"].get_plugins()))
        self._registrations = _registrations(registry)

    def unchanged(self):
        registry = self.config.registry
        if registry.get("queue.consumer") is not None:
            return False
        if any(registry.get(k, _MISSING) is not v for k, v in self._entries.items()):
            return False
        return (frozenset(map(id, registry["plugins"].get_plugins())) == self._plugins
                and _registrations(registry) == self._registrations)

    def reset(self):
        """The app as configured: what it made while serving dropped, its settings put back."""
        registry = self.config.registry
        for k in [k for k in registry if k not in self._entries]:
            del registry[k]
        registry.settings.clear()
        registry.settings.update(self._settings)
        registry["queue.huey"].flush()


_MISSING = object()


def _registrations(registry):
    """How many registrations of each kind, routes, and listeners of each engine event the site
    has: a test that adds one (a utility, a subscriber, a route, an ``event.listen`` on the
    engine) changed the app."""
    from pyramid.interfaces import IRoutesMapper

    engine = registry["db.engine"]
    routes = len(registry.getUtility(IRoutesMapper).get_routes())
    listeners = tuple(len(getattr(dispatch, name)) for dispatch in (engine.dispatch, engine.pool.dispatch)
                      for name in dispatch._event_names)
    return (len(registry._utility_registrations), len(registry._adapter_registrations),
            len(registry._subscription_registrations), len(registry._handler_registrations), routes, listeners)


def take(key):
    """A kept app for ``key``, or None."""
    if key is None:
        return None
    with _lock:
        apps = _idle.get(key)
        if not apps:
            return None
        app = apps.pop()
        _order.remove(key)
        if not apps:
            del _idle[key]
        return app


def give_back(app):
    """Keep ``app`` for the next site with its settings, if it is as it was configured."""
    if app is None or not app.unchanged():
        return
    try:
        app.reset()
    except Exception:  # a queue that does not answer (a test of an unreachable one): not kept
        return
    with _lock:
        _idle.setdefault(app.key, []).append(app)
        _order.append(app.key)
        while len(_order) > MAX_KEPT:
            oldest = _order.pop(0)
            apps = _idle[oldest]
            apps.pop(0)
            if not apps:
                del _idle[oldest]
